/**
 * What OAuth authorization leaves in the state table, and the checks every use of it makes.
 *
 * - **Grant** (`oauthgrant#<user>` / `client#<client>`): the user authorized this application, with
 *   these scopes, at this time; the account page lists and revokes them. Its `grantId` changes when it
 *   is revoked and given again, so tokens of an earlier grant never come back to life.
 * - **Family** (`oauthfamily#<id>`): the tokens issued from one authorization code (and their
 *   refreshes), or from one implicit grant. Revoking the family (a reused code, a reused rotated-away
 *   refresh token, RFC 7009 revocation of a refresh token) ends them all at once.
 * - **Code** (`oauthcode#<sha256>`): single use, valid OAUTH_CODE_SECONDS; once used it is kept (as
 *   `used`, with its family) as long as the tokens it gave may live, so a second use revokes them.
 * - **Tokens** (`oauthtoken#<sha256>`, sort key `access` or `refresh`): only hashes are stored. A
 *   refresh token is `active` until rotated (then kept as `rotated`, to notice its reuse).
 *
 * Every record that ends carries `expiresAt` (epoch seconds: the table's TTL deletes it, and reads
 * treat it as gone at once). An access token is good only while its user is active, its client still
 * registered, its grant the same and its family not revoked: one read of the token and one batch read
 * of those four, so revocation takes effect on the next request without a race to lose.
 */
import { createHash, randomBytes } from 'node:crypto';
import { epochSeconds, ConditionFailedError, queryAll, type Item, type StateStore } from '../../adapters/state/port.js';
import { isActiveUser, userKey, type UserRecord } from '../auth/users.js';
import { clientKey, type ClientRecord } from './clients.js';

export interface GrantRecord {
  pk: string;
  sk: string;
  grantId: string;
  userId: number;
  clientId: string;
  scopes: string[];
  createdAt: string;
  updatedAt: string;
  [k: string]: unknown;
}

export interface FamilyRecord {
  pk: string;
  sk: 'family';
  revokedAt?: string;
  expiresAt: number;
  [k: string]: unknown;
}

/** Who a code or token speaks for: the user, through which grant, of which client. */
export interface Subject {
  userId: number;
  clientId: string;
  grantId: string;
}

export interface CodeRecord extends Subject {
  pk: string;
  sk: 'code';
  redirectUri: string;
  /** Whether `redirect_uri` was in the authorization request (then the token request must repeat it). */
  redirectUriInRequest: boolean;
  scopes: string[];
  codeChallenge?: string;
  codeChallengeMethod?: string;
  state: 'issued' | 'used';
  /** Epoch seconds after which the code cannot be exchanged. */
  validUntil: number;
  familyId?: string;
  createdAt: string;
  expiresAt: number;
  [k: string]: unknown;
}

export interface TokenRecord extends Subject {
  pk: string;
  sk: 'access' | 'refresh';
  familyId: string;
  scopes: string[];
  /** Refresh tokens: `rotated` once exchanged. */
  state?: 'active' | 'rotated';
  createdAt: string;
  expiresAt: number;
  [k: string]: unknown;
}

export interface TokenLifetimes {
  codeSeconds: number;
  accessSeconds: number;
  refreshSeconds: number;
}

/** Prefixes tell the kinds apart (and let secret scanners find leaked ones). */
export const TOKEN_PREFIX = { access: 'oat_', refresh: 'ort_', code: 'oac_' } as const;
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** Only the subject's own fields (records and library objects carry more). */
export const subjectOf = (s: Subject): Subject => ({ userId: s.userId, clientId: s.clientId, grantId: s.grantId });

export const grantKey = (userId: number, clientId: string) => ({ pk: `oauthgrant#${userId}`, sk: `client#${clientId}` });
const familyKey = (id: string) => ({ pk: `oauthfamily#${id}`, sk: 'family' as const });
const codeKey = (code: string) => ({ pk: `oauthcode#${sha256(code)}`, sk: 'code' as const });
const tokenKey = (token: string, kind: 'access' | 'refresh') => tokenKeyOfHash(sha256(token), kind);
const tokenKeyOfHash = (hash: string, kind: 'access' | 'refresh') => ({ pk: `oauthtoken#${hash}`, sk: kind });

/** What a valid access token grants. */
export interface AccessGrant extends Subject {
  scopes: string[];
  /** Issued to a sandbox client: good only at the file API's sandbox base. */
  sandbox: boolean;
}

export class TokenStore {
  constructor(
    private readonly store: StateStore,
    readonly lifetimes: TokenLifetimes,
  ) {}

  // Grants ------------------------------------------------------------------------------------------

