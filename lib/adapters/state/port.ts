/**
 * The state port: a small key-value store with conditional writes, modelled on one DynamoDB table
 * (partition key `pk`, sort key `sk`, secondary indexes `gsi1pk`/`gsi1sk` and `gsi2pk`/`gsi2sk`).
 *
 * Every domain record (API keys, jobs, tasks, messages, collectors, operations…) is an item here.
 * Items that carry `expiresAt` (epoch seconds) are treated as gone once that time has passed, whether
 * or not the backend has deleted them yet: DynamoDB's TTL deletes lazily and the local backend
 * (dynalite) has no TTL at all.
 */

export interface ItemKey {
  pk: string;
  sk: string;
}

export type Item = ItemKey & Record<string, unknown>;

/** A condition on the item as it is stored now. All parts must hold. */
export interface Condition {
  /** true: the item must exist; false: it must not. */
  exists?: boolean;
  /** Each attribute must equal the given value. */
  equals?: Record<string, unknown>;
  /** Each attribute must be one of the given values. */
  oneOf?: Record<string, readonly unknown[]>;
  /** Each attribute must exist and be below the given number. */
  below?: Record<string, number>;
  /** Each attribute must be absent or below the given number. */
  absentOrBelow?: Record<string, number>;
  /** Each attribute must exist and be at least the given number. */
  atLeast?: Record<string, number>;
  /** Each attribute must be a string set holding the given member. */
  holds?: Record<string, string>;
  /** Each attribute must be absent or a string set without the given member. */
  lacks?: Record<string, string>;
  /** At least one of these conditions must hold (in addition to the parts above). */
  anyOf?: Condition[];
}

export interface Update {
  /** Attributes to set (an `undefined` value is ignored). */
  set?: Record<string, unknown>;
  /** Attributes to remove. */
  remove?: string[];
  /** Numbers to add to, or string sets to add members to, atomically (created when absent). */
  add?: Record<string, number | Set<string>>;
  /** Members to take out of string sets (a set left empty disappears). */
  delete?: Record<string, Set<string>>;
}

export interface QueryOptions {
  /** Query a secondary index: `pk` is then a `gsi1pk` (`gsi2pk`) value and the range is on `gsi1sk` (`gsi2sk`). */
  index?: 'gsi1' | 'gsi2';
  /** Only sort keys that start with this prefix. */
  beginsWith?: string;
  /** Only sort keys below this one. */
  below?: string;
  /** Newest (largest sort key) first. */
  descending?: boolean;
  limit?: number;
  /** An opaque cursor from a previous page. */
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  /** Set when more items may follow. */
  cursor?: string;
}

/** A conditional write whose condition did not hold. */
export class ConditionFailedError extends Error {
  override readonly name = 'ConditionFailedError';
  constructor(readonly key: ItemKey) {
    super(`condition failed for ${key.pk} / ${key.sk}`);
  }
}

export interface StateStore {
  get<T extends Item = Item>(key: ItemKey, opts?: { consistent?: boolean }): Promise<T | undefined>;
  /** Reads many items at once; missing and expired ones are left out. */
  getMany<T extends Item = Item>(keys: ItemKey[]): Promise<T[]>;
  /** Writes the whole item. Throws ConditionFailedError when `condition` does not hold. */
  put(item: Item, opts?: { condition?: Condition }): Promise<void>;
  /** Changes some attributes and returns the item as it is afterwards. */
  update<T extends Item = Item>(key: ItemKey, update: Update, opts?: { condition?: Condition }): Promise<T>;
  /** Deletes the item; returns it as it was, or undefined when it did not exist. */
  delete<T extends Item = Item>(key: ItemKey, opts?: { condition?: Condition }): Promise<T | undefined>;
  query<T extends Item = Item>(pk: string, opts?: QueryOptions): Promise<Page<T>>;
  /**
   * Every item matching `filter`, page by page, expired ones included: for the local platform's
   * stand-in for TTL (local/expiry.ts), never in the cloud.
   */
  scan<T extends Item = Item>(opts: { filter: Condition; cursor?: string; limit?: number }): Promise<Page<T>>;
  /**
   * Writes many items unconditionally, in batches. Not atomic (the local backend has no
   * transactions): write dependent records first and the record that makes them visible last.
   */
  putMany(items: Item[]): Promise<void>;
}

/** Every item of a query, all pages read. For short lists (keys, accounts, clients, a user's grants). */
export async function queryAll<T extends Item>(state: StateStore, pk: string, opts: Omit<QueryOptions, 'cursor'> = {}): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await state.query<T>(pk, { ...opts, cursor });
    out.push(...page.items);
    cursor = page.cursor;
  } while (cursor);
  return out;
}

/** Epoch seconds, the unit of `expiresAt`. */
export const epochSeconds = (date: Date | number = Date.now()): number =>
  Math.floor((typeof date === 'number' ? date : date.getTime()) / 1000);

export const isExpired = (item: { expiresAt?: unknown }, now = Date.now()): boolean =>
  typeof item.expiresAt === 'number' && item.expiresAt <= epochSeconds(now);

/**
 * The item at `key`, made by `make` when there is none yet: the first writer wins (a conditional put)
 * and every concurrent caller gets the winner's item. For values made once and shared, such as secrets.
 */
export async function getOrCreate<T extends Item>(state: StateStore, key: ItemKey, make: () => T): Promise<T> {
  const existing = await state.get<T>(key, { consistent: true });
  if (existing) return existing;
  const made = { ...make(), ...key };
  try {
    await state.put(made, { condition: { exists: false } });
    return made;
  } catch (err) {
    if (!(err instanceof ConditionFailedError)) throw err;
    const winner = await state.get<T>(key, { consistent: true });
    if (!winner) throw err;
    return winner;
  }
}
