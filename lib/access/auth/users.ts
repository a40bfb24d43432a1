/**
 * Users. An installation serves one built-in account (id 1) whose record is created on first use with
 * the configured name, e-mail and credit balance; more accounts are made with `npm run users`
 * (lib/access/auth/accounts.ts). Keys and OAuth grants belong to a user.
 */
import { ConditionFailedError, type StateStore } from '../../adapters/state/port.js';

export interface UserRecord {
  pk: string;
  sk: 'user';
  id: number;
  username: string;
  email: string;
  /** The balance (lib/file-api/account/credits.ts): what tasks reserve from and settle against. */
  credits: number;
  /** Set: the balance is not counted (tasks are never refused for credits). */
  creditsUnlimited?: boolean;
  /** Tasks whose reservation is taken from the balance and not yet settled (a string set). */
  creditHolds?: Set<string>;
  createdAt: string;
  /** scrypt hash with its parameters (lib/access/auth/passwords.ts); absent: the account cannot sign in. */
  passwordHash?: string;
  /** Set when the account was disabled: its keys, tokens and sessions no longer work. */
  disabledAt?: string;
  /** The account's fixed processing region (lib/access/regions/user-region.ts); absent: chosen per request. */
  region?: string;
  [k: string]: unknown;
}

export interface UserDefaults {
  username: string;
  email: string;
  credits: number | 'unlimited';
}

/** The account that exists without being created (the ACCOUNT_* settings describe it). */
export const BUILT_IN_USER_ID = 1;

export const userKey = (id: number) => ({ pk: `user#${id}`, sk: 'user' as const });

/** Whether a user's credentials may be used: the record exists (or is the built-in account, made on first use) and is not disabled. */
export const isActiveUser = (id: number, record: UserRecord | undefined): boolean =>
  record ? !record.disabledAt : id === BUILT_IN_USER_ID;

/** The record's fields for a starting balance: a number of credits, or not counted. */
export const balanceFields = (credits: UserDefaults['credits']): Pick<UserRecord, 'credits' | 'creditsUnlimited'> =>
  credits === 'unlimited' ? { credits: 0, creditsUnlimited: true } : { credits };

export class Users {
  constructor(
    private readonly store: StateStore,
    private readonly defaults: UserDefaults,
  ) {}

  async get(id: number): Promise<UserRecord> {
    const found = await this.store.get<UserRecord>(userKey(id));
    if (found) return found;
    if (id !== BUILT_IN_USER_ID) throw new Error(`there is no user ${id}`);
    const { credits, ...defaults } = this.defaults;
    const record: UserRecord = { ...userKey(id), id, ...defaults, ...balanceFields(credits), createdAt: new Date().toISOString() };
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
