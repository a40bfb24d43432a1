/**
 * Pipeline scenarios for `npm run bench`: the end-to-end time of a 1 MB import/raw → export/url job
 * beside the bare object-storage work it stands for (one put and one presign), and job throughput
 * with 200 small jobs submitted at once.
 */
import type { Platform } from '#lib/local/platform.js';
import { LOCAL_CREDENTIALS } from '#lib/local/platform.js';
import { createS3Client, S3FileStore } from '#lib/files/s3.js';
import { cloudConvertClient } from '../test/support/cloudconvert.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

export async function pipelineScenarios(platform: Platform, runs = 10): Promise<string[]> {
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
  const ids = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      cc.jobs
        .create({ tasks: { raw: { operation: 'import/raw', file: `job ${i}`, filename: 'small.txt' }, out: { operation: 'export/url', input: 'raw' } } })
        .then((j) => j.id),
    ),
  );
  // A wait answers after 25 s at most; wait again until every job has ended.
  const untilEnded = async (id: string) => {
    let job = await cc.jobs.wait(id);
    while (job.status !== 'finished' && job.status !== 'error') job = await cc.jobs.wait(id);
    return job;
  };
  const ended = await Promise.all(ids.map(untilEnded));
  const seconds = (performance.now() - t) / 1000;
  const finished = ended.filter((j) => j.status === 'finished').length;

  return [
    `1 MB import/base64 → export/url job: median ${median(job).toFixed(0)} ms end to end, bare put + presign ${median(bare).toFixed(1)} ms ` +
      `(${(median(job) / median(bare)).toFixed(0)}x; ${runs} runs)`,
    `${count} small jobs submitted at once: ${finished} finished in ${seconds.toFixed(1)} s, ${(count / seconds).toFixed(1)} jobs/s`,
  ];
}
