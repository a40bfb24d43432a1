/**
 * Users. An installation serves one account by default (id 1); keys belong to a user. The record is
 * created on first use with the configured name, e-mail and credit balance.
 */
import { ConditionFailedError, type StateStore } from '../state/port.js';

export interface UserRecord {
  pk: string;
  sk: 'user';
  id: number;
  username: string;
  email: string;
  /** The balance (lib/account/credits.ts): what tasks reserve from and settle against. */
  credits: number;
  /** Set: the balance is not counted (tasks are never refused for credits). */
  creditsUnlimited?: boolean;
  /** Tasks whose reservation is taken from the balance and not yet settled (a string set). */
  creditHolds?: Set<string>;
  createdAt: string;
  [k: string]: unknown;
}

export interface UserDefaults {
  username: string;
  email: string;
  credits: number | 'unlimited';
}

export const userKey = (id: number) => ({ pk: `user#${id}`, sk: 'user' as const });

export class Users {
  constructor(
    private readonly store: StateStore,
    private readonly defaults: UserDefaults,
  ) {}

  async get(id: number): Promise<UserRecord> {
    const found = await this.store.get<UserRecord>(userKey(id));
    if (found) return found;
    const { credits, ...defaults } = this.defaults;
    const balance = credits === 'unlimited' ? { credits: 0, creditsUnlimited: true } : { credits };
    const record: UserRecord = { ...userKey(id), id, ...defaults, ...balance, createdAt: new Date().toISOString() };
    try {
      await this.store.put(record, { condition: { exists: false } });
      return record;
    } catch (err) {
      // Another request created it first: read theirs.
      if (err instanceof ConditionFailedError) return (await this.store.get<UserRecord>(userKey(id)))!;
      throw err;
    }
  }
}
