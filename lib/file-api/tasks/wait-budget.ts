/**
 * The wait endpoints' own concurrency budget (issue 28): a wait holds a function for up to
 * SYNC_MAX_WAIT_SECONDS, so a burst of waits would take every execution the account has and starve the
 * other routes. At most `budget` waits hold at once; a wait that finds none free answers at once with
 * the current state, as one that timed out does.
 *
 * The count lives in time windows at least as long as a wait: a hold is added to the window it starts
 * in, only if that window has room, and given back when the wait ends. A wait still holding when the
 * next window starts adds itself to that one too, at its next poll (`carry`), so a window counts every
 * wait that holds during it, but for the up to one second a crossing wait takes to get there (the
 * functions' reserved concurrency, a little above the budget, bounds that). A function that dies
 * mid-wait releases nothing, and its place comes back when its window is over (the items expire). A
 * wait costs two writes, four when it crosses into a next window. The count is spread over shards,
 * each with its share of the budget, so that no one key takes every wait's writes: a wait tries the
 * shards from one picked at random until one has room. A function instance that found every shard full
 * answers its waits for the next second without asking (FULL_MEMORY_MS): in a burst, the clients whose
 * waits were answered at once wait again at once, and without it each of their rounds would be failed
 * writes on the same few keys.
 */
import { ConditionFailedError, type StateStore } from '../../adapters/state/port.js';
import { anyShard, shardKey, shardKeys } from '../../kernel/shards.js';

/** Each shard takes two writes per wait: 8 shards keep 4,000 waits/s within 1,000 writes/s per key. */
const MAX_SHARDS = 8;
const BASE_KEY = 'waits';
const FULL_MEMORY_MS = 1000;

export interface WaitBudgetOptions {
  budget: number;
  /** At least the longest wait (SYNC_MAX_WAIT_SECONDS). */
  windowSeconds: number;
  shards?: number;
  /** The first shard a wait tries (tests fix it). */
  pick?: (shards: number) => number;
}

/** A place of the budget that a wait holds. */
export interface Hold {
  /** Counts the hold in the window of `now` too when that is a later one than it started in (call before each poll). */
  carry(now?: number): Promise<void>;
  /** Gives the place back; safe to call more than once. */
  release(): Promise<void>;
}

export class WaitBudget {
  readonly #shards: number;
  /** Until when this instance takes the budget for spent (epoch ms). */
  #fullUntil = 0;

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

  /** Takes a place for a wait starting at `now`: its hold, or undefined when the budget is spent. */
  async take(now = Date.now()): Promise<Hold | undefined> {
    if (this.opts.budget < 1 || now < this.#fullUntil) return undefined;
    const started = this.#window(now);
    const first = (this.opts.pick ?? anyShard)(this.#shards);
    for (let i = 0; i < this.#shards; i++) {
      const shard = (first + i) % this.#shards;
      if (await this.#add(shard, started, 1, this.#share(shard))) return this.#hold(shard, started);
    }
    this.#fullUntil = now + FULL_MEMORY_MS;
    return undefined;
  }

  #window(now: number): number {
    return Math.floor(now / 1000 / this.opts.windowSeconds);
  }

  #hold(shard: number, started: number): Hold {
    const counted = [started];
    let released = false;
    return {
      carry: async (now = Date.now()) => {
        const window = this.#window(now);
        if (released || counted.includes(window)) return;
        counted.push(window);
        await this.#add(shard, window, 1);
      },
      release: async () => {
        if (released) return;
        released = true;
        await Promise.all(counted.map((window) => this.#add(shard, window, -1)));
      },
    };
  }

  /** Adds `n` to a shard's count of a window; with `below`, only while the count is under it. */
  async #add(shard: number, window: number, n: number, below?: number): Promise<boolean> {
    const expiresAt = (window + 1) * this.opts.windowSeconds;
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
