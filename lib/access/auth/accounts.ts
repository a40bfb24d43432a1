/**
 * Accounts: several users in the state table, beside the built-in one (id 1, lib/access/auth/users.ts).
 *
 * - Ids come from an atomic counter item (`counter#users`); the counter counts the accounts made
 *   beyond the built-in one, so the first `create` gets id 2.
 * - E-mail addresses are unique, case-insensitively: a lookup item `useremail#<address>` holding the
 *   user id is written with a "must not exist" condition before the account, so two creations (or
 *   changes) to one address cannot both succeed. The built-in account claims its address the first
 *   time accounts are managed or someone signs in.
 * - Passwords are scrypt hashes (lib/access/auth/passwords.ts); nothing here logs or returns one.
 * - A disabled account keeps its data; `isActiveUser` makes its keys, tokens and sessions fail.
 */
import * as z from 'zod';
import { ConditionFailedError, queryAll, type StateStore } from '../../adapters/state/port.js';
import { generatePassword, hashPassword, passwordProblem, verifyNothing, verifyPassword } from './passwords.js';
import { balanceFields, BUILT_IN_USER_ID, Users, userKey, type UserDefaults, type UserRecord } from './users.js';

/** A problem with what was asked, named by field (`email`, `username`, `password`, `user`). */
export class AccountInputError extends Error {
  override readonly name = 'AccountInputError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

const emailSchema = z.string().trim().max(254, 'must be at most 254 characters').pipe(z.email('must be an e-mail address'));
const usernameSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .refine((v) => ![...v].some((c) => c < ' ' || c === '\u007f'), 'must not contain control characters');

/** Validates and normalises an e-mail address (trimmed, lower-case); throws AccountInputError. */
export function normalizeEmail(email: string): string {
  const parsed = emailSchema.safeParse(email);
  if (!parsed.success) throw new AccountInputError('email', parsed.error.issues[0]!.message);
  return parsed.data.toLowerCase();
}

export function normalizeUsername(username: string): string {
  const parsed = usernameSchema.safeParse(username);
  if (!parsed.success) throw new AccountInputError('username', parsed.error.issues[0]!.message);
  return parsed.data;
}

const emailKey = (email: string) => ({ pk: `useremail#${email}`, sk: 'useremail' });
const COUNTER = { pk: 'counter#users', sk: 'counter' };
const listKeys = (id: number) => ({ gsi1pk: 'users', gsi1sk: String(id).padStart(12, '0') });

export class Accounts {
  readonly users: Users;

  constructor(
    private readonly store: StateStore,
    private readonly defaults: UserDefaults,
  ) {
    this.users = new Users(store, defaults);
  }

  /** Makes the built-in account's record (if needed) and claims its e-mail address once. */
  async #builtIn(): Promise<UserRecord> {
    const record = await this.users.get(BUILT_IN_USER_ID);
    if (record.emailClaimed) return record;
    const email = record.email.toLowerCase();
    try {
      await this.store.put({ ...emailKey(email), userId: BUILT_IN_USER_ID }, { condition: { exists: false } });
    } catch (err) {
      // Someone else holds it (an account made before this code claimed it): the built-in account keeps
      // its address but cannot sign in with it.
      if (!(err instanceof ConditionFailedError)) throw err;
    }
    return this.store.update<UserRecord>(userKey(BUILT_IN_USER_ID), { set: { emailClaimed: true, ...listKeys(BUILT_IN_USER_ID) } });
  }

  /**
   * Creates an account. Without `password` a random one is made; either way it is returned once, for
   * the operator to hand over, and only its hash is stored.
   */
  async create(opts: { email: string; username: string; password?: string; credits?: UserDefaults['credits'] }): Promise<{ user: UserRecord; password: string }> {
    const email = normalizeEmail(opts.email);
    const username = normalizeUsername(opts.username);
    const password = opts.password ?? generatePassword();
    const problem = passwordProblem(password);
    if (problem) throw new AccountInputError('password', `the password ${problem}`);
    await this.#builtIn();
    const passwordHash = await hashPassword(password);
    const counter = await this.store.update<{ pk: string; sk: string; value: number }>(COUNTER, { add: { value: 1 } });
    const id = counter.value + BUILT_IN_USER_ID;
    await this.#claimEmail(email, id);
    const user: UserRecord = {
      ...userKey(id),
      ...listKeys(id),
      id,
      username,
      email,
      // New accounts start as the built-in one does (ACCOUNT_CREDITS) unless the operator says otherwise.
      ...balanceFields(opts.credits ?? this.defaults.credits),
      createdAt: new Date().toISOString(),
      passwordHash,
      emailClaimed: true,
    };
    try {
      await this.store.put(user, { condition: { exists: false } });
    } catch (err) {
      await this.store.delete(emailKey(email), { condition: { equals: { userId: id } } }).catch(() => undefined);
      throw err;
    }
    return { user, password };
  }

