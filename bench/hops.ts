/**
 * Where a job's time goes, hop by hop, for `npm run bench`: jobs of 1 MB import/base64 → export/url
 * run one at a time on a platform whose serverless-offline process records every request its
 * functions make to the local backends (bench/call-trace.cjs), while this process records the
 * dispatcher's Lambda invocations. For each job:
 *
 * - API: the POST /v2/jobs round trip as the client sees it;
 * - queue wait: from the step message being sent to the dispatcher invoking the step's function;
 * - each step's invocation, if any (tasks that need no engine run inside the POST), split into the time spent waiting on the state store (DynamoDB API),
 *   the object store (S3 API) and the queue (SQS API), and the rest (the function's own work: the
 *   file transfer's CPU side, serialisation, the emulated Lambda call);
 * - the calls each step made, by operation.
 *
 * Medians over the runs. The platform must be started with `hopTracing(file)`'s options.
 */
import dc from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Emulator, EmulatorOptions } from '../local/emulator.js';
import { cloudConvertClient } from '../test/support/cloudconvert.js';

/** One request the functions' process made or answered, as bench/call-trace.cjs records it. */
export interface Call {
  t0: number;
  t1: number;
  host: string;
  method: string;
  path: string;
  target?: string;
  /** Set on a request the functions' process answered (call-trace.cjs). */
  dir?: 'in';
}

