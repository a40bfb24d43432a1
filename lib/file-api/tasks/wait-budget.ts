/**
 * The wait endpoints' own concurrency budget (issue 28): a wait holds a function for up to
 * SYNC_MAX_WAIT_SECONDS, so a burst of waits would take every execution the account has and starve the
 * other routes. At most `budget` waits hold at once; a wait that finds none free answers at once with
 * the current state, as one that timed out does.
 *
 * The count lives in time windows at least as long as a wait: a hold is added to the window it starts
 * in (only if that window has room) and to the next one, so every wait that may still be holding during
 * a window is counted in it; its release takes both back. A function that dies mid-wait releases
 * nothing, and its place comes back when the next window is over (the items expire). The count is
 * spread over shards, each with its share of the budget, so that no one key takes every wait's writes:
 * a wait tries a shard at random and, when that one is full, one other.
 */
import { ConditionFailedError, type StateStore } from '../../adapters/state/port.js';
import { anyShard, shardKey, shardKeys } from '../../kernel/shards.js';

/** Each shard takes four writes per wait: 8 shards keep 500 waits/s within 1,000 writes/s per key. */
const MAX_SHARDS = 8;
const BASE_KEY = 'waits';

export interface WaitBudgetOptions {
  budget: number;
  /** At least the longest wait (SYNC_MAX_WAIT_SECONDS). */
  windowSeconds: number;
  shards?: number;
  /** The first shard a wait tries (tests fix it). */
  pick?: (shards: number) => number;
}

/** Gives the place back; safe to call more than once. */
export type Release = () => Promise<void>;

export class WaitBudget {
  readonly #shards: number;

  constructor(
    private readonly state: StateStore,
    private readonly opts: WaitBudgetOptions,
  ) {
    this.#shards = Math.max(1, Math.min(opts.shards ?? MAX_SHARDS, opts.budget));
  }

  /** The count's partition keys, shard 0 first. */
  keys(): string[] {
    return shardKeys(BASE_KEY, this.#shards);
  }

  /** A shard's share of the budget: the shares add up to the budget. */
  #share(shard: number): number {
    return Math.floor(this.opts.budget / this.#shards) + (shard < this.opts.budget % this.#shards ? 1 : 0);
  }

  /** Takes a place for a wait starting at `now`: its release, or undefined when the budget is spent. */
  async take(now = Date.now()): Promise<Release | undefined> {
    if (this.opts.budget < 1) return undefined;
    const window = Math.floor(now / 1000 / this.opts.windowSeconds);
    const first = (this.opts.pick ?? anyShard)(this.#shards);
    const tries = this.#shards > 1 ? [first, (first + 1 + anyShard(this.#shards - 1)) % this.#shards] : [first];
    for (const shard of tries) {
      if (await this.#add(shard, window, 1, this.#share(shard))) {
        await this.#add(shard, window + 1, 1);
        let released = false;
        return async () => {
          if (released) return;
          released = true;
          await Promise.all([this.#add(shard, window, -1), this.#add(shard, window + 1, -1)]);
        };
      }
    }
    return undefined;
  }

  /** Adds `n` to a shard's count of a window; with `below`, only while the count is under it. */
  async #add(shard: number, window: number, n: number, below?: number): Promise<boolean> {
    const expiresAt = (window + 2) * this.opts.windowSeconds;
    try {
      await this.state.update(
        { pk: shardKey(BASE_KEY, shard), sk: String(window) },
        { add: { count: n }, set: { expiresAt } },
        below === undefined ? undefined : { condition: { absentOrBelow: { count: below } } },
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionFailedError) return false;
      throw err;
    }
  }
}
