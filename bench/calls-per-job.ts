/**
 * Calls per job, for `npm run bench` and the capacity model: jobs run one at a time through the whole
 * path a client takes (create, wait, download of each export URL), while the functions' process
 * records every request it answers and makes (bench/call-trace.cjs). For each kind of job, medians
 * over the runs of:
 *
 * - invocations by function: each request the functions' process answered, through the HTTP API
 *   (its route gives the function, from serverless.yml) or the Lambda invoke endpoint (the
 *   dispatcher's step and engine invocations), with the median time of one;
 * - state-store calls: reads (GetItem, BatchGetItem, Query) and writes (PutItem, UpdateItem,
 *   DeleteItem, BatchWriteItem), also by key family (the first partition key a call names, up to its
 *   first '#');
 * - queue sends (SendMessage, SendMessageBatch) and storage requests (PUT and POST, copies included,
 *   as puts; GET and HEAD of an object as gets; the rest as other). The client's own download from a
 *   signed storage URL is not the functions', so not counted.
 *
 * Writes bench/calls-per-job.json (its shape: scripts/capacity/calls-per-job.ts, which the capacity model reads it with).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { Emulator } from '../local/emulator.js';
import { cloudConvertClient } from '../test/support/cloudconvert.js';
import { jpegOfAboutOneMegabyte } from './engines.js';
import type { Call } from './hops.js';
import { median } from './measure.js';
import { CALLS_PER_JOB_FILE as CALLS_FILE, type CallsPerJob, type JobCalls } from '../scripts/capacity/calls-per-job.js';
import { untilEnded } from './pipeline.js';

/** A traced request, with what the tracer adds for counting. */
interface Traced extends Call {
  copy?: boolean;
  pks?: string[];
}

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const CALLS_PER_JOB_FILE = path.join(ROOT, CALLS_FILE);
const READS = new Set(['GetItem', 'BatchGetItem', 'Query']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);

/** A route of serverless.yml: its function, method and path's segments (`{name}` matches any one). */
interface Route {
  fn: string;
  method: string;
  segments: string[];
}

/** The function behind each HTTP API route of serverless.yml. */
function routeTable(): Route[] {
  const functions = (parse(readFileSync(path.join(ROOT, 'serverless.yml'), 'utf8')) as { functions: Record<string, { events?: Array<{ httpApi?: { method: string; path: string } }> }> }).functions;
  return Object.entries(functions).flatMap(([fn, def]) =>
    (def.events ?? []).flatMap((e) => (e.httpApi ? [{ fn, method: e.httpApi.method.toUpperCase(), segments: e.httpApi.path.split('/') }] : [])),
  );
}

/** The function that answers `method path` (a literal segment wins over a parameter). */
function functionOf(routes: Route[], method: string, pathOnly: string): string | undefined {
  const parts = pathOnly.split('/');
  const fits = routes.filter((r) => r.method === method && r.segments.length === parts.length && r.segments.every((s, i) => s === parts[i] || (s.startsWith('{') && parts[i] !== '')));
  const literal = (r: Route) => r.segments.filter((s) => !s.startsWith('{')).length;
  return fits.sort((a, b) => literal(b) - literal(a))[0]?.fn;
}

/** One job's traced requests, counted. */
function countJob(traced: Traced[], routes: Route[], ports: Record<string, string>) {
  const invocations: Record<string, number[]> = {};
  const state = { reads: 0, writes: 0, byKey: {} as Record<string, { reads: number; writes: number }> };
  const queue = { sends: 0 };
  const storage = { puts: 0, gets: 0, other: 0 };
  for (const c of traced) {
    if (c.dir === 'in') {
      const pathOnly = c.path.split('?')[0]!;
      const invoked = /\/functions\/([^/]+)\/invocations/.exec(pathOnly);
      const fn = invoked ? decodeURIComponent(invoked[1]!).split('-').at(-1)! : functionOf(routes, c.method, pathOnly);
      if (fn) (invocations[fn] ??= []).push(c.t1 - c.t0);
      continue;
    }
    const service = ports[c.host.split(':').at(-1) ?? ''];
    const operation = c.target?.split('.').at(-1) ?? '';
    if (service === 'state' && (READS.has(operation) || WRITES.has(operation))) {
      const kind = READS.has(operation) ? 'reads' : 'writes';
      state[kind]++;
      const family = (c.pks?.[0] ?? 'unknown').split('#')[0]!;
      (state.byKey[family] ??= { reads: 0, writes: 0 })[kind]++;
    } else if (service === 'queue' && (operation === 'SendMessage' || operation === 'SendMessageBatch')) {
      queue.sends++;
    } else if (service === 'storage') {
      const object = c.path.split('?')[0]!.split('/').filter(Boolean).length > 1;
      if (c.method === 'PUT' || c.method === 'POST') storage.puts++;
      else if (object && (c.method === 'GET' || c.method === 'HEAD')) storage.gets++;
      else storage.other++;
    }
  }
  return { invocations, state, queue, storage };
}
type Counted = ReturnType<typeof countJob>;