/** What startEmulator needs for the trace: the tracer preloaded, the file named. */
export function hopTracing(file: string): Pick<EmulatorOptions, 'nodeArgs' | 'env'> {
  const tracer = path.join(path.dirname(fileURLToPath(import.meta.url)), 'call-trace.cjs');
  return { nodeArgs: ['--require', tracer], env: { CALL_TRACE_FILE: file } };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** Milliseconds covered by at least one call (calls made in parallel count once). */
function busy(calls: Call[], from: number, to: number): number {
  const spans = calls.map((c) => [Math.max(c.t0, from), Math.min(c.t1, to)] as const).filter(([a, b]) => b > a);
  spans.sort((a, b) => a[0] - b[0]);
  let total = 0;
  let end = -Infinity;
  for (const [a, b] of spans) {
    if (b <= end) continue;
    total += b - Math.max(a, end);
    end = b;
  }
  return total;
}

export async function hopBreakdown(platform: Emulator, traceFile: string, runs = 10): Promise<string[]> {
  const cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
  const port = (url: string) => new URL(url).port;
  const services: Record<string, string> = {
    [port(platform.endpoints.dynamodb)]: 'state',
    [port(platform.endpoints.s3)]: 'storage',
    [port(platform.endpoints.sqs)]: 'queue',
  };
  const serviceOf = (c: Call) => services[c.host.split(':').at(-1) ?? ''] ?? 'other';
  const operationOf = (c: Call) =>
    c.target?.split('.').at(-1) ?? (serviceOf(c) === 'storage' ? `${c.method} ${c.path.includes('uploadId') ? '(multipart)' : 'object'}` : c.method);

  // The dispatcher's invocations, from this process.
  const invocations: Array<{ fn: string; t0: number; t1: number }> = [];
  const open = new WeakMap<ClientRequest, { fn: string; t0: number }>();
  const onStart = ({ request }: { request: ClientRequest }) => {
    const match = /\/functions\/([^/]+)\/invocations/.exec(request.path);
    if (match) open.set(request, { fn: decodeURIComponent(match[1]!), t0: performance.timeOrigin + performance.now() });
  };
  const onFinish = ({ request, response }: { request: ClientRequest; response: IncomingMessage }) => {
    const started = open.get(request);
    if (!started) return;
    // The answer arrives when the function has returned; its body is small.
    response.once('end', () => invocations.push({ ...started, t1: performance.timeOrigin + performance.now() }));
  };
  dc.subscribe('http.client.request.start', onStart as (m: unknown) => void);
  dc.subscribe('http.client.response.finish', onFinish as (m: unknown) => void);

  const bytes = Buffer.alloc(1024 * 1024, 7).toString('base64');
  const rows: Record<string, number[]> = {};
  const counts: Record<string, Map<string, number>> = {};
  const add = (hop: string, ms: number) => (rows[hop] ??= []).push(ms);
  try {
    for (let i = 0; i < runs; i++) {
      invocations.length = 0;
      const t0 = performance.timeOrigin + performance.now();
      const job = await cc.jobs.create({
        tasks: { raw: { operation: 'import/base64', file: bytes, filename: 'data.bin' }, out: { operation: 'export/url', input: 'raw' } },
      });
      const t1 = performance.timeOrigin + performance.now();
      // Its steps, if any ran outside the POST (tasks that need no engine run inside it): the job has
      // ended when it says so, and every invocation it made has returned.
      const deadline = Date.now() + 60_000;
      while ((await cc.jobs.get(job.id)).status !== 'finished') {
        if (Date.now() > deadline) throw new Error(`job ${job.id}: not finished within 60 s (${invocations.map((v) => v.fn).join(', ')})`);
        await new Promise((r) => setTimeout(r, 5));
      }
      const steps = [...invocations].filter((v) => v.t0 >= t0).sort((a, b) => a.t0 - b.t0);
      // The functions' calls reach the file every 200 ms.
      await new Promise((r) => setTimeout(r, 450));
      const calls = readFileSync(traceFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Call)
        .filter((c) => c.t0 >= t0 - 1 && c.host && !c.dir && !c.path.includes('/invocations'));
      const within = (a: number, b: number) => calls.filter((c) => c.t0 >= a && c.t0 <= b);
      // From the send's start: a long-polling consumer can have the message before the sender has its answer.
      const lastSend = (a: number, b: number) => Math.max(...within(a, b).filter((c) => c.target?.endsWith('SendMessage')).map((c) => c.t0));

      const hop = (name: string, a: number, b: number) => {
        const inside = within(a, b);
        add(`${name}: total`, b - a);
        let other = b - a;
        for (const service of ['state', 'storage', 'queue']) {
          const ms = busy(inside.filter((c) => serviceOf(c) === service), a, b);
          add(`${name}: waiting on the ${service} store`.replace('queue store', 'queue'), ms);
          other -= ms;
        }
        add(`${name}: the rest (function work, Lambda emulation)`, other);
        const tally = (counts[name] ??= new Map());
        for (const c of inside) tally.set(`${serviceOf(c)} ${operationOf(c)}`, (tally.get(`${serviceOf(c)} ${operationOf(c)}`) ?? 0) + 1 / runs);
      };
      hop('API POST /v2/jobs', t0, t1);
      let previous = { t0, t1 };
      for (const step of steps) {
        const name = step.fn.split('-').at(-1)!;
        add(`queue wait before ${name}`, step.t0 - lastSend(previous.t0, previous.t1));
        hop(name, step.t0, step.t1);
        previous = step;
      }
      add('job, end to end (POST to its last invocation returning)', Math.max(t1, ...steps.map((v) => v.t1)) - t0);
    }
  } finally {
    dc.unsubscribe('http.client.request.start', onStart as (m: unknown) => void);
    dc.unsubscribe('http.client.response.finish', onFinish as (m: unknown) => void);
  }
  const width = Math.max(...Object.keys(rows).map((k) => k.length));
  const lines = [`hop breakdown of a 1 MB import/base64 → export/url job (median of ${runs}, ms):`];
  for (const [name, values] of Object.entries(rows)) lines.push(`  ${name.padEnd(width)}  ${median(values).toFixed(1).padStart(7)}`);
  lines.push('calls per job, by hop:');
  for (const [name, tally] of Object.entries(counts)) {
    const parts = [...tally].sort((a, b) => a[0].localeCompare(b[0])).map(([op, n]) => `${op} ×${Number(n.toFixed(1))}`);
    lines.push(`  ${name}: ${parts.join(', ')}`);
  }
  return lines;
}
