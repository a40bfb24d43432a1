/**
 * Job throughput for `npm run bench` (section `throughput`) at 1, 8 and 32 concurrent clients. Each
 * client submits a small job (import/raw of a few bytes → export/url, as the pipeline section's
 * burst) and waits for it to end (the SDK's `jobs.wait`: GET /sync/v2/jobs/{id}, the function of
 * GET /v2/jobs/{id}/wait; again while it answers before the end) before submitting the next, until
 * the level's count of jobs has been submitted. Each level starts with one untimed job per client, so that every client finds the
 * functions loaded. Reported per level: finished jobs per second over the level's wall time, and the
 * median and p95 of a job's latency (its POST to the wait that saw it end).
 *
 * The wait route reads the job every 250 ms (lib/wiring/job-response.ts `waitFor`): a job's latency
 * here includes up to that much after its end, as every client of the wait route sees it.
 */
import type { Emulator } from '../local/emulator.js';
import { cloudConvertClient } from '../test/support/cloudconvert.js';
import { median, percentile } from './measure.js';
import { createSmallJob, untilEnded, type FailedWaits } from './pipeline.js';

/** Clients and jobs per level: about 15 s for the three on 2 cores. */
export const THROUGHPUT_LEVELS = [
  { clients: 1, jobs: 10 },
  { clients: 8, jobs: 48 },
  { clients: 32, jobs: 128 },
] as const;

export interface ThroughputLevel {
  clients: number;
  jobs: number;
  finished: number;
  seconds: number;
  /** Finished jobs per second. */
  jobsPerSecond: number;
  p50Ms: number;
  p95Ms: number;
  /** Waits that failed on the server's side and were repeated (bench/pipeline.ts `untilEnded`). */
  failedWaits: number;
}

export async function throughputScenario(
  platform: Emulator,
  levels: ReadonlyArray<{ clients: number; jobs: number }> = THROUGHPUT_LEVELS,
): Promise<{ lines: string[]; levels: ThroughputLevel[] }> {
  const cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
  let serial = 0;
  /** Clients submitting one job after another until `jobs` have been submitted; each job's latency, ms, and whether it finished. */
  const closedLoop = async (clients: number, jobs: number, failed?: FailedWaits) => {
    const ended: Array<{ ms: number; finished: boolean }> = [];
    let submitted = 0;
    const client = async () => {
      while (submitted < jobs) {
        submitted++;
        const t = performance.now();
        const job = await untilEnded(cc, (await createSmallJob(cc, serial++)).id, failed);
        ended.push({ ms: performance.now() - t, finished: job.status === 'finished' });
      }
    };
    await Promise.all(Array.from({ length: clients }, client));
    return ended;
  };

  const results: ThroughputLevel[] = [];
  for (const { clients, jobs } of levels) {
    await closedLoop(clients, clients);
    const failed: FailedWaits = { count: 0 };
    const started = performance.now();
    const ended = await closedLoop(clients, jobs, failed);
    const seconds = (performance.now() - started) / 1000;
    const finished = ended.filter((e) => e.finished).length;
    const latencies = ended.map((e) => e.ms);
    results.push({
      clients,
      jobs,
      finished,
      seconds,
      jobsPerSecond: finished / seconds,
      p50Ms: median(latencies),
      p95Ms: percentile(latencies, 95),
      failedWaits: failed.count,
    });
  }
  const lines = [
    'throughput, small jobs (import/raw → export/url), each client waiting for its job to end before the next:',
    ...results.map(
      (r) =>
        `  ${String(r.clients).padStart(2)} client${r.clients === 1 ? ' ' : 's'}: ${r.jobsPerSecond.toFixed(1).padStart(5)} jobs/s ` +
          `(${r.finished} of ${r.jobs} finished in ${r.seconds.toFixed(1)} s), latency median ${r.p50Ms.toFixed(0)} ms, p95 ${r.p95Ms.toFixed(0)} ms` +
          (r.failedWaits > 0 ? `; ${r.failedWaits} waits failed on the server's side and were repeated` : ''),
    ),
  ];
  return { lines, levels: results };
}
