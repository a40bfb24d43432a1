/**
 * One average job of a mix: the calls-per-job entries weighted by their shares, resolved against the
 * stack's functions. Every function the calls file names must be in the template (a renamed or removed
 * function is the model and the template disagreeing, and fails here rather than dropping from a sum).
 */
import type { CallsPerJob, JobCalls } from './calls-per-job.js';
import { resolveFunction, type StackFacts } from './stack.js';

export type Mix = Record<string, number>;

export interface AverageJob {
  /** Invocations per job and median milliseconds of one, by function. */
  invocations: Record<string, number>;
  durationMs: Record<string, number>;
  reads: number;
  writes: number;
  byKey: Record<string, { reads: number; writes: number }>;
  queueSends: number;
  storage: { puts: number; gets: number; other: number };
}

/** `no-engine=3,thumbnail=1` → shares summing to 1; empty: every kind of the file alike. */
export function parseMix(text: string | undefined, calls: CallsPerJob): Mix {
  const entries = text
    ? text.split(',').map((part) => {
        const [name, share = '1'] = part.split('=').map((s) => s.trim());
        return [name!, Number(share)] as const;
      })
    : Object.keys(calls.jobs).map((name) => [name, 1] as const);
  for (const [name, share] of entries) {
    if (!calls.jobs[name]) throw new Error(`no job "${name}" in the calls-per-job file (it has ${Object.keys(calls.jobs).join(', ')})`);
    if (!(share > 0)) throw new Error(`the share of "${name}" is not a positive number`);
  }
  const total = entries.reduce((n, [, s]) => n + s, 0);
  return Object.fromEntries(entries.map(([name, share]) => [name, share / total]));
}

const addInto = (into: Record<string, number>, from: Record<string, number>, weight: number) => {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v * weight;
};

function addJob(avg: AverageJob, job: JobCalls, share: number, timeWeighted: Record<string, number>) {
  addInto(avg.invocations, job.invocations, share);
  for (const [fn, n] of Object.entries(job.invocations)) timeWeighted[fn] = (timeWeighted[fn] ?? 0) + n * share * job.durationMs[fn]!;
  avg.reads += job.state.reads * share;
  avg.writes += job.state.writes * share;
  for (const [family, calls] of Object.entries(job.state.byKey)) {
    const into = (avg.byKey[family] ??= { reads: 0, writes: 0 });
    into.reads += calls.reads * share;
    into.writes += calls.writes * share;
  }
  avg.queueSends += job.queue.sends * share;
  addInto(avg.storage, job.storage, share);
}

/** The job with its functions named as the template names them. */
function resolved(job: JobCalls, stack: StackFacts): JobCalls {
  const rename = (counts: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(counts).map(([name, n]) => {
        const fn = resolveFunction(stack, name);
        if (!fn) throw new Error(`the calls-per-job file names function ${name}, which the packaged template does not have`);
        return [fn.name, n];
      }),
    );
  return { ...job, invocations: rename(job.invocations), durationMs: rename(job.durationMs) };
}

export function averageJob(calls: CallsPerJob, mix: Mix, stack: StackFacts): AverageJob {
  const avg: AverageJob = { invocations: {}, durationMs: {}, reads: 0, writes: 0, byKey: {}, queueSends: 0, storage: { puts: 0, gets: 0, other: 0 } };
  const timeWeighted: Record<string, number> = {};
  for (const [name, share] of Object.entries(mix)) addJob(avg, resolved(calls.jobs[name]!, stack), share, timeWeighted);
  for (const fn of Object.keys(avg.invocations)) {
    // The mix's median of one invocation, weighted by how often each kind of job makes it.
    avg.durationMs[fn] = avg.invocations[fn]! > 0 ? timeWeighted[fn]! / avg.invocations[fn]! : 0;
  }
  return avg;
}
