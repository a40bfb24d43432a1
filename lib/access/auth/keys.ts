/**
 * API keys: opaque random strings handed out once. Only a SHA-256 hash is stored; the first 16 hex
 * characters of the hash are the key's public id (shown by `keys list`, used for revocation and rate
 * limiting), so the secret itself can never be read back.
 */
import { createHash, randomBytes } from 'node:crypto';
import { queryAll, type StateStore } from '../../adapters/state/port.js';
import { GOOGLE_SCOPE_BASE, SCOPES, isScope, type Scope } from './scopes.js';

export interface ApiKeyRecord {
  pk: string;
  sk: 'apikey';
  gsi1pk: 'apikeys';
  gsi1sk: string;
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
    const record: ApiKeyRecord = {
      pk: keyPk(hash),
      sk: 'apikey',
      gsi1pk: 'apikeys',
      gsi1sk: `${createdAt}#${hash.slice(0, 16)}`,
      keyId: hash.slice(0, 16),
      userId: opts.userId ?? 1,
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

  async list(): Promise<ApiKeyRecord[]> {
    return queryAll<ApiKeyRecord>(this.store, 'apikeys', { index: 'gsi1' });
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
