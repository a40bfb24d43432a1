/**
 * The progress throttle (lib/file-api/records/progress.ts) under fake timers: what reaches the state store, and
 * when, for reports that come faster than writes may go. And the small readers of tool output that
 * feed it (FFmpeg's `-progress` lines, Ghostscript's page messages).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { progressWriter, within } from '#lib/file-api/records/progress.js';
import { inputDuration, progressLine } from '#lib/engines/media/ffmpeg.js';
import { pageCounter } from '#lib/engines/pdf/ghostscript.js';

/** A store write that the test settles by hand. */
function pendingWrites() {
  const writes: Array<{ percent: number; settle: (owned: boolean) => void; fail: (err: Error) => void }> = [];
  const write = (percent: number) =>
    new Promise<boolean>((resolve, reject) => {
      writes.push({ percent, settle: resolve, fail: reject });
    });
  return { writes, write };
}

const log = { warn: vi.fn() };

beforeEach(() => {
  vi.useFakeTimers();
  log.warn.mockClear();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the progress throttle', () => {
  it('writes nothing for a run that ends within its first second', async () => {
    const { writes, write } = pendingWrites();
    const progress = progressWriter({ write, log });
    for (let f = 0; f <= 1; f += 0.01) progress.report(f);
    await vi.advanceTimersByTimeAsync(999);
    await progress.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(writes).toHaveLength(0);
  });

  it('writes at most once a second, the latest percent winning over those reported in between', async () => {
    const { writes, write } = pendingWrites();
    const progress = progressWriter({ write, log });
    progress.report(0.1);
    progress.report(0.2);
    await vi.advanceTimersByTimeAsync(1000);
    expect(writes.map((w) => w.percent)).toEqual([20]);
    writes[0]!.settle(true);
    progress.report(0.3);
    progress.report(0.45);
    await vi.advanceTimersByTimeAsync(999);
    expect(writes).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(writes.map((w) => w.percent)).toEqual([20, 45]);
  });

  it('keeps one write in flight: a slow store gets the newest percent once the earlier write settles', async () => {
    const { writes, write } = pendingWrites();
    const progress = progressWriter({ write, log });
    progress.report(0.1);
    await vi.advanceTimersByTimeAsync(1000);
    progress.report(0.5);
    progress.report(0.7);
    await vi.advanceTimersByTimeAsync(5000);
    // Five seconds with the first write still unanswered: nothing else was sent.
    expect(writes.map((w) => w.percent)).toEqual([10]);
    writes[0]!.settle(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(writes.map((w) => w.percent)).toEqual([10, 70]);
  });

  it('never writes a lower or equal percent, keeps below 100 while running, and ignores what is not a number', async () => {
    const { writes, write } = pendingWrites();
    const progress = progressWriter({ write, log });
    progress.report(0.6);
    await vi.advanceTimersByTimeAsync(1000);
    writes[0]!.settle(true);
    progress.report(0.4);
    progress.report(0.6);
    progress.report(Number.NaN);
    await vi.advanceTimersByTimeAsync(3000);
    expect(writes.map((w) => w.percent)).toEqual([60]);
    progress.report(3);
    await vi.advanceTimersByTimeAsync(1000);
    expect(writes.map((w) => w.percent)).toEqual([60, 99]);
  });

  it('stops for good when the store says the run no longer owns the task', async () => {
    const { writes, write } = pendingWrites();
    const progress = progressWriter({ write, log });
    progress.report(0.2);
    await vi.advanceTimersByTimeAsync(1000);
    writes[0]!.settle(false);
    progress.report(0.9);
    await vi.advanceTimersByTimeAsync(5000);
    expect(writes).toHaveLength(1);
  });

  it('logs a failed write and goes on with the next', async () => {
    const { writes, write } = pendingWrites();
    const progress = progressWriter({ write, log });
    progress.report(0.2);
    await vi.advanceTimersByTimeAsync(1000);
    progress.report(0.3);
    writes[0]!.fail(new Error('throttled'));
    await vi.advanceTimersByTimeAsync(1000);
    expect(log.warn).toHaveBeenCalledWith('progress write failed', expect.objectContaining({ percent: 20 }));
    expect(writes.map((w) => w.percent)).toEqual([20, 30]);
  });

  it('after stop, waits for the write in flight and sends nothing more', async () => {
    const { writes, write } = pendingWrites();
    const progress = progressWriter({ write, log });
    progress.report(0.2);
    await vi.advanceTimersByTimeAsync(1000);
    progress.report(0.8);
    let stopped = false;
    const stopping = progress.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    writes[0]!.settle(true);
    await stopping;
    progress.report(0.95);
    await vi.advanceTimersByTimeAsync(5000);
    expect(writes.map((w) => w.percent)).toEqual([20]);
  });

  it('maps a part of the run onto its share of the whole', () => {
    const seen: number[] = [];
    const part = within((f) => seen.push(f), 0.5, 0.75);
    part(0);
    part(0.5);
    part(2);
    expect(seen).toEqual([0.5, 0.625, 0.75]);
  });
});

describe('reading engine progress', () => {
  it("FFmpeg: the time written over the output's duration, in µs whichever key the build uses", () => {
    const seen: number[] = [];
    for (const line of ['frame=12', 'out_time_us=2500000', 'out_time_ms=5000000', 'out_time=00:00:05.000000', 'out_time_us=N/A', 'progress=continue']) {
      progressLine(line, 10, (f) => seen.push(f));
    }
    expect(seen).toEqual([0.25, 0.5]);
  });

  it("FFmpeg: the input's duration from its own stderr, none when it does not know it", () => {
    expect(inputDuration('  Duration: 00:01:02.50, start: 0.000000, bitrate: 1205 kb/s')).toBe(62.5);
    expect(inputDuration('  Duration: 01:00:00.00, start: 0.000000, bitrate: N/A')).toBe(3600);
    expect(inputDuration('  Duration: N/A, start: 0.000000, bitrate: N/A')).toBeUndefined();
    expect(inputDuration('    title           : Duration: 00:00:09.00, a title that says so')).toBeUndefined();
  });

  it('Ghostscript: pages started over the pages it said it would process', () => {
    const seen: number[] = [];
    const range = pageCounter((f) => seen.push(f));
    for (const line of ['GPL Ghostscript 10.0.0', 'Processing pages 1 through 4.', 'Page 1', 'Loading font Helvetica', 'Page 2', 'Page 3', 'Page 4']) range(line);
    expect(seen).toEqual([0, 0.25, 0.5, 0.75]);
    const listed: number[] = [];
    const list = pageCounter((f) => listed.push(f));
    for (const line of ['Processing pages 2,5.', 'Page 2', 'Page 5']) list(line);
    expect(listed).toEqual([0, 0.5]);
  });
});
