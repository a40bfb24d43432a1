/**
 * One warm LibreOffice process of the pool (pool.ts): the UNO driver (uno-driver.ts) and the soffice it
 * starts, run by `runTool` as every tool, confined to a folder of the worker's own (its profile, its
 * driver, one folder per conversion emptied after it) instead of a task's. One conversion at a time;
 * a conversion past its time limit, or one that outlives its task, ends the whole worker (its process
 * group, or its sandbox) and the pool starts another. Nothing outlives this process: workers still
 * running when it exits are killed then (and bubblewrap's sandbox dies with its parent anyway).
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Confinement } from '../core/confine.js';
import { EngineFailure } from '../core/errors.js';
import { runTool } from '../core/tool.js';
import { ownFolder } from '../core/work-files.js';
import { freshProfile } from './profile.js';
import { UNO_DRIVER } from './uno-driver.js';

/** How workers start: the same for every worker of a pool. */
export interface WorkerLaunch {
  /** The Python that has the uno module (Debian's python3-uno is for /usr/bin/python3). */
  python: string;
  soffice: string;
  /** LibreOffice's installation, when not in a system folder. */
  readOnly: readonly string[];
  /** Where the workers' folders are made. */
  baseDir: string;
  confinement: Confinement;
  /** RLIMIT_FSIZE of the worker (the task output bound: the same for every task). */
  maxFileBytes?: number;
  /** How long soffice may take to start. */
  startMs: number;
}

/** One conversion as the driver reads it (paths inside the worker's folder). */
export interface DriverJob {
  input: string;
  output: string;
  extension: string;
  filter?: string;
  options?: Record<string, { type: string; value: unknown }>;
  /** The export filter's options as a string (CSV's tokens). */
  filterOptions?: string;
  /** `name[:options]`, as `--infilter` takes it. */
  importFilter?: string;
}

export interface Answer {
  ready?: boolean;
  ok?: boolean;
  error?: string;
  /** No answer came within the time limit (the worker has been ended). */
  timedOut?: boolean;
}

const live = new Set<OfficeWorker>();
let exitHook = false;

export class OfficeWorker {
  /** Conversions this worker has done. */
  conversions = 0;
  /** The process group's leader (the confinement's process), for the tests that stop it. */
  pid: number | undefined;
  private stdin: ChildProcess['stdin'] = null;
  private waiting: ((answer: Answer) => void) | undefined;
  private readonly ended = new AbortController();
  private dead: string | undefined;
  /** Settles when the worker's processes are gone (their output pipes closed). */
  private closed: Promise<void> = Promise.resolve();

  private constructor(readonly dir: string) {}

  /** A started worker, its soffice ready to convert. */
  static async start(launch: WorkerLaunch): Promise<OfficeWorker> {
    const worker = new OfficeWorker(await mkdtemp(path.join(launch.baseDir, 'office-worker-')));
    live.add(worker);
    if (!exitHook) {
      exitHook = true;
      process.once('exit', () => [...live].forEach((w) => void w.stop(true)));
    }
    try {
      await worker.launch(launch);
      return worker;
    } catch (err) {
      void worker.stop();
      throw err;
    }
  }

  private async launch(launch: WorkerLaunch): Promise<void> {
    const profile = await freshProfile(this.dir);
    const driver = path.join(this.dir, 'driver.py');
    await writeFile(driver, UNO_DRIVER);
    const ready = this.next(launch.startMs, 'start');
    const args = [driver, launch.soffice, pathToFileURL(profile).href, `lo${randomUUID().replaceAll('-', '')}`];
    this.closed = runTool(launch.python, args, {
      cwd: this.dir,
      workDir: this.dir,
      confinement: launch.confinement,
      signal: this.ended.signal,
      maxFileBytes: launch.maxFileBytes,
      readOnly: launch.readOnly,
      name: 'soffice',
      onSpawn: (child) => {
        this.stdin = child.stdin;
        this.pid = child.pid;
        child.stdin?.on('error', () => undefined);
      },
      onStdoutLine: (line) => this.answer(line),
    }).then(
      () => this.gone('ended'),
      (err: unknown) => this.gone(err instanceof Error ? err.message : String(err)),
    );
    const said = await ready;
    if (!said.ready) throw new EngineFailure('ENGINE_UNAVAILABLE', `LibreOffice did not start (${said.error ?? 'no answer'}).`);
  }

  private answer(line: string): void {
    let said: Answer;
    try {
      said = JSON.parse(line) as Answer;
    } catch {
      return; // not the driver's (a library's chatter)
    }
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.(said);
  }

  private gone(why: string): void {
    this.dead ??= why;
    live.delete(this);
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ error: `the process ended (${why})` });
  }

  /** The driver's next answer, or an error one when it does not come within `ms`. */
  private next(ms: number, what: string): Promise<Answer> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        void this.stop();
        resolve({ error: `no answer to ${what} within ${Math.round(ms / 1000)} s`, ready: false, ok: false, timedOut: true });
      }, ms);
      this.waiting = (answer) => {
        clearTimeout(timer);
        resolve(answer);
      };
    });
  }

  get alive(): boolean {
    return !this.dead;
  }

  /**
   * Runs `work` in a new empty folder inside the worker's, removed afterwards whatever happens. Its name
   * is random: the worker, which outlives jobs and may be compromised, cannot prepare the next one.
   */
  async inJobDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
    await ownFolder(path.join(this.dir, 'jobs'));
    const dir = await mkdtemp(path.join(this.dir, 'jobs', 'job-'));
    try {
      return await work(dir);
    } finally {
      await rm(dir, { recursive: true, force: true, maxRetries: 3 });
    }
  }

  /** Runs one job; resolves with the driver's answer. A job past `ms`, or aborted by `signal`, ends the worker. */
  async convert(job: DriverJob, ms: number, signal: AbortSignal): Promise<Answer> {
    if (this.dead) return { ok: false, error: `the process ended (${this.dead})` };
    const onAbort = () => void this.stop();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const answer = this.next(ms, 'the conversion');
      this.stdin?.write(`${JSON.stringify(job)}\n`);
      const said = await answer;
      signal.throwIfAborted();
      this.conversions++;
      return said;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Kills the worker (its whole process group or sandbox) and, once its processes are gone (a dying
   * soffice still writes), removes its folder. `sync`: at this process's exit, which waits for nothing.
   */
  stop(sync = false): Promise<void> {
    this.gone('stopped');
    this.ended.abort(new Error('office worker stopped'));
    if (sync) {
      rmSync(this.dir, { recursive: true, force: true });
      return Promise.resolve();
    }
    return this.closed.then(() => rm(this.dir, { recursive: true, force: true, maxRetries: 3 }));
  }
}