  async #claimEmail(email: string, userId: number): Promise<void> {
    try {
      await this.store.put({ ...emailKey(email), userId }, { condition: { exists: false } });
    } catch (err) {
      if (err instanceof ConditionFailedError) throw new AccountInputError('email', 'has already been taken');
      throw err;
    }
  }

  /** Every account, by id (the built-in one first). */
  async list(): Promise<UserRecord[]> {
    await this.#builtIn();
    return queryAll<UserRecord>(this.store, 'users', { index: 'gsi1' });
  }

  /** The account with this id, or undefined (the built-in account always exists). */
  async byId(id: number): Promise<UserRecord | undefined> {
    if (id === BUILT_IN_USER_ID) return this.users.get(id);
    return this.store.get<UserRecord>(userKey(id));
  }

  async byEmail(email: string): Promise<UserRecord | undefined> {
    let normalized: string;
    try {
      normalized = normalizeEmail(email);
    } catch {
      return undefined;
    }
    await this.#builtIn();
    const lookup = await this.store.get<{ pk: string; sk: string; userId: number }>(emailKey(normalized));
    return lookup ? this.byId(lookup.userId) : undefined;
  }

  /** An account named by its id or its e-mail address (as the command-line tools take it). */
  async resolve(idOrEmail: string): Promise<UserRecord | undefined> {
    if (/^\d{1,12}$/.test(idOrEmail)) return this.byId(Number(idOrEmail));
    return this.byEmail(idOrEmail);
  }

  /**
   * The active account with this e-mail and password, or undefined. Unknown addresses cost as much
   * time as wrong passwords, and a disabled account is refused like a wrong password.
   */
  async authenticate(email: string, password: string): Promise<UserRecord | undefined> {
    const user = await this.byEmail(email);
    if (!user?.passwordHash) return verifyNothing(password).then(() => undefined);
    const ok = await verifyPassword(password, user.passwordHash);
    return ok && !user.disabledAt ? user : undefined;
  }

  async setPassword(id: number, password: string): Promise<void> {
    const problem = passwordProblem(password);
    if (problem) throw new AccountInputError('password', `the password ${problem}`);
    await this.#exists(id);
    await this.store.update(userKey(id), { set: { passwordHash: await hashPassword(password) } }, { condition: { exists: true } });
  }

  async disable(id: number): Promise<UserRecord> {
    await this.#exists(id);
    return this.store.update<UserRecord>(userKey(id), { set: { disabledAt: new Date().toISOString() } }, { condition: { exists: true } });
  }

  async #exists(id: number): Promise<void> {
    if (!(await this.byId(id))) throw new AccountInputError('user', `there is no user ${id}`);
  }

  /**
   * Changes the name and/or e-mail address (PATCH /v2/users/me). A new address is claimed before the
   * account changes and the old one released after, so the address stays unique throughout.
   */
  async update(id: number, changes: { username?: string; email?: string }): Promise<UserRecord> {
    const username = changes.username === undefined ? undefined : normalizeUsername(changes.username);
    const email = changes.email === undefined ? undefined : normalizeEmail(changes.email);
    const current = id === BUILT_IN_USER_ID ? await this.#builtIn() : await this.byId(id);
    if (!current) throw new AccountInputError('user', `there is no user ${id}`);
    const oldEmail = current.email.toLowerCase();
    const newEmail = email !== undefined && email !== oldEmail ? email : undefined;
    if (username === undefined && newEmail === undefined) return current;
    if (newEmail) await this.#claimEmail(newEmail, id);
    let updated: UserRecord;
    try {
      updated = await this.store.update<UserRecord>(userKey(id), { set: { username, email: newEmail } }, { condition: { exists: true } });
    } catch (err) {
      if (newEmail) await this.store.delete(emailKey(newEmail), { condition: { equals: { userId: id } } }).catch(() => undefined);
      throw err;
    }
    if (newEmail) await this.store.delete(emailKey(oldEmail), { condition: { equals: { userId: id } } }).catch(() => undefined);
    return updated;
  }
}
