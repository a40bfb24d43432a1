/**
 * GET /v2/convert/formats for `npm run bench`, against bare baselines in the same run:
 *
 * - through serverless-offline and the handler in-process, against a bare node:http server sending
 *   the same bytes (what the route adds over serving the answer), plain and with
 *   `include=options,engine_versions&alternative=true`, with the answer's size;
 * - discovery itself at issue 29's scale: a made-up registry of 1,600 pairs (40 formats each way, each
 *   with the options of the real convert capability that lists the most), the first answer (rows made)
 *   against the later ones (filters on the rows made once per process), and the size of the answer with
 *   its options, plain and gzipped (discoveryResponse gzips large answers for clients that take it).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Emulator } from '../local/emulator.js';
import { call } from '../test/support/lambda.js';
import { measure, type Result } from './measure.js';

const kB = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

/** A server answering every request with `body`: the floor for any route sending it. */
async function bareServer(body: Buffer): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export async function discoveryScenario(platform: Emulator, opts: { requests: number; concurrency: number }): Promise<{ rows: Result[]; lines: string[] }> {
  const { handler } = await import('#functions/operations/convert-formats.js');
  const auth = { authorization: `Bearer ${platform.apiKey}` };
  const rows: Result[] = [];
  const lines: string[] = [];
  const requests = Math.max(50, Math.floor(opts.requests / 4));
  for (const query of ['', 'include=options,engine_versions&alternative=true']) {
    const label = `GET /v2/convert/formats${query ? '?include=…' : ''}`;
    const first = await call(handler, { path: '/v2/convert/formats', query, headers: auth });
    const body = Buffer.from(first.text);
    const bare = await bareServer(body);
    try {
      const fetchAll = async (url: string, headers: Record<string, string> = {}) => {
        const res = await fetch(url, { headers });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
      };
      const baseline = await measure(`${label}, bare node:http with the same bytes`, () => fetchAll(bare.url), { requests, concurrency: opts.concurrency });
      const inProcess = await measure(`${label}, handler in-process`, async () => {
        const res = await call(handler, { path: '/v2/convert/formats', query, headers: auth });
        if (res.status !== 200) throw new Error(`in-process: ${res.status}`);
      }, { requests, concurrency: opts.concurrency });
      const offline = await measure(`${label}, through serverless-offline`, () => fetchAll(`${platform.baseUrl}/v2/convert/formats${query ? `?${query}` : ''}`, auth), {
        requests,
        concurrency: opts.concurrency,
      });
      rows.push(baseline, inProcess, offline);
      lines.push(
        `${label}: ${(first.json?.data ?? []).length} rows, ${kB(body.length)}; p50 ${offline.p50.toFixed(1)} ms through serverless-offline, ` +
          `${inProcess.p50.toFixed(2)} ms in-process, ${baseline.p50.toFixed(2)} ms bare (offline ${(offline.p50 / baseline.p50).toFixed(1)}x, in-process ${(inProcess.p50 / baseline.p50).toFixed(1)}x the bare p50)`,
      );
    } finally {
      await bare.close();
    }
  }
  lines.push(await atScale());
  return { rows, lines };
}

/** discover() on 1,600 made-up pairs: the first answer against the later ones, and the size with options. */
async function atScale(): Promise<string> {
  const { parseEngineConfig } = await import('#lib/kernel/config.js');
  const { EngineRegistry } = await import('#lib/engines/core/registry.js');
  const { discover, discoveryResponse } = await import('#lib/file-api/operations/discovery.js');
  const { engineRegistry } = await import('#lib/file-api/operations/engines.js');
  const formats = Array.from({ length: 40 }, (_, i) => `f${i}`);
  // The options of the real convert capability that lists the most (every row with them: the upper bound).
  const real = engineRegistry().available('convert').map((c) => c.capability.options);
  const options = real.reduce((most, o) => (o.length > most.length ? o : most), [] as readonly string[]);

  const registry = new EngineRegistry(
    parseEngineConfig({}),
    { capabilities: [{ engine: 'bench', operation: 'convert', inputs: formats, outputs: formats, options }], order: { convert: ['bench'] } },
    [{ name: 'bench', description: '', detect: () => ({ versions: [{ version: '1.0' }] }) }],
  );
  const query = { include: 'options,engine_versions' };
  let t = performance.now();
  const first = discover(query, { restrictTo: 'convert', registry });
  const firstMs = performance.now() - t;
  const times: number[] = [];
  for (let i = 0; i < 50; i++) {
    t = performance.now();
    discover(query, { restrictTo: 'convert', registry });
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const later = times[Math.floor(times.length / 2)]!;
  t = performance.now();
  const size = Buffer.byteLength(JSON.stringify({ data: first }));
  const stringifyMs = performance.now() - t;
  t = performance.now();
  const zipped = (await discoveryResponse(first, 'gzip')).body as Buffer;
  const gzipMs = performance.now() - t;
  return (
    `discovery at scale (${first.length} made-up pairs, each with the ${options.length} options of the real convert capability that has the most): first answer ${firstMs.toFixed(1)} ms (rows made), ` +
    `later ${later.toFixed(2)} ms (${(firstMs / later).toFixed(0)}x faster); with options ${kB(size)} (JSON.stringify ${stringifyMs.toFixed(1)} ms), ` +
    `gzipped ${kB(zipped.length)} (${gzipMs.toFixed(1)} ms; a Lambda answer may not exceed 6 MB)`
  );
}
