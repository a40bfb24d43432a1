/**
 * The rate limiter's counter of one key spread over shards when its limit allows more requests a second
 * than one partition key should take (issue 28): each shard counts its share of the limit, so the key
 * still gets its limit and no more, and a limit of a few a second stays one exact counter as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter } from '#lib/access/auth/rate-limit.js';
import { startStateBackend } from '../support/dynalite.js';

let backend: Awaited<ReturnType<typeof startStateBackend>>;
beforeAll(async () => {
  backend = await startStateBackend();
});
afterAll(() => backend.close());

const countersOf = async (keyId: string) => (await backend.store.scan({ filter: { exists: true } })).items.filter((i) => String(i.pk).startsWith(`ratelimit#${keyId}`));

describe('the rate limiter of a busy key', () => {
  it('keeps one exact counter for a limit of a few requests a second', async () => {
    const limiter = new RateLimiter(backend.store, 600, 60);
    const states = [];
    for (let i = 0; i < 5; i++) states.push(await limiter.consume('slow'));
    expect(states.map((s) => s.remaining)).toEqual([599, 598, 597, 596, 595]);
    expect((await countersOf('slow')).map((c) => c.pk)).toEqual(['ratelimit#slow']);
  });

  it('spreads the count over shards above its writes per key, and refuses past the limit', async () => {
    let next = 0;
    // 4 a second with at most one write a second on a key: 4 shards, one request each.
    const limiter = new RateLimiter(backend.store, 4, 1, { writesPerKey: 1, pick: (n) => next++ % n });
    const now = Math.ceil(Date.now() / 1000) * 1000 + 10_000;
    const allowed = [];
    for (let i = 0; i < 5; i++) allowed.push((await limiter.consume('busy', now)).allowed);
    expect(allowed).toEqual([true, true, true, true, false]);
    const counters = await countersOf('busy');
    expect(new Set(counters.map((c) => c.pk)).size).toBe(4);
    expect(counters.map((c) => c.pk)).toContain('ratelimit#busy');
  });

  it('at 500 requests a second and more, needs at least two keys (1,000 writes/s each at most)', () => {
    expect(RateLimiter.shardsFor(600, 60)).toBe(1);
    expect(RateLimiter.shardsFor(30_000, 60)).toBeGreaterThanOrEqual(2);
    expect(RateLimiter.shardsFor(60_000, 1)).toBeGreaterThanOrEqual(60_000 / 1000);
  });
});
