/**
 * Per-key rate limiting with fixed windows: one counter item per key and window, incremented
 * atomically, expiring after the window. `peek` reads the counter without counting, so that every
 * response can report the remaining allowance.
 */
import type { StateStore } from '../../adapters/state/port.js';

export interface RateState {
  limit: number;
  remaining: number;
  /** Epoch seconds at which the window resets. */
  reset: number;
  allowed: boolean;
}

export class RateLimiter {
  constructor(
    private readonly store: StateStore,
    private readonly limit: number,
    private readonly windowSeconds: number,
  ) {}

  #window(now: number) {
    const index = Math.floor(now / 1000 / this.windowSeconds);
    const reset = (index + 1) * this.windowSeconds;
    return { index, reset };
  }

  #state(count: number, reset: number, counted: boolean): RateState {
    return {
      limit: this.limit,
      remaining: Math.max(0, this.limit - count),
      reset,
      // A request that is not counted is never refused.
      allowed: !counted || count <= this.limit,
    };
  }

  async consume(keyId: string, now = Date.now()): Promise<RateState> {
    const { index, reset } = this.#window(now);
    const item = await this.store.update<{ pk: string; sk: string; count: number }>(
      { pk: `ratelimit#${keyId}`, sk: String(index) },
      { add: { count: 1 }, set: { expiresAt: reset + this.windowSeconds } },
    );
    return this.#state(item.count, reset, true);
  }

  async peek(keyId: string, now = Date.now()): Promise<RateState> {
    const { index, reset } = this.#window(now);
    const item = await this.store.get<{ pk: string; sk: string; count?: number }>({ pk: `ratelimit#${keyId}`, sk: String(index) });
    return this.#state(item?.count ?? 0, reset, false);
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
