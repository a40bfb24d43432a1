/**
 * runLibreOffice's warm path: the pool of this process for the call's LibreOffice and confinement
 * (pool.ts), when the settings and the machine allow one, and one job on it. The task's input is
 * copied into a folder of the worker's own and the output copied back into the call's folder (neither
 * following a link the worker may have left: work-files.ts); the worker's folder for the job is gone
 * before the next job starts (worker.ts).
 *
 * Measured here (2 cores, LibreOffice 7.4, a 10-page docx to PDF): a warm conversion takes about a
 * tenth of a one-shot `soffice --convert-to`, whose start (2 s and more) dominates; see bench/office.ts.
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import type { EngineCall } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { createExclusive, openOutput } from '../core/work-files.js';
import type { OfficeJob } from './libreoffice.js';
import { OfficePool } from './pool.js';

const pools = new Map<string, OfficePool>();
const bridged = new Map<string, boolean>();

/** Whether `python` has the uno module (python3-uno), asked once per Python. */
function hasUno(python: string): boolean {
  let known = bridged.get(python);
  if (known === undefined) {
    const run = spawnSync(python, ['-c', 'import uno'], { stdio: 'ignore', timeout: 20_000, env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' } });
    known = run.status === 0;
    bridged.set(python, known);
  }
  return known;
}

/**
 * The number of warm processes the settings ask for here. `auto`: one per core, but none in an engine
 * function (ENGINE_FAMILY set, the office Lambda function): each of its invocations runs in a worker
 * process of its own and everything it started is then reaped (lib/wiring/engine-functions.ts), so a
 * warm process would not outlive its task, and must not: the reaper is what keeps a compromised
 * LibreOffice from seeing the next task.
 */
export function poolSize(config: EngineCall['config']): number {
  if (config.OFFICE_POOL_SIZE !== 'auto') return config.OFFICE_POOL_SIZE;
  return config.ENGINE_REAP || config.ENGINE_FAMILY ? 0 : availableParallelism();
}

/** The pool for this call's LibreOffice, or undefined where conversions run one process each. */
export function warmPool(call: EngineCall, installation: string): OfficePool | undefined {
  const c = call.config;
  const size = poolSize(c);
  if (size === 0 || !hasUno(c.OFFICE_PYTHON_PATH)) return undefined;
  const soffice = call.choice.installed.executable!;
  const baseDir = c.ENGINE_TMP_DIR || tmpdir();
  const settings = {
    size,
    maxConversions: c.OFFICE_MAX_CONVERSIONS,
    conversionMs: c.OFFICE_CONVERSION_SECONDS * 1000,
    queueLength: c.OFFICE_QUEUE_LENGTH,
    queueWaitMs: c.OFFICE_QUEUE_WAIT_SECONDS * 1000,
  };
  const key = JSON.stringify([soffice, c.OFFICE_PYTHON_PATH, call.tool.confinement.level, baseDir, settings]);
  let pool = pools.get(key);
  if (!pool) {
    pool = new OfficePool(
      settings,
      { python: c.OFFICE_PYTHON_PATH, soffice, readOnly: [installation], baseDir, confinement: call.tool.confinement, maxFileBytes: call.tool.maxFileBytes, startMs: 60_000 },
    );
    pools.set(key, pool);
  }
  return pool;
}

/** Ends every pool's workers (shutdown, tests). */
export async function closeOfficePools(): Promise<void> {
  const closing = [...pools.values()].map((pool) => pool.close());
  pools.clear();
  await Promise.all(closing);
}

/** Converts `job` on a warm worker; the output's path in `outDir`. */
export function convertWarm(call: EngineCall, pool: OfficePool, job: OfficeJob, outDir: string): Promise<string> {
  const input = job.input;
  const stem = path.parse(input.path).name;
  return pool.run(call.signal, (worker) =>
    worker.inJobDir(async (dir) => {
      const copy = path.join(dir, path.basename(input.path));
      // The worker outlives the job and has its folder: nothing there is followed, and what is read or
      // written must really be inside the worker's own folder, which it cannot move (work-files.ts).
      await pipeline(createReadStream(input.path), await createExclusive(copy, worker.dir));
      const written = path.join(dir, `${stem}.${job.extension}`);
      const ms = pool.settings.conversionMs;
      const said = await worker.convert({ input: copy, output: written, extension: job.extension, filter: job.filter, options: job.options, filterOptions: job.filterOptions, importFilter: job.importFilter }, ms, call.signal);
      if (said.timedOut) throw new EngineFailure('CONVERSION_FAILED', `LibreOffice did not convert ${input.filename} within ${ms / 1000} s (OFFICE_CONVERSION_SECONDS); it was stopped.`);
      if (!said.ok && !worker.alive) throw new EngineFailure('CONVERSION_FAILED', `LibreOffice ended while converting ${input.filename}.`, { cause: new Error(said.error) });
      const damaged = () => new EngineFailure('CONVERSION_FAILED', `LibreOffice could not convert ${input.filename} (it is damaged or not a ${input.format} file).`, { cause: new Error(said.error) });
      if (!said.ok) throw damaged();
      // A filter may name the file after what it wrote (the CSV filter given a sheet: `<stem>-<sheet>.csv`).
      const made = existsSync(written) ? written : (await readdir(dir)).map((f) => path.join(dir, f)).find((f) => f !== copy && f.toLowerCase().endsWith(`.${job.extension.toLowerCase()}`));
      if (!made) throw damaged();
      const out = path.join(outDir, `${stem}.${job.extension}`);
      const { handle } = await openOutput(made, worker.dir, path.basename(out));
      try {
        await pipeline(handle.createReadStream({ autoClose: false }), await createExclusive(out));
      } finally {
        await handle.close();
      }
      return out;
    }),
  );
}