/** Medians over the runs, of every figure (a figure absent from a run counts 0 there). */
function medians(tasks: string, runs: Counted[]): JobCalls {
  const m = (pick: (r: Counted) => number) => median(runs.map(pick));
  const keys = (pick: (r: Counted) => Record<string, unknown>) => [...new Set(runs.flatMap((r) => Object.keys(pick(r))))].sort();
  const invocations: Record<string, number> = {};
  const durationMs: Record<string, number> = {};
  for (const fn of keys((r) => r.invocations)) {
    const count = m((r) => r.invocations[fn]?.length ?? 0);
    if (count === 0) continue;
    invocations[fn] = count;
    durationMs[fn] = Number(median(runs.flatMap((r) => r.invocations[fn] ?? [])).toFixed(1));
  }
  const byKey: JobCalls['state']['byKey'] = {};
  for (const family of keys((r) => r.state.byKey)) {
    const entry = { reads: m((r) => r.state.byKey[family]?.reads ?? 0), writes: m((r) => r.state.byKey[family]?.writes ?? 0) };
    if (entry.reads || entry.writes) byKey[family] = entry;
  }
  return {
    tasks,
    invocations,
    durationMs,
    state: { reads: m((r) => r.state.reads), writes: m((r) => r.state.writes), byKey },
    queue: { sends: m((r) => r.queue.sends) },
    storage: { puts: m((r) => r.storage.puts), gets: m((r) => r.storage.gets), other: m((r) => r.storage.other) },
  };
}

export interface CallsResult {
  lines: string[];
  calls: CallsPerJob;
}

/** Runs each kind of job `runs` times, create → wait → download, and counts what the functions did. */
export async function callsPerJob(platform: Emulator, traceFile: string, runs = 5): Promise<CallsResult> {
  const cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
  const port = (url: string) => new URL(url).port;
  const ports = { [port(platform.endpoints.dynamodb)]: 'state', [port(platform.endpoints.s3)]: 'storage', [port(platform.endpoints.sqs)]: 'queue' };
  const routes = routeTable();
  const photo = (await jpegOfAboutOneMegabyte()).toString('base64');
  const kinds: Record<string, { tasks: string; spec: Record<string, unknown> }> = {
    'no-engine': {
      tasks: 'import/base64 → export/url',
      spec: { raw: { operation: 'import/base64', file: Buffer.alloc(1024 * 1024, 7).toString('base64'), filename: 'data.bin' }, out: { operation: 'export/url', input: 'raw' } },
    },
    thumbnail: {
      tasks: 'import/base64 → thumbnail → export/url',
      spec: {
        photo: { operation: 'import/base64', file: photo, filename: 'photo.jpg' },
        thumb: { operation: 'thumbnail', input: 'photo', output_format: 'jpg', width: 200, height: 200 },
        out: { operation: 'export/url', input: 'thumb' },
      },
    },
  };
  const jobs: Record<string, JobCalls> = {};
  for (const [kind, { tasks, spec }] of Object.entries(kinds)) {
    const counted: Counted[] = [];
    // One run first, not counted: the functions' first load and the user's first look-ups.
    for (let i = 0; i <= runs; i++) {
      const t0 = performance.timeOrigin + performance.now();
      const created = await cc.jobs.create({ tasks: spec as never });
      const ended = await untilEnded(cc, created.id);
      if (ended.status !== 'finished') throw new Error(`${kind} job ended ${ended.status}`);
      for (const file of cc.jobs.getExportUrls(ended)) await (await fetch(file.url!)).arrayBuffer();
      const t1 = performance.timeOrigin + performance.now();
      // The functions' process writes its trace every 200 ms.
      await new Promise((r) => setTimeout(r, 450));
      if (i === 0) continue;
      const traced = readFileSync(traceFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Traced)
        .filter((c) => c.t0 >= t0 - 1 && c.t0 <= t1);
      counted.push(countJob(traced, routes, ports));
    }
    jobs[kind] = medians(tasks, counted);
  }
  const calls: CallsPerJob = { source: `npm run bench (its hops section), median of ${runs} runs per job, create → wait → download, ${new Date().toISOString().slice(0, 10)}`, jobs };
  writeFileSync(CALLS_PER_JOB_FILE, `${JSON.stringify(calls, null, 2)}\n`);
  return { lines: callLines(calls), calls };
}

/** The counts as the bench prints them. */
export function callLines(calls: CallsPerJob): string[] {
  const lines = [`calls per job, create → wait → download (${calls.source}):`];
  for (const [kind, job] of Object.entries(calls.jobs)) {
    const invocations = Object.entries(job.invocations).map(([fn, n]) => `${fn} ×${n} (${job.durationMs[fn]} ms)`);
    const byKey = Object.entries(job.state.byKey).map(([family, rw]) => `${family} ${rw.reads}r/${rw.writes}w`);
    lines.push(
      `  ${kind} (${job.tasks}): ${job.state.reads + job.state.writes} state calls (${job.state.reads} reads, ${job.state.writes} writes: ${byKey.join(', ')}), ` +
        `${job.queue.sends} queue sends, storage ${job.storage.puts} puts/${job.storage.gets} gets/${job.storage.other} other; ` +
        `${Object.values(job.invocations).reduce((a, b) => a + b, 0)} invocations: ${invocations.join(', ')}`,
    );
  }
  return lines;
}
