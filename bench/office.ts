/**
 * Office conversion for `npm run bench` (BENCH_ONLY=office): docx → pdf of a 10-page document made
 * here (the `docx` package), through runLibreOffice as a task calls it (confined, its input copied in
 * and its output out), against one bare `soffice --headless --convert-to pdf` of the same file
 * (unconfined, its profile kept between runs, started after a warm-up run: warm disk cache).
 *
 * - warm: the median of sequential conversions on a warm pool of one, over the bare median (goal ≤ 1.2);
 *   the one-shot path (OFFICE_POOL_SIZE=0: a confined soffice per conversion) is shown beside it; the
 *   three run in alternation, so that a shared machine's drifting load meets them alike;
 * - parallel: conversions per second with two workers over one, each fed a burst of more conversions
 *   than it has workers, in alternating rounds (goal ≥ 1.7);
 * - soak: one conversion a second (60 a minute) for BENCH_OFFICE_SOAK_MINUTES (default 5) on the
 *   default pool, each on its own call; failures (goal 0) and latency.
 * Needs LibreOffice, bubblewrap and python3-uno; the section says so and is skipped without them.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runLibreOffice } from '#lib/engines/office/libreoffice.js';
import { closeOfficePools, poolSize } from '#lib/engines/office/warm.js';
import { parseConfig } from '#lib/kernel/config.js';
import { engineCall } from '../test/support/engine-call.js';
import { pagedDocx } from '../test/support/paged-docx.js';
import { TEST_CONFIG_ENV } from '../test/support/recording-queue.js';
import type { Goal } from './goals.js';
import { median, percentile } from './measure.js';

const RUNS = Number(process.env.BENCH_OFFICE_RUNS ?? 9);
const SOAK_MINUTES = Number(process.env.BENCH_OFFICE_SOAK_MINUTES ?? 5);

function elapsed(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** One bare `soffice --convert-to pdf` of `file`, with `profile`; its time in ms. */
function bareRun(file: string, profile: string, outDir: string): Promise<number> {
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const args = ['--headless', '--norestore', `-env:UserInstallation=${pathToFileURL(profile).href}`, '--convert-to', 'pdf', '--outdir', outDir, file];
    const child = spawn('soffice', args, { stdio: 'ignore' });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(elapsed(start)) : reject(new Error(`soffice exit ${code}`))));
  });
}

/** One conversion as a task makes it, under `env`; its time in ms. */
async function taskRun(docx: Buffer, env: Record<string, string>): Promise<number> {
  const hand = engineCall('libreoffice', 'convert', {}, [{ filename: 'ten-pages.docx', data: docx, format: 'docx' }], env);
  try {
    const start = process.hrtime.bigint();
    await runLibreOffice(hand.call, { input: hand.call.inputs[0]!, extension: 'pdf' });
    return elapsed(start);
  } finally {
    hand.remove();
  }
}

/** Seconds for `count` conversions submitted at once to `workers` warm workers (warmed up first). */
async function burst(docx: Buffer, workers: number, count: number): Promise<number> {
  const env = { OFFICE_POOL_SIZE: String(workers), OFFICE_QUEUE_LENGTH: String(count) };
  await Promise.all(Array.from({ length: workers }, () => taskRun(docx, env)));
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: count }, () => taskRun(docx, env)));
  return elapsed(start) / 1000;
}

/**
 * Conversions per second with one worker and with two, measured in alternating rounds so that the
 * load of a shared machine drifting meets both alike.
 */
async function perSecond(docx: Buffer, count: number, rounds = 3): Promise<{ single: number; double: number }> {
  const seconds = { 1: 0, 2: 0 };
  for (let round = 0; round < rounds; round++) {
    for (const workers of [1, 2] as const) seconds[workers] += await burst(docx, workers, count);
  }
  await closeOfficePools();
  return { single: (rounds * count) / seconds[1], double: (rounds * count) / seconds[2] };
}

/** Medians of bare soffice, the one-shot confined path and the warm pool of one, run in alternation (each after a warm-up). */
async function medians(docx: Buffer, file: string, dir: string): Promise<{ bare: number; oneShot: number; warm: number }> {
  const profile = path.join(dir, 'bare-profile');
  const bare = () => bareRun(file, profile, path.join(dir, 'out'));
  const one = { OFFICE_POOL_SIZE: '1' };
  await bare();
  await taskRun(docx, one);
  const times = { bare: [] as number[], oneShot: [] as number[], warm: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    times.bare.push(await bare());
    if (i < 5) times.oneShot.push(await taskRun(docx, { OFFICE_POOL_SIZE: '0' }));
    times.warm.push(await taskRun(docx, one));
  }
  await closeOfficePools();
  return { bare: median(times.bare), oneShot: median(times.oneShot), warm: median(times.warm) };
}

/** One conversion a second for `minutes`, each on its own call: failures and latencies. */
async function soak(docx: Buffer, minutes: number): Promise<{ failures: number; times: number[]; errors: string[] }> {
  const times: number[] = [];
  const errors: string[] = [];
  const runs: Promise<void>[] = [];
  for (let i = 0; i < minutes * 60; i++) {
    runs.push(taskRun(docx, {}).then((ms) => void times.push(ms), (err: unknown) => void errors.push(err instanceof Error ? err.message : String(err))));
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  await Promise.all(runs);
  return { failures: errors.length, times, errors };
}

export async function officeBench(): Promise<{ lines: string[]; goals: Goal[] }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-office-'));
  const docx = await pagedDocx(10, 'bench');
  const file = path.join(dir, 'ten-pages.docx');
  writeFileSync(file, docx);
  try {
    const { bare, oneShot, warm } = await medians(docx, file, dir);
    const count = Math.max(8, RUNS * 2);
    const { single, double } = await perSecond(docx, count);
    const soaked = await soak(docx, SOAK_MINUTES);
    await closeOfficePools();
    const workers = poolSize(parseConfig({ ...process.env, ...TEST_CONFIG_ENV }));
    const lines = [
      `office docx → pdf, 10 pages: bare soffice --convert-to median ${bare.toFixed(0)} ms; one-shot confined ${oneShot.toFixed(0)} ms (${(oneShot / bare).toFixed(2)}×); ` +
        `warm pool ${warm.toFixed(0)} ms (${(warm / bare).toFixed(2)}×)`,
      `office throughput: ${single.toFixed(2)} conversions/s with 1 worker, ${double.toFixed(2)} with 2 (${(double / single).toFixed(2)}×), ${count} conversions a burst, 3 alternating rounds each`,
      `office soak: ${soaked.times.length + soaked.failures} conversions at 60/min for ${SOAK_MINUTES} min on ${workers} worker(s): ${soaked.failures} failed` +
        (soaked.times.length ? `, median ${median(soaked.times).toFixed(0)} ms, p95 ${percentile(soaked.times, 95).toFixed(0)} ms` : '') +
        (soaked.errors.length ? ` (first: ${soaked.errors[0]})` : ''),
    ];
    const goals: Goal[] = [
      { goal: 'warm office docx → pdf median ≤ 1.2× bare soffice', measured: warm, unit: 'ms', baseline: { what: 'bare soffice --convert-to', value: bare }, comparison: '≤', limit: 1.2 * bare },
      { goal: 'office conversions/s with 2 workers ≥ 1.7× with 1', measured: double, unit: 'jobs/s', baseline: { what: '1 worker', value: single }, comparison: '≥', limit: 1.7 * single },
      { goal: `no office failure at 60 conversions/min for ${SOAK_MINUTES} min`, measured: soaked.failures, unit: 'calls', comparison: '≤', limit: 0 },
    ];
    return { lines, goals };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