  /** Records the user's approval of these scopes for the client; returns the grant (scopes add up). */
  async approve(userId: number, clientId: string, scopes: string[], now = new Date()): Promise<GrantRecord> {
    const key = grantKey(userId, clientId);
    const at = now.toISOString();
    const existing = await this.store.get<GrantRecord>(key);
    const grant: GrantRecord = { ...key, grantId: randomBytes(12).toString('hex'), userId, clientId, scopes, createdAt: at, updatedAt: at };
    try {
      if (!existing) {
        await this.store.put(grant, { condition: { exists: false } });
        return grant;
      }
      const merged = [...new Set([...existing.scopes, ...scopes])];
      return await this.store.update<GrantRecord>(key, { set: { scopes: merged, updatedAt: at } }, { condition: { equals: { grantId: existing.grantId } } });
    } catch (err) {
      // Another approval made or revoked the grant meanwhile: start again from what is stored now.
      if (err instanceof ConditionFailedError) return this.approve(userId, clientId, scopes, now);
      throw err;
    }
  }

  async grants(userId: number): Promise<GrantRecord[]> {
    return queryAll<GrantRecord>(this.store, `oauthgrant#${userId}`, { beginsWith: 'client#' });
  }

  /** Revokes the user's grant to the client: every code and token of it stops working. */
  async revokeGrant(userId: number, clientId: string): Promise<boolean> {
    return (await this.store.delete(grantKey(userId, clientId))) !== undefined;
  }

  /**
   * Whether the subject may still act: user active, client registered, grant unchanged, family (when
   * given) not revoked. One batch read.
   */
  async isLive(subject: Subject, familyId?: string): Promise<boolean> {
    return (await this.#liveClient(subject, familyId)) !== undefined;
  }

  /** The subject's client when the subject may still act (as `isLive`), else undefined. */
  async #liveClient(subject: Subject, familyId?: string): Promise<ClientRecord | undefined> {
    const keys = [userKey(subject.userId), clientKey(subject.clientId), grantKey(subject.userId, subject.clientId)];
    if (familyId) keys.push(familyKey(familyId));
    const items = await this.store.getMany<Item>(keys);
    const find = (k: { pk: string; sk: string }) => items.find((i) => i.pk === k.pk && i.sk === k.sk);
    const user = find(userKey(subject.userId)) as UserRecord | undefined;
    const client = find(clientKey(subject.clientId)) as ClientRecord | undefined;
    const grant = find(grantKey(subject.userId, subject.clientId)) as GrantRecord | undefined;
    const family = familyId ? (find(familyKey(familyId)) as FamilyRecord | undefined) : undefined;
    return isActiveUser(subject.userId, user) && grant?.grantId === subject.grantId && !family?.revokedAt ? client : undefined;
  }

  // Families ----------------------------------------------------------------------------------------

  newFamilyId(): string {
    return randomBytes(16).toString('hex');
  }

