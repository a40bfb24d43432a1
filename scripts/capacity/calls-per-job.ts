/**
 * bench/calls-per-job.json: what one job of each kind costs in calls, as the bench measures it
 * (`npm run bench`, its hops section, writes the file; the capacity model reads it). The shape is shared
 * between the two: the bench writes JSON of exactly these types.
 */
import { readFile } from 'node:fs/promises';

export const CALLS_PER_JOB_FILE = 'bench/calls-per-job.json';

export interface CallsPerJob {
  /** How it was measured: command, runs, date. */
  source: string;
  /** 'no-engine' (1 MB import/base64 → export/url) and 'thumbnail' (import/base64 of a ~1 MB JPEG → thumbnail → export/url) at least. */
  jobs: Record<string, JobCalls>;
}

export interface JobCalls {
  /** The job's tasks, e.g. "import/base64 → export/url". */
  tasks: string;
  /** Invocations per job, create → wait → download, by serverless function name (jobsCreate, jobsWait, filesDownload, importStep, exportStep, processImage, engineImage…). */
  invocations: Record<string, number>;
  /** Median milliseconds of one invocation of each of those functions, as measured locally. */
  durationMs: Record<string, number>;
  /**
   * DynamoDB API calls per job: reads (GetItem, BatchGetItem, Query) and writes (PutItem, UpdateItem,
   * DeleteItem, BatchWriteItem), and by key family: the part of the item's pk before its first '#'
   * (job, task, ratelimit, usage, socket…; for a Query of an index, its key's family, e.g. webhooks).
   */
  state: { reads: number; writes: number; byKey: Record<string, { reads: number; writes: number }> };
  /** SQS requests per job by the functions (sends, incl. batches as one). */
  queue: { sends: number };
  /** S3 requests per job by the functions (the client's own download of a signed URL is not a function's). */
  storage: { puts: number; gets: number; other: number };
}

export class CallsPerJobError extends Error {
  override readonly name = 'CallsPerJobError';
}

const isCount = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;

function countsOf(value: unknown, where: string): Record<string, number> {
  if (!value || typeof value !== 'object') throw new CallsPerJobError(`${where} is not an object`);
  for (const [k, v] of Object.entries(value)) if (!isCount(v)) throw new CallsPerJobError(`${where}.${k} is not a count`);
  return value as Record<string, number>;
}

/** One job's entry checked field by field: a wrong shape fails here, by name, not as NaN in a table. */
function checkJob(name: string, job: any): JobCalls {
  const at = `jobs.${name}`;
  if (typeof job?.tasks !== 'string') throw new CallsPerJobError(`${at}.tasks is not a string`);
  const invocations = countsOf(job.invocations, `${at}.invocations`);
  const durationMs = countsOf(job.durationMs, `${at}.durationMs`);
  for (const fn of Object.keys(invocations)) {
    if (!(fn in durationMs)) throw new CallsPerJobError(`${at}.durationMs has no figure for ${fn}`);
  }
  const state = job.state;
  if (!isCount(state?.reads) || !isCount(state?.writes)) throw new CallsPerJobError(`${at}.state needs reads and writes`);
  for (const [family, calls] of Object.entries(state.byKey ?? {})) countsOf(calls, `${at}.state.byKey.${family}`);
  if (!isCount(job.queue?.sends)) throw new CallsPerJobError(`${at}.queue.sends is not a count`);
  countsOf(job.storage, `${at}.storage`);
  return { ...job, state: { ...state, byKey: state.byKey ?? {} } } as JobCalls;
}

export function parseCallsPerJob(text: string): CallsPerJob {
  const data = JSON.parse(text) as { source?: unknown; jobs?: Record<string, unknown> };
  if (typeof data.source !== 'string') throw new CallsPerJobError('source is not a string');
  if (!data.jobs || !Object.keys(data.jobs).length) throw new CallsPerJobError('jobs is empty');
  const jobs = Object.fromEntries(Object.entries(data.jobs).map(([name, job]) => [name, checkJob(name, job)]));
  return { source: data.source, jobs };
}

export async function readCallsPerJob(file = CALLS_PER_JOB_FILE): Promise<CallsPerJob> {
  return parseCallsPerJob(await readFile(file, 'utf8'));
}
