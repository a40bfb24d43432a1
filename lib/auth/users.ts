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
  credits: number;
  createdAt: string;
  [k: string]: unknown;
}

export interface UserDefaults {
  username: string;
  email: string;
  credits: number;
}

const userKey = (id: number) => ({ pk: `user#${id}`, sk: 'user' as const });

export class Users {
  constructor(
    private readonly store: StateStore,
    private readonly defaults: UserDefaults,
  ) {}

  async get(id: number): Promise<UserRecord> {
    const found = await this.store.get<UserRecord>(userKey(id));
    if (found) return found;
    const record: UserRecord = { ...userKey(id), id, ...this.defaults, createdAt: new Date().toISOString() };
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
