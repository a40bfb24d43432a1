/**
 * A large file through the pipeline: import/url from a local HTTP server (generated on the fly) →
 * export/url → download, with the memory of the process that runs the functions sampled all along.
 * `npx tsx bench/large-file.ts [MiB]` (default 1024); also used by `npm run bench`.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startEmulator } from '../local/emulator.js';
import { bundleHandler, invokeIsolated } from './isolated-consumer.js';
import { cloudConvertClient } from '../test/support/cloudconvert.js';

export interface LargeFileResult {
  mib: number;
  seconds: number;
  /** Peak RSS of the import and the export consumer, each alone in its own process as in Lambda. */
  importPeakRssMiB: number;
  exportPeakRssMiB: number;
  intact: boolean;
}

export async function largeFileRun(mib = 1024): Promise<LargeFileResult> {
  const chunk = 1024 * 1024;
  const sent = createHash('md5');
  for (let i = 0; i < mib; i++) sent.update(block(i, chunk));
  const source = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(mib * chunk) });
    let i = 0;
    const pump = () => {
      while (i < mib) if (!res.write(block(i++, chunk))) return void res.once('drain', pump);
      res.end();
    };
    pump();
  });
  await new Promise<void>((resolve) => source.listen(0, '127.0.0.1', () => resolve()));
  const port = (source.address() as AddressInfo).port;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-large-'));
  const platform = await startEmulator({
    dataDir,
    output: 'ignore',
    // The consumers are driven here, one process each, instead of by the dispatcher.
    dispatch: false,
    env: { LOG_LEVEL: 'warn', FETCH_ALLOW_HOSTS: `127.0.0.1:${port}` },
  });
  const [importBundle, exportBundle] = await Promise.all([
    bundleHandler('functions/tasks/import-step.ts'),
    bundleHandler('functions/exports/export-step.ts'),
  ]);
  try {
    const cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
    const started = performance.now();
    const job = await cc.jobs.create({
      tasks: {
        fetch: { operation: 'import/url', url: `http://127.0.0.1:${port}/large.bin` },
        out: { operation: 'export/url', input: 'fetch' },
      },
    });
    const id = (name: string) => job.tasks.find((t) => t.name === name)!.id;
    const env = { ...platform.env, LOG_LEVEL: 'warn' };
    const imported = await invokeIsolated(importBundle.file, id('fetch'), env);
    const exported = await invokeIsolated(exportBundle.file, id('out'), env);
    const done = await cc.jobs.get(job.id, { include: 'tasks' });
    const [file] = cc.jobs.getExportUrls(done);
    const received = createHash('md5');
    if (file?.url) {
      const res = await fetch(file.url);
      for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) received.update(part);
    }
    const seconds = (performance.now() - started) / 1000;
    return {
      mib,
      seconds,
      importPeakRssMiB: imported.peakRssMiB,
      exportPeakRssMiB: exported.peakRssMiB,
      intact: done.status === 'finished' && received.digest('hex') === sent.digest('hex'),
    };
  } finally {
    importBundle.dispose();
    exportBundle.dispose();
    await platform.stop();
    source.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function block(i: number, size: number): Buffer {
  const b = Buffer.alloc(size, i % 253);
  b.writeUInt32BE(i, 0);
  return b;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = await largeFileRun(Number(process.argv[2] ?? 1024));
  console.log(
    `${r.mib} MiB import/url → export/url → download in ${r.seconds.toFixed(1)} s, intact: ${r.intact}; ` +
      `peak RSS of the import consumer ${r.importPeakRssMiB.toFixed(0)} MiB, of the export consumer ${r.exportPeakRssMiB.toFixed(0)} MiB`,
  );
}
