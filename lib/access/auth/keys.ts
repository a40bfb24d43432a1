/**
 * API keys: opaque random strings handed out once. Only a SHA-256 hash is stored; the first 16 hex
 * characters of the hash are the key's public id (shown by `keys list`, used for revocation and rate
 * limiting), so the secret itself can never be read back.
 */
import { createHash, randomBytes } from 'node:crypto';
import { queryAll, type Page, type StateStore } from '../../adapters/state/port.js';
import { GOOGLE_SCOPE_BASE, SCOPES, isScope, type Scope } from './scopes.js';

export interface ApiKeyRecord {
  pk: string;
  sk: 'apikey';
  gsi1pk: 'apikeys';
  gsi1sk: string;
  /** The user's keys (`userKeysIndex`), newest first: what GET /v2/users/me/api-keys reads. */
  gsi2pk?: string;
  gsi2sk?: string;
  keyId: string;
  userId: number;
  name: string;
  scopes: Scope[];
  createdAt: string;
  revokedAt?: string;
  /** A sandbox key: accepted only at the sandbox base (`/sandbox/v2`), never at a live one. */
  sandbox?: boolean;
  [k: string]: unknown;
}

export const hashKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');
export const keyIdOf = (key: string) => hashKey(key).slice(0, 16);
const keyPk = (hash: string) => `apikey#${hash}`;
/** The gsi2 partition of one user's keys (gsi2 is sparse: tasks under way use it too, under `active#…`). */
export const userKeysIndex = (userId: number) => `apikeys#user#${userId}`;
const indexOf = (r: Pick<ApiKeyRecord, 'userId' | 'createdAt' | 'keyId'>) => ({ gsi2pk: userKeysIndex(r.userId), gsi2sk: `${r.createdAt}#${r.keyId}` });

export class InvalidKeyInputError extends Error {
  override readonly name = 'InvalidKeyInputError';
}

/** Parses a scope list; a Google scope may be given without its `https://www.googleapis.com/auth/` prefix. */
export function parseScopes(list: string | readonly string[]): Scope[] {
  const items = (typeof list === 'string' ? list.split(/[\s,]+/) : [...list])
    .filter(Boolean)
    .map((s) => (!isScope(s) && isScope(GOOGLE_SCOPE_BASE + s) ? GOOGLE_SCOPE_BASE + s : s));
  const bad = items.filter((s) => !isScope(s));
  if (bad.length) throw new InvalidKeyInputError(`unknown scope ${bad.join(', ')}; choose from ${SCOPES.join(', ')}`);
  if (!items.length) throw new InvalidKeyInputError(`give at least one scope: ${SCOPES.join(', ')}`);
  return [...new Set(items)] as Scope[];
}

export class ApiKeys {
  constructor(private readonly store: StateStore) {}

  /** Creates a key (random unless `secret` is given) and returns it with its record. */
  async create(opts: { scopes: Scope[]; name?: string; userId?: number; secret?: string; sandbox?: boolean }) {
    const key = opts.secret ?? `key_${randomBytes(30).toString('base64url')}`;
    if (key.length < 16 || /\s/.test(key)) throw new InvalidKeyInputError('a key must be at least 16 characters with no spaces');
    const hash = hashKey(key);
    const createdAt = new Date().toISOString();
    const keyId = hash.slice(0, 16);
    const userId = opts.userId ?? 1;
    const record: ApiKeyRecord = {
      pk: keyPk(hash),
      sk: 'apikey',
      gsi1pk: 'apikeys',
      gsi1sk: `${createdAt}#${keyId}`,
      ...indexOf({ userId, createdAt, keyId }),
      keyId,
      userId,
      name: opts.name ?? '',
      scopes: opts.scopes,
      createdAt,
      ...(opts.sandbox ? { sandbox: true } : {}),
    };
    await this.store.put(record);
    return { key, record };
  }

  /** The record of a presented key, or undefined when it is unknown or revoked. */
  async verify(key: string): Promise<ApiKeyRecord | undefined> {
    return this.verifyHash(hashKey(key));
  }

  /** The same check by the key's hash (what a socket subscription keeps instead of the key). */
  async verifyHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const record = await this.store.get<ApiKeyRecord>({ pk: keyPk(hash), sk: 'apikey' });
    return record && !record.revokedAt ? record : undefined;
  }

  /** Every user's keys (`npm run keys -- list`). */
  async list(): Promise<ApiKeyRecord[]> {
    return queryAll<ApiKeyRecord>(this.store, 'apikeys', { index: 'gsi1' });
  }

  /** One page of a user's keys, revoked ones included, newest first (one Query of that user's items only). */
  listOf(userId: number, opts: { limit?: number; cursor?: string } = {}): Promise<Page<ApiKeyRecord>> {
    return this.store.query<ApiKeyRecord>(userKeysIndex(userId), { index: 'gsi2', descending: true, ...opts });
  }

  /** Every key of the user, newest first. */
  allOf(userId: number): Promise<ApiKeyRecord[]> {
    return queryAll<ApiKeyRecord>(this.store, userKeysIndex(userId), { index: 'gsi2', descending: true });
  }

  /** Revokes the user's key with exactly this id (the first revocation's time stays); undefined when the user has none such. */
  async revokeOf(userId: number, keyId: string, match: (k: ApiKeyRecord) => boolean = () => true): Promise<ApiKeyRecord | undefined> {
    const found = (await this.allOf(userId)).find((k) => k.keyId === keyId && match(k));
    if (!found) return undefined;
    return this.store.update<ApiKeyRecord>({ pk: found.pk, sk: 'apikey' }, { set: { revokedAt: found.revokedAt ?? new Date().toISOString() } });
  }

  /**
   * Puts keys made before the per-user index into it (`npm run keys -- reindex`; `npm start` runs it):
   * reads every key once, writes only those that lack the index. Returns how many it wrote.
   */
  async reindex(): Promise<number> {
    const missing = (await this.list()).filter((k) => !k.gsi2pk);
    for (const k of missing) await this.store.update({ pk: k.pk, sk: 'apikey' }, { set: indexOf(k) });
    return missing.length;
  }

  /** Revokes the key with this id (or unique id prefix); returns its record, or undefined if none matched. */
  async revoke(idOrPrefix: string): Promise<ApiKeyRecord | undefined> {
    const matches = (await this.list()).filter((k) => k.keyId.startsWith(idOrPrefix));
    if (matches.length > 1) throw new InvalidKeyInputError(`${idOrPrefix} matches ${matches.length} keys; give more of the id`);
    const match = matches[0];
    if (!match) return undefined;
    return this.store.update<ApiKeyRecord>(
      { pk: match.pk, sk: 'apikey' },
      { set: { revokedAt: match.revokedAt ?? new Date().toISOString() } },
    );
  }
}