  /** Keeps the family's record as long as its refresh token may live; never clears a revocation. */
  async #extendFamily(familyId: string, now = Date.now()) {
    await this.store.update(familyKey(familyId), { set: { expiresAt: epochSeconds(now) + this.lifetimes.refreshSeconds } });
  }

  async revokeFamily(familyId: string, now = Date.now()): Promise<void> {
    await this.store.update(familyKey(familyId), {
      set: { revokedAt: new Date(now).toISOString(), expiresAt: epochSeconds(now) + this.lifetimes.refreshSeconds },
    });
  }

  // Codes -------------------------------------------------------------------------------------------

  /** A new random code, access or refresh token (only its hash is ever stored). */
  newSecret(kind: keyof typeof TOKEN_PREFIX): string {
    return `${TOKEN_PREFIX[kind]}${randomBytes(32).toString('base64url')}`;
  }

  async saveCode(
    code: string,
    subject: Subject,
    opts: { redirectUri: string; redirectUriInRequest: boolean; scopes: string[]; codeChallenge?: string; codeChallengeMethod?: string },
    now = Date.now(),
  ): Promise<CodeRecord> {
    const validUntil = epochSeconds(now) + this.lifetimes.codeSeconds;
    const record: CodeRecord = {
      ...codeKey(code),
      ...subjectOf(subject),
      ...opts,
      state: 'issued',
      validUntil,
      createdAt: new Date(now).toISOString(),
      expiresAt: validUntil,
    };
    await this.store.put(record, { condition: { exists: false } });
    return record;
  }

  /**
   * The code, when it can still be exchanged. A code used before has its tokens revoked (RFC 6749
   * §4.1.2: "SHOULD revoke … all tokens previously issued based on that authorization code").
   */
  async findCode(code: string): Promise<CodeRecord | undefined> {
    const record = await this.store.get<CodeRecord>(codeKey(code));
    if (!record) return undefined;
    if (record.state === 'used') {
      if (record.familyId) await this.revokeFamily(record.familyId);
      return undefined;
    }
    if (record.validUntil <= epochSeconds() || !(await this.isLive(record))) return undefined;
    return record;
  }

  /**
   * Marks the code used and gives it the family its tokens will belong to; false when another
   * exchange got there first (whose tokens are then revoked too: the code was used twice).
   */
  async consumeCode(code: string, now = Date.now()): Promise<string | undefined> {
    const familyId = this.newFamilyId();
    try {
      await this.store.update(
        codeKey(code),
        { set: { state: 'used', familyId, expiresAt: epochSeconds(now) + this.lifetimes.refreshSeconds } },
        { condition: { equals: { state: 'issued' } } },
      );
      return familyId;
    } catch (err) {
      if (!(err instanceof ConditionFailedError)) throw err;
      await this.findCode(code);
      return undefined;
    }
  }

  // Tokens ------------------------------------------------------------------------------------------

  /** Stores issued tokens (made with `newSecret`) in the family, which then lives as long as the refresh token. */
  async saveTokens(
    subject: Subject,
    familyId: string,
    scopes: string[],
    tokens: { accessToken: string; accessTokenExpiresAt: Date; refreshToken?: string; refreshTokenExpiresAt?: Date },
    now = Date.now(),
  ): Promise<void> {
    const createdAt = new Date(now).toISOString();
    const who = subjectOf(subject);
    const items: TokenRecord[] = [
      { ...tokenKey(tokens.accessToken, 'access'), ...who, familyId, scopes, createdAt, expiresAt: epochSeconds(tokens.accessTokenExpiresAt) },
    ];
    if (tokens.refreshToken) {
      const expiresAt = epochSeconds(tokens.refreshTokenExpiresAt ?? now + this.lifetimes.refreshSeconds * 1000);
      items.push({ ...tokenKey(tokens.refreshToken, 'refresh'), ...who, familyId, scopes, state: 'active', createdAt, expiresAt });
    }
    await this.#extendFamily(familyId, now);
    await this.store.putMany(items);
  }

  /** An access token alone in a new family: the implicit grant's (RFC 6749 §4.2.2: no refresh token). */
  async issueImplicit(subject: Subject, scopes: string[], now = Date.now()): Promise<{ accessToken: string; expiresIn: number }> {
    const accessToken = this.newSecret('access');
    await this.saveTokens(subject, this.newFamilyId(), scopes, { accessToken, accessTokenExpiresAt: new Date(now + this.lifetimes.accessSeconds * 1000) }, now);
    return { accessToken, expiresIn: this.lifetimes.accessSeconds };
  }

  /** What a presented access token grants, or undefined when it is unknown, expired or revoked. */
  async verifyAccessToken(token: string): Promise<AccessGrant | undefined> {
    if (!token.startsWith(TOKEN_PREFIX.access)) return undefined;
    return this.verifyAccessTokenHash(sha256(token));
  }

  /** The same check by the token's SHA-256 (what a socket subscription keeps instead of the token). */
  async verifyAccessTokenHash(hash: string): Promise<AccessGrant | undefined> {
    const record = await this.store.get<TokenRecord>(tokenKeyOfHash(hash, 'access'));
    const client = record && (await this.#liveClient(record, record.familyId));
    if (!record || !client) return undefined;
    return { userId: record.userId, clientId: record.clientId, grantId: record.grantId, scopes: record.scopes, sandbox: client.sandbox === true };
  }

  /**
   * The refresh token's record when it can be exchanged. A rotated-away token presented again means
   * it leaked (or the client is confused): its whole family is revoked (RFC 9700 §4.14.2).
   */
  async findRefreshToken(token: string): Promise<TokenRecord | undefined> {
    if (!token.startsWith(TOKEN_PREFIX.refresh)) return undefined;
    const record = await this.store.get<TokenRecord>(tokenKey(token, 'refresh'));
    if (!record) return undefined;
    if (record.state !== 'active') {
      await this.revokeFamily(record.familyId);
      return undefined;
    }
    return (await this.isLive(record, record.familyId)) ? record : undefined;
  }

  /** Rotation: the refresh token is exchanged once; false when another exchange got there first. */
  async rotateRefreshToken(token: string): Promise<boolean> {
    try {
      await this.store.update(tokenKey(token, 'refresh'), { set: { state: 'rotated' } }, { condition: { equals: { state: 'active' } } });
      return true;
    } catch (err) {
      if (err instanceof ConditionFailedError) return false;
      throw err;
    }
  }

  /**
   * RFC 7009: revokes a token of this client. A refresh token takes its family (every access token
   * issued with it) along; an access token goes alone. Unknown tokens are no error.
   */
  async revoke(token: string, clientId: string, hint?: string): Promise<'revoked' | 'unknown' | 'other-client'> {
    const kinds: Array<'access' | 'refresh'> = hint === 'refresh_token' ? ['refresh', 'access'] : ['access', 'refresh'];
    for (const kind of kinds) {
      const record = await this.store.get<TokenRecord>(tokenKey(token, kind));
      if (!record) continue;
      if (record.clientId !== clientId) return 'other-client';
      if (kind === 'refresh') await this.revokeFamily(record.familyId);
      else await this.store.delete(tokenKey(token, 'access'));
      return 'revoked';
    }
    return 'unknown';
  }
}
