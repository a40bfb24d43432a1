/**
 * Per-key rate limiting with fixed windows: a counter item per key and window, incremented
 * atomically, expiring after the window. `peek` reads the counter without counting, so that every
 * response can report the remaining allowance.
 *
 * A limit of more requests a second than one partition key should take (`writesPerKey`, 250: a
 * quarter of DynamoDB's 1,000 writes/s per key, as refused requests are counted too) is spread over
 * shards (issue 28): each request counts on a shard picked at random, which allows its share of the
 * limit. The key gets its limit within the spread of the picks (a request may be refused when its shard
 * is full and another is not, near the limit), and `remaining` is its shard's, scaled. The default
 * limit (600 a minute) is one exact counter, under the key of before.
 */
import type { StateStore } from '../../adapters/state/port.js';
import { anyShard, shardKey } from '../../kernel/shards.js';

export interface RateLimiterOptions {
  /** Counted requests a second one counter key takes at most; default 250. */
  writesPerKey?: number;
  /** The shard a request counts on (tests fix it). */
  pick?: (shards: number) => number;
}

export interface RateState {
  limit: number;
  remaining: number;
  /** Epoch seconds at which the window resets. */
  reset: number;
  allowed: boolean;
}

export class RateLimiter {
  readonly #shards: number;

  constructor(
    private readonly store: StateStore,
    private readonly limit: number,
    private readonly windowSeconds: number,
    private readonly opts: RateLimiterOptions = {},
  ) {
    this.#shards = RateLimiter.shardsFor(limit, windowSeconds, opts.writesPerKey);
  }

  /** How many counter keys a limit needs so that none takes more than `writesPerKey` a second. */
  static shardsFor(limit: number, windowSeconds: number, writesPerKey = 250): number {
    return Math.max(1, Math.min(limit, Math.ceil(limit / windowSeconds / writesPerKey)));
  }

  /** A shard of the key and its share of the limit (the shares add up to the limit). */
  #shard(keyId: string) {
    const shard = (this.opts.pick ?? anyShard)(this.#shards);
    const share = Math.floor(this.limit / this.#shards) + (shard < this.limit % this.#shards ? 1 : 0);
    return { pk: shardKey(`ratelimit#${keyId}`, shard), share };
  }

  #window(now: number) {
    const index = Math.floor(now / 1000 / this.windowSeconds);
    const reset = (index + 1) * this.windowSeconds;
    return { index, reset };
  }

  #state(count: number, share: number, reset: number, counted: boolean): RateState {
    return {
      limit: this.limit,
      remaining: Math.min(this.limit, Math.max(0, share - count) * this.#shards),
      reset,
      // A request that is not counted is never refused.
      allowed: !counted || count <= share,
    };
  }

  async consume(keyId: string, now = Date.now()): Promise<RateState> {
    const { index, reset } = this.#window(now);
    const { pk, share } = this.#shard(keyId);
    const item = await this.store.update<{ pk: string; sk: string; count: number }>(
      { pk, sk: String(index) },
      { add: { count: 1 }, set: { expiresAt: reset + this.windowSeconds } },
    );
    return this.#state(item.count, share, reset, true);
  }

  async peek(keyId: string, now = Date.now()): Promise<RateState> {
    const { index, reset } = this.#window(now);
    const { pk, share } = this.#shard(keyId);
    const item = await this.store.get<{ pk: string; sk: string; count?: number }>({ pk, sk: String(index) });
    return this.#state(item?.count ?? 0, share, reset, false);
  }
}

export function rateHeaders(state: RateState, now = Date.now()): Record<string, string> {
  const headers: Record<string, string> = {
    'x-ratelimit-limit': String(state.limit),
    'x-ratelimit-remaining': String(state.remaining),
  };
  if (!state.allowed) {
    headers['retry-after'] = String(Math.max(1, state.reset - Math.floor(now / 1000)));
    headers['x-ratelimit-reset'] = String(state.reset);
  }
  return headers;
}
