/**
 * A task's `percent` while it runs. Operations report how far they are as a fraction (as often as they
 * like: every chunk of a transfer, every line of an engine's progress output); this throttle turns that
 * into at most one state write per interval:
 *
 * - the percent is an integer, kept below 100 while running (100 is the finished task's, set by
 *   `store.finish`), and never goes down within a run: a lower or equal report is ignored;
 * - the first write comes one interval after the run starts, so a task that ends within it costs no
 *   write at all;
 * - one write in flight at a time; whatever was reported meanwhile is written next, the latest value
 *   winning over those in between; reporting never waits for a write (the engine or the transfer goes
 *   on), and a failed write is logged, not thrown;
 * - a write the store refuses (the run no longer owns the task) ends the reporting;
 * - `stop()` ends it for good and waits for the write in flight, so that nothing of this run lands (or
 *   is announced) after the run's end is written.
 */
import { Transform, type Readable } from 'node:stream';
import type { Logger } from '../../kernel/log.js';

/** How far a run is, from 0 to 1. Values outside are clamped; calls cost a comparison or two. */
export type Progress = (fraction: number) => void;

/** The least time between two progress writes of one task. */
export const PROGRESS_INTERVAL_MS = 1000;

export interface ProgressWriterOptions {
  /** Writes the percent; false when the run no longer owns the task (nothing more is written). */
  write: (percent: number) => Promise<boolean>;
  log: Pick<Logger, 'warn'>;
  intervalMs?: number;
}

export interface ProgressWriter {
  report: Progress;
  /** Ends reporting; resolves once the write in flight, if any, has settled. */
  stop(): Promise<void>;
}

export function progressWriter(opts: ProgressWriterOptions): ProgressWriter {
  const interval = opts.intervalMs ?? PROGRESS_INTERVAL_MS;
  let latest = 0;
  let written = 0;
  let lastWriteAt = Date.now();
  let inFlight: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const flush = (): void => {
    if (stopped || timer || inFlight || latest <= written) return;
    const wait = lastWriteAt + interval - Date.now();
    if (wait > 0) {
      timer = setTimeout(() => {
        timer = undefined;
        flush();
      }, wait);
      // A pending progress write never keeps the process alive.
      timer.unref();
      return;
    }
    const percent = latest;
    written = percent;
    lastWriteAt = Date.now();
    inFlight = opts
      .write(percent)
      .then(
        (owned) => {
          if (!owned) stopped = true;
        },
        (err: unknown) => opts.log.warn('progress write failed', { error: err, percent }),
      )
      .finally(() => {
        inFlight = undefined;
        flush();
      });
  };

  return {
    report(fraction) {
      if (stopped) return;
      const percent = Math.min(99, Math.max(0, Math.floor(fraction * 100)));
      // NaN fails this comparison too.
      if (!(percent > latest)) return;
      latest = percent;
      flush();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await inFlight;
    },
  };
}

/** `progress` for the part of the run from `from` to `to` (fractions of the whole). */
export const within =
  (progress: Progress, from: number, to: number): Progress =>
  (fraction) =>
    progress(from + (to - from) * Math.min(1, Math.max(0, fraction)));

/**
 * `source` as it is read, reporting the share of `total` bytes that passed (nothing when `total` is
 * unknown or zero). An error of `source` ends the returned stream with that error.
 */
export function countBytes(source: Readable, total: number | undefined, progress: Progress): Readable {
  if (!total || !(total > 0)) return source;
  let passed = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      passed += chunk.length;
      progress(passed / total);
      done(null, chunk);
    },
  });
  source.once('error', (err) => counter.destroy(err));
  counter.once('close', () => {
    // The reader gave up (an upload refused, a task cancelled): the source goes too.
    if (!source.destroyed && !counter.readableEnded) source.destroy();
  });
  return source.pipe(counter);
}
