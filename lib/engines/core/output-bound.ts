/**
 * The bound on what one task's engine writes (TASK_MAX_OUTPUT_BYTES): the bytes its work folder holds
 * beyond its inputs, outputs and the tools' own temporary files alike, enforced while the engine runs:
 * - one file cannot grow past the bound: native tools run under RLIMIT_FSIZE (`prlimit --fsize`, set
 *   on the confinement's process and inherited by the tool), so the kernel refuses the write that
 *   would pass it (the tool gets SIGXFSZ or EFBIG and ends);
 * - the folder's total is measured every WATCH_MS (or twice a walk's time) while the engine runs;
 *   past the bound, the engine's signal is aborted, which kills the tool's process group (runTool)
 *   and stops in-process engines where they look at it;
 * - after the call, the total is measured again and the files to store are counted (engines that
 *   write in-process, sharp, pdf-lib, Chromium, have no limit on their writes).
 * Any of them ends the task with OUTPUT_TOO_LARGE, naming the setting; the task's files already stored
 * (an earlier file of a per-file operation) are deleted, and the work folder goes with the call.
 *
 * The inputs (the call's `in/` folder) do not count, up to ENGINE_MAX_INPUT_BYTES (checked before they
 * were downloaded): what a tool writes there beyond that does. So the folder never holds much more than
 * ENGINE_MAX_INPUT_BYTES + TASK_MAX_OUTPUT_BYTES, which the deployment makes fit the function's /tmp
 * (scripts/serverless-engine-functions.cjs, checked by scripts/ci/check-template.ts). The watch can be
 * passed by what a tool writes between two measures; the per-file limit cannot. Measured here with a
 * 256 MiB bound: FFmpeg writing 1,026,432,000 bytes of raw video (25 s and all of it stored without the
 * bound) to one file is stopped at 268,435,457 bytes after 1.1 to 1.3 s, and to four files of 255 MB
 * each after 0.5 to 0.9 s at 377 to 484 MB in all (it writes about 1 GB/s into the page cache).
 */
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { EngineConfig } from '../../kernel/config.js';
import { EngineFailure } from './errors.js';

const WATCH_MS = 50;
const MB = 1024 * 1024;

/** The work folder's bytes beyond its inputs (the `in/` folder up to `inputAllowance`). */
export async function workFolderBytes(dir: string, inputAllowance: number): Promise<number> {
  const inputs = await folderBytes(path.join(dir, 'in'));
  let other = 0;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.name === 'in' && entry.isDirectory()) continue;
    const full = path.join(dir, entry.name);
    other += entry.isDirectory() ? await folderBytes(full) : await sizeOf(full);
  }
  return other + Math.max(0, inputs - inputAllowance);
}

async function sizeOf(file: string): Promise<number> {
  try {
    return (await lstat(file)).size;
  } catch {
    return 0; // gone in between
  }
}

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? await folderBytes(full) : await sizeOf(full);
  }
  return total;
}

const shown = (bytes: number) => (bytes >= MB ? `${Math.round((bytes / MB) * 10) / 10} MiB` : `${bytes} bytes`);

export class OutputBound {
  readonly maxBytes: number;
  /** What native tools may write to one file (RLIMIT_FSIZE): one byte past the bound, so a file at it is known to have been cut. */
  readonly maxFileBytes: number;
  /** The engine's signal: the task's, and aborted with OUTPUT_TOO_LARGE when the folder passes the bound. */
  readonly signal: AbortSignal;
  readonly #controller = new AbortController();
  readonly #inputAllowance: number;
  #stored = 0;

  constructor(
    readonly workDir: string,
    settings: Pick<EngineConfig, 'TASK_MAX_OUTPUT_BYTES' | 'ENGINE_MAX_INPUT_BYTES'>,
    parent: AbortSignal,
    /** Deletes what the task stored already (called once it is past the bound). */
    private readonly discard: () => Promise<unknown> = async () => {},
  ) {
    this.maxBytes = settings.TASK_MAX_OUTPUT_BYTES;
    this.maxFileBytes = this.maxBytes + 1;
    this.#inputAllowance = settings.ENGINE_MAX_INPUT_BYTES;
    this.signal = AbortSignal.any([parent, this.#controller.signal]);
  }

  /** The task's failure (the message names the setting; `bytes`: how much was seen, when measured). */
  failure(bytes?: number): EngineFailure {
    const seen = bytes === undefined ? '' : ` (${bytes.toLocaleString('en-US')} bytes so far)`;
    return new EngineFailure(
      'OUTPUT_TOO_LARGE',
      `The task wrote more than ${shown(this.maxBytes)}${seen}, the most one task may write (TASK_MAX_OUTPUT_BYTES); it was stopped and nothing of it is kept. Split the work, or ask for smaller outputs.`,
    );
  }

  /** Runs an engine call, watching the work folder; past the bound (during or after it), fails with OUTPUT_TOO_LARGE. */
  async during<T>(work: () => Promise<T>): Promise<T> {
    let tripped: number | undefined;
    let timer: NodeJS.Timeout | undefined;
    let watching = true;
    // The next measure WATCH_MS after one ends, or twice as long as it took (a folder of thousands of
    // frames is not walked back to back).
    const measure = async () => {
      const started = Date.now();
      const bytes = await workFolderBytes(this.workDir, this.#inputAllowance);
      if (!watching) return;
      if (bytes > this.maxBytes) {
        tripped = bytes;
        this.#controller.abort(this.failure(bytes));
        return;
      }
      timer = setTimeout(() => void measure(), Math.max(WATCH_MS, 2 * (Date.now() - started)));
    };
    timer = setTimeout(() => void measure(), WATCH_MS);
    let result: T;
    try {
      result = await work();
    } catch (err) {
      // A tool cut by the file size limit fails on its own (SIGXFSZ, EFBIG): the folder tells why.
      const bytes = tripped ?? (await workFolderBytes(this.workDir, this.#inputAllowance));
      if (bytes > this.maxBytes) return this.#fail(bytes);
      throw err;
    } finally {
      watching = false;
      clearTimeout(timer);
    }
    const bytes = await workFolderBytes(this.workDir, this.#inputAllowance);
    if (bytes > this.maxBytes) return this.#fail(bytes);
    return result;
  }

  /** Counts files about to be stored (all of the task's calls together); past the bound, fails. */
  async beforeStoring(sizes: readonly number[]): Promise<void> {
    this.#stored += sizes.reduce((sum, n) => sum + n, 0);
    if (this.#stored > this.maxBytes) await this.#fail(this.#stored);
  }

  async #fail(bytes: number): Promise<never> {
    const failure = this.failure(bytes);
    if (!this.#controller.signal.aborted) this.#controller.abort(failure);
    await this.discard();
    throw failure;
  }
}
