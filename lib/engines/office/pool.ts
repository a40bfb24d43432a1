/**
 * Warm LibreOffice workers (worker.ts) for the conversions of this process: at most `size` of them,
 * one conversion each at a time, started when needed and kept; a worker is ended and replaced after
 * `maxConversions` (LibreOffice grows with what it has opened), on a conversion past its time limit, and
 * when its process ended (a crash). Conversions beyond the workers wait in a queue of `queueLength`,
 * each at most `queueWaitMs`; past either the conversion is refused at once with ENGINE_BUSY, which
 * the task machinery retries later (retryable), rather than waiting into the task's own timeout.
 */
import { EngineFailure } from '../core/errors.js';
import { OfficeWorker, type WorkerLaunch } from './worker.js';

export interface PoolSettings {
  size: number;
  maxConversions: number;
  /** The longest one conversion may take before its worker is ended. */
  conversionMs: number;
  queueLength: number;
  queueWaitMs: number;
}

interface Waiter {
  give(worker: OfficeWorker): void;
  fail(err: unknown): void;
}

export class OfficePool {
  /** Workers started (first starts and replacements), for the tests and the bench. */
  starts = 0;
  private idle: OfficeWorker[] = [];
  private readonly busy = new Set<OfficeWorker>();
  private starting = 0;
  private readonly queue: Waiter[] = [];

  constructor(
    readonly settings: PoolSettings,
    private readonly launch: WorkerLaunch,
  ) {}

  /** Runs `work` on a worker of its own, waiting for one when all are busy. */
  async run<T>(signal: AbortSignal, work: (worker: OfficeWorker) => Promise<T>): Promise<T> {
    const worker = await this.acquire(signal);
    try {
      return await work(worker);
    } finally {
      this.release(worker);
    }
  }

  /** The workers running now (idle or converting). */
  get workers(): OfficeWorker[] {
    return [...this.idle, ...this.busy];
  }

  private async acquire(signal: AbortSignal): Promise<OfficeWorker> {
    signal.throwIfAborted();
    this.idle = this.idle.filter((w) => w.alive);
    const idle = this.idle.pop();
    if (idle) {
      this.busy.add(idle);
      return idle;
    }
    if (this.idle.length + this.busy.size + this.starting < this.settings.size) {
      const worker = await this.start();
      this.busy.add(worker);
      return worker;
    }
    if (this.queue.length >= this.settings.queueLength) throw this.busyFailure();
    return this.wait(signal);
  }

  private wait(signal: AbortSignal): Promise<OfficeWorker> {
    return new Promise((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        const at = this.queue.indexOf(waiter);
        if (at >= 0) this.queue.splice(at, 1);
      };
      const waiter: Waiter = {
        give: (worker) => {
          leave();
          this.busy.add(worker);
          resolve(worker);
        },
        fail: (err) => {
          leave();
          reject(err);
        },
      };
      const onAbort = () => waiter.fail(signal.reason);
      const timer = setTimeout(() => waiter.fail(this.busyFailure()), this.settings.queueWaitMs);
      signal.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  private async start(): Promise<OfficeWorker> {
    this.starting++;
    this.starts++;
    try {
      return await OfficeWorker.start(this.launch);
    } finally {
      this.starting--;
    }
  }

  private release(worker: OfficeWorker): void {
    this.busy.delete(worker);
    if (worker.alive && worker.conversions < this.settings.maxConversions) {
      const waiter = this.queue[0];
      if (waiter) waiter.give(worker);
      else this.idle.push(worker);
      return;
    }
    void worker.stop();
    if (this.queue.length) this.replace();
  }

  /** A new worker for the first waiter (or the idle ones, should it have left meanwhile). */
  private replace(): void {
    this.start().then(
      (worker) => {
        const waiter = this.queue[0];
        if (waiter) waiter.give(worker);
        else this.idle.push(worker);
      },
      (err: unknown) => this.queue[0]?.fail(err),
    );
  }

  private busyFailure(): EngineFailure {
    return new EngineFailure(
      'ENGINE_BUSY',
      `LibreOffice is busy: ${this.settings.size} conversion(s) running and ${this.queue.length} waiting; try again in a moment.`,
      { retryable: true },
    );
  }

  /** Ends every worker (settles once their processes and folders are gone); the waiting conversions fail. */
  async close(): Promise<void> {
    for (const waiter of [...this.queue]) waiter.fail(new EngineFailure('ENGINE_UNAVAILABLE', 'LibreOffice is shutting down.', { retryable: true }));
    const stopping = this.workers.map((worker) => worker.stop());
    this.idle = [];
    this.busy.clear();
    await Promise.all(stopping);
  }
}
