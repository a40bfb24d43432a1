/**
 * The sandbox's file whitelist. The sandbox (`/sandbox/v2`, sandbox keys and tokens) runs jobs without
 * credits, so it takes only files its user has put on a list, by MD5: an import task that brings in a
 * file whose MD5 is not on the list ends in `error` with SANDBOX_FILE_NOT_ALLOWED and the file is
 * deleted. The list is per user, in the state table (`sandboxfiles#<user>` / `md5#<md5>`), kept by
 * `npm run sandbox` (scripts/sandbox.ts) and `/sandbox/v2/users/me/sandbox/files`.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { ConditionFailedError, queryAll, type StateStore } from '../../adapters/state/port.js';
import { BUILT_IN_USER_ID } from '../../access/auth/users.js';

export interface SandboxFileRecord {
  pk: string;
  sk: string;
  userId: number;
  /** Lower-case hex. */
  md5: string;
  /** The file it was allowed from, when given: a reminder for the user, never checked. */
  filename?: string;
  createdAt: string;
  [k: string]: unknown;
}

/** The most files one user's whitelist holds (the sandbox is for a handful of test files). */
export const MAX_SANDBOX_FILES = 1000;

export const SANDBOX_FILE_NOT_ALLOWED = 'SANDBOX_FILE_NOT_ALLOWED';

const MD5 = /^[0-9a-f]{32}$/;
export const isMd5 = (value: string) => MD5.test(value);

const listKey = (userId: number) => `sandboxfiles#${userId}`;
const entryKey = (userId: number, md5: string) => ({ pk: listKey(userId), sk: `md5#${md5}` });

export class SandboxInputError extends Error {
  override readonly name = 'SandboxInputError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** The MD5 of a stream, read once as it passes. */
export async function md5OfStream(body: Readable): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of body) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export class SandboxFiles {
  constructor(private readonly store: StateStore) {}

  /** Puts the MD5 on the user's list (again: keeps the first entry); returns the entry. */
  async allow(userId: number, md5: string, filename?: string): Promise<SandboxFileRecord> {
    const hex = md5.trim().toLowerCase();
    if (!isMd5(hex)) throw new SandboxInputError('md5', 'must be an MD5 checksum: 32 hexadecimal characters');
    const name = filename?.trim();
    if (name !== undefined && (name.length === 0 || name.length > 255)) throw new SandboxInputError('filename', 'must be 1 to 255 characters');
    const existing = await this.store.get<SandboxFileRecord>(entryKey(userId, hex));
    if (existing) return existing;
    // Not atomic with the write below: two additions at once may pass the limit by one. It bounds a
    // list's size; it is not a quota.
    if ((await this.list(userId)).length >= MAX_SANDBOX_FILES) {
      throw new SandboxInputError('md5', `the sandbox whitelist holds at most ${MAX_SANDBOX_FILES} files; remove some first`);
    }
    const record: SandboxFileRecord = {
      ...entryKey(userId, hex),
      userId,
      md5: hex,
      ...(name ? { filename: name } : {}),
      createdAt: new Date().toISOString(),
    };
    try {
      await this.store.put(record, { condition: { exists: false } });
      return record;
    } catch (err) {
      if (err instanceof ConditionFailedError) return (await this.store.get<SandboxFileRecord>(entryKey(userId, hex))) ?? record;
      throw err;
    }
  }

  /** Takes the MD5 off the list; false when it was not on it. */
  async remove(userId: number, md5: string): Promise<boolean> {
    const hex = md5.trim().toLowerCase();
    if (!isMd5(hex)) return false;
    return (await this.store.delete(entryKey(userId, hex))) !== undefined;
  }

  /** The user's list, in MD5 order. */
  list(userId: number): Promise<SandboxFileRecord[]> {
    return queryAll<SandboxFileRecord>(this.store, listKey(userId), { beginsWith: 'md5#' });
  }

  /** Those of `md5s` that are not on the user's list (one batch read). */
  async notAllowed(userId: number, md5s: readonly string[]): Promise<string[]> {
    const wanted = [...new Set(md5s.map((m) => m.toLowerCase()))].filter(isMd5);
    const found = new Set((await this.store.getMany<SandboxFileRecord>(wanted.map((m) => entryKey(userId, m)))).map((r) => r.md5));
    return md5s.filter((m) => !found.has(m.toLowerCase()));
  }
}

/**
 * The message of a refused file: which file, its MD5, and how to whitelist it (the command names the
 * user unless it is the built-in account, the command's default).
 */
export function refusalMessage(userId: number, filename: string, md5: string | undefined): string {
  if (!md5) return `The sandbox takes only whitelisted files, and the MD5 of ${filename} is not known.`;
  const user = userId === BUILT_IN_USER_ID ? '' : ` --user ${userId}`;
  return (
    `The sandbox takes only whitelisted files: ${filename} (MD5 ${md5}) is not on the whitelist. ` +
    `Whitelist it with \`npm run -s sandbox -- allow ${md5}${user}\` or POST /sandbox/v2/users/me/sandbox/files {"md5":"${md5}"}.`
  );
}
