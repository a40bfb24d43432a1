import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { waitFor } from '#lib/wiring/job-response.js';

/** The synchronous wait endpoints poll the store: how soon they see an end, and how many reads a long wait costs. */
describe('waitFor (the wait endpoints polling a job or task)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /** A record that ends `endsAfterMs` after the wait starts; returns when the wait saw the end and how many reads it made. */
  async function waitForEnd(endsAfterMs: number, maxMs = 25_000, current?: { value: string }) {
    const start = Date.now();
    let reads = 0;
    const waiting = waitFor(
      async () => {
        reads++;
        return Date.now() - start >= endsAfterMs ? 'ended' : 'running';
      },
      (v) => v === 'ended',
      maxMs,
      current,
    );
    let seenAt = -1;
    void waiting.then(() => (seenAt = Date.now() - start));
    await vi.advanceTimersByTimeAsync(maxMs + 1000);
    return { value: await waiting, seenAt, reads };
  }

  it('answers at once when the record has ended already, with one read', async () => {
    expect(await waitForEnd(0)).toEqual({ value: 'ended', seenAt: 0, reads: 1 });
  });

  it('sees a short job end within a fraction of its run, not a whole fixed interval later', async () => {
    const { value, seenAt } = await waitForEnd(300);
    expect(value).toBe('ended');
    expect(seenAt).toBeGreaterThanOrEqual(300);
    // A fixed 250 ms poll saw it at 500 ms.
    expect(seenAt).toBeLessThan(450);
  });

  it('costs about one read a second on a long wait, and answers with the last value at the deadline', async () => {
    const { value, seenAt, reads } = await waitForEnd(Infinity);
    expect(value).toBe('running');
    expect(seenAt).toBe(25_000);
    // A fixed 250 ms poll read 101 times.
    expect(reads).toBeLessThan(45);
    expect(reads).toBeGreaterThan(20);
  });

  it('still sees an end late in a long wait within a second', async () => {
    const { value, seenAt } = await waitForEnd(20_000);
    expect(value).toBe('ended');
    expect(seenAt).toBeLessThanOrEqual(21_000);
  });

  it('reads nothing more when given the value the caller has just read and it has ended', async () => {
    expect(await waitForEnd(0, 25_000, { value: 'ended' })).toEqual({ value: 'ended', seenAt: 0, reads: 0 });
  });

  it("given the caller's value of a running record, reads first after a pause", async () => {
    const { value, seenAt, reads } = await waitForEnd(300, 25_000, { value: 'running' });
    expect(value).toBe('ended');
    expect(seenAt).toBeLessThan(450);
    // At 50, 112, 190, 288 and 410 ms: the read at 0 ms is the caller's.
    expect(reads).toBe(5);
  });
});
