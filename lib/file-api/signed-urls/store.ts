/**
 * Signed-URL bases and what their requests started, in the state store.
 *
 * A base belongs to one user and has its own signing secret. The secret must stay readable (an HMAC
 * is checked with the key itself, so a hash would not do): it is stored encrypted with AES-256-GCM
 * under a key derived (HKDF-SHA256) from the service's URL-signing key, the one export URLs use
 * (`URL_SIGNING_SECRET`, else the random key kept in the table), bound to the base's id. With
 * `URL_SIGNING_SECRET` set, a copy of the table alone (a backup, an export, a replica) does not give
 * anyone the secrets; changing that setting makes the bases unusable (create new ones).
 *
 * Under a base's partition:
 * - `cache#<sha256 of job JSON and cache_key>`: the job a cached URL answers with, while it lives;
 *   written with a condition so that concurrent first requests start one job;
 * - `run#<job id>`: a job an uncached URL started, for the client its re-wait redirect sends back.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { ConditionFailedError, isExpired, type Item, type Page, type StateStore } from '../../adapters/state/port.js';

export const signedUrlKey = (id: string) => ({ pk: `signed-url#${id}`, sk: 'base' as const });
export const userSignedUrlsIndex = (userId: number, sandbox = false) => `${sandbox ? 'sandbox-' : ''}signed-urls#${userId}`;

interface SealedSecret {
  iv: string;
  data: string;
  tag: string;
}

export interface SignedUrlRecord extends Item {
  id: string;
  userId: number;
  /** The credential that created it: jobs started through it count against its rate limit and carry it (webhook `api_key_ids`). */
  keyId: string;
  /** The base URL as handed out; the HMAC covers it exactly. */
  url: string;
  sandbox?: boolean;
  secret: SealedSecret;
  createdAt: string;
}

export interface RunRecord extends Item {
  jobId: string;
  /** For `run#` records: which URL started the job. */
  digest?: string;
  createdAt: string;
  expiresAt: number;
}

/** A new base's signing secret: 32 random bytes. */
export const newSigningSecret = () => randomBytes(32).toString('base64url');

/** Identity of a signed request's work: the job JSON and the cache key, however the URL spelled them. */
export const runDigest = (jobJson: string, cacheKey = '') => createHash('sha256').update(`${cacheKey}\n${jobJson}`).digest('hex');

export class SignedUrlStore {
  readonly #key: Buffer;

  /** `serviceKey`: the service's URL-signing key (lib/adapters/file-store/download-urls.ts `loadSigningKey`). */
  constructor(
    private readonly state: StateStore,
    serviceKey: Uint8Array,
  ) {
    this.#key = Buffer.from(hkdfSync('sha256', serviceKey, Buffer.alloc(0), 'signed-url-secrets', 32));
  }

  #seal(id: string, secret: string): SealedSecret {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(signedUrlKey(id).pk));
    const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return { iv: iv.toString('base64url'), data: data.toString('base64url'), tag: cipher.getAuthTag().toString('base64url') };
  }

  /** The base's signing secret; undefined when it cannot be opened (the service's key changed). */
  secretOf(record: SignedUrlRecord): string | undefined {
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(record.secret.iv, 'base64url'));
      decipher.setAAD(Buffer.from(signedUrlKey(record.id).pk));
      decipher.setAuthTag(Buffer.from(record.secret.tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(record.secret.data, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }

  /** A new base at `publicBase` + `pathPrefix` + id; returns the record and its secret (shown once). */
  async create(args: { userId: number; keyId: string; publicBase: string; sandbox: boolean }, now = new Date()) {
    const id = randomUUID();
    const secret = newSigningSecret();
    const createdAt = now.toISOString();
    const record: SignedUrlRecord = {
      ...signedUrlKey(id),
      gsi1pk: userSignedUrlsIndex(args.userId, args.sandbox),
      gsi1sk: `${createdAt}#${id}`,
      id,
      userId: args.userId,
      keyId: args.keyId,
      url: `${args.publicBase}/${id}`,
      ...(args.sandbox ? { sandbox: true } : {}),
      secret: this.#seal(id, secret),
      createdAt,
    };
    await this.state.put(record, { condition: { exists: false } });
    return { record, secret };
  }

  get(id: string): Promise<SignedUrlRecord | undefined> {
    return this.state.get<SignedUrlRecord>(signedUrlKey(id));
  }

  list(userId: number, opts: { limit: number; cursor?: string }, sandbox = false): Promise<Page<SignedUrlRecord>> {
    return this.state.query<SignedUrlRecord>(userSignedUrlsIndex(userId, sandbox), { index: 'gsi1', descending: true, ...opts });
  }

  async delete(id: string): Promise<void> {
    await this.state.delete(signedUrlKey(id));
  }

  async cached(baseId: string, digest: string): Promise<RunRecord | undefined> {
    const record = await this.state.get<RunRecord>({ pk: signedUrlKey(baseId).pk, sk: `cache#${digest}` }, { consistent: true });
    return record && !isExpired(record) ? record : undefined;
  }

  /**
   * Makes `jobId` the cached job of `digest`: only when there is none yet (or it expired), or when the
   * one there is still `replacing` (a job that failed or is gone). False when another request won.
   */
  async claim(baseId: string, digest: string, jobId: string, expiresAt: number, replacing?: string): Promise<boolean> {
    const key = { pk: signedUrlKey(baseId).pk, sk: `cache#${digest}` };
    const condition = replacing ? { equals: { jobId: replacing } } : { anyOf: [{ exists: false }, { below: { expiresAt: Math.floor(Date.now() / 1000) + 1 } }] };
    try {
      await this.state.put({ ...key, jobId, createdAt: new Date().toISOString(), expiresAt }, { condition });
      return true;
    } catch (err) {
      if (err instanceof ConditionFailedError) return false;
      throw err;
    }
  }

  /** Gives up a claim whose job could not be created (so the next request tries again). */
  async release(baseId: string, digest: string, jobId: string): Promise<void> {
    try {
      await this.state.delete({ pk: signedUrlKey(baseId).pk, sk: `cache#${digest}` }, { condition: { equals: { jobId } } });
    } catch (err) {
      if (!(err instanceof ConditionFailedError)) throw err;
    }
  }

  /** Remembers that an uncached URL (`digest`) started `jobId`, for its re-wait redirect. */
  async rememberRun(baseId: string, digest: string, jobId: string, expiresAt: number): Promise<void> {
    await this.state.put({ pk: signedUrlKey(baseId).pk, sk: `run#${jobId}`, jobId, digest, createdAt: new Date().toISOString(), expiresAt });
  }

  /** Whether `jobId` was started by the URL `digest` of this base. */
  async isRunOf(baseId: string, digest: string, jobId: string): Promise<boolean> {
    const record = await this.state.get<RunRecord>({ pk: signedUrlKey(baseId).pk, sk: `run#${jobId}` });
    return Boolean(record && !isExpired(record) && record.digest === digest);
  }
}
