/**
 * Pipeline scenarios for `npm run bench`: the end-to-end time of a 1 MB import/raw → export/url job
 * beside the bare object-storage work it stands for (one put and one presign), and job throughput
 * with 200 small jobs submitted at once.
 */
import type CloudConvert from 'cloudconvert';
import type { Emulator } from '../local/emulator.js';
import { LOCAL_CREDENTIALS } from '../local/backends.js';
import { createS3Client, S3FileStore } from '#lib/adapters/file-store/s3-file-store.js';
import { cloudConvertClient } from '../test/support/cloudconvert.js';
import { median } from './measure.js';

type Job = Awaited<ReturnType<CloudConvert['jobs']['wait']>>;

/** A job of a few bytes: import/raw → export/url. */
export async function createSmallJob(cc: CloudConvert, i: number): Promise<Job> {
  return cc.jobs.create({
    tasks: { raw: { operation: 'import/raw', file: `job ${i}`, filename: 'small.txt' }, out: { operation: 'export/url', input: 'raw' } },
  });
}

/** Waits that failed on the server's side, counted and repeated by `untilEnded`. */
export interface FailedWaits {
  count: number;
}

/**
 * The job once it has ended: a wait answers after 25 s at most, so wait again until it has. A wait
 * that fails on the server's side (a 5xx, or serverless-offline's answer when the wait function ran
 * out of time, which the SDK returns as no job) is counted in `failed` and repeated, up to 5 in a row.
 */
export async function untilEnded(cc: CloudConvert, id: string, failed: FailedWaits = { count: 0 }): Promise<Job> {
  let inARow = 0;
  for (;;) {
    let job: Job | undefined;
    try {
      job = await cc.jobs.wait(id);
    } catch (err) {
      const status = ((err as Error).cause as Response | undefined)?.status ?? 0;
      if (status < 500) throw err;
    }
    if (job?.status === 'finished' || job?.status === 'error') return job;
    if (job) {
      inARow = 0;
      continue;
    }
    failed.count++;
    if (++inARow === 5) throw new Error(`job ${id}: 5 waits in a row failed`);
  }
}

export interface PipelineResult {
  lines: string[];
  /** The 1 MB job: medians over `runs`, ms. */
  oneMegabyte: { runs: number; jobMs: number; bareMs: number };
  /** The small jobs submitted at once. */
  burst: { jobs: number; finished: number; seconds: number; jobsPerSecond: number; failedWaits: number };
}

export async function pipelineScenarios(platform: Emulator, runs = 10): Promise<PipelineResult> {
  const cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
  const bytes = Buffer.alloc(1024 * 1024, 7);
  const base64 = bytes.toString('base64');
  const bucket = platform.env.FILES_BUCKET!;
  const files = new S3FileStore(createS3Client({ region: 'us-east-1', endpoint: platform.endpoints.s3, credentials: LOCAL_CREDENTIALS }), bucket);

  const bare: number[] = [];
  const job: number[] = [];
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    await files.put(`bench/${i}.bin`, bytes);
    await files.signedGetUrl(`bench/${i}.bin`, { expiresInSeconds: 3600, filename: 'data.bin' });
    bare.push(performance.now() - t);

    t = performance.now();
    const created = await cc.jobs.create({
      tasks: { raw: { operation: 'import/base64', file: base64, filename: 'data.bin' }, out: { operation: 'export/url', input: 'raw' } },
    });
    const done = await cc.jobs.wait(created.id);
    if (done.status !== 'finished') throw new Error(`bench job ended ${done.status}`);
    job.push(performance.now() - t);
  }
  await files.deletePrefix('bench/');

  const count = 200;
  const t = performance.now();
  const ids = await Promise.all(Array.from({ length: count }, (_, i) => createSmallJob(cc, i).then((j) => j.id)));
  const failedWaits: FailedWaits = { count: 0 };
  const ended = await Promise.all(ids.map((id) => untilEnded(cc, id, failedWaits)));
  const seconds = (performance.now() - t) / 1000;
  const finished = ended.filter((j) => j.status === 'finished').length;

  const oneMegabyte = { runs, jobMs: median(job), bareMs: median(bare) };
  const burst = { jobs: count, finished, seconds, jobsPerSecond: count / seconds, failedWaits: failedWaits.count };
  return {
    oneMegabyte,
    burst,
    lines: [
      `1 MB import/base64 → export/url job: median ${oneMegabyte.jobMs.toFixed(0)} ms end to end, bare put + presign ${oneMegabyte.bareMs.toFixed(1)} ms ` +
        `(${(oneMegabyte.jobMs / oneMegabyte.bareMs).toFixed(0)}x; ${runs} runs)`,
      `${count} small jobs submitted at once: ${finished} finished in ${seconds.toFixed(1)} s, ${burst.jobsPerSecond.toFixed(1)} jobs/s` +
        (failedWaits.count > 0 ? ` (${failedWaits.count} waits failed on the server's side and were repeated)` : ''),
    ],
  };
}
