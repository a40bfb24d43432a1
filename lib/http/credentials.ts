/**
 * One check for every bearer credential: an API key (lib/access/auth/keys.ts) or an OAuth access token
 * (lib/access/oauth/tokens.ts). Either way the answer is the user, the scopes, and the id requests are
 * counted under for rate limits: the key's id, or `oauth-<grant id>` for tokens (a client's refreshed
 * tokens share one allowance). A disabled user's keys and tokens are refused like unknown ones.
 */
import type { StateStore } from '../adapters/state/port.js';
import type { TokenStore } from '../access/oauth/tokens.js';
import { TOKEN_PREFIX } from '../access/oauth/tokens.js';
import { hashKey, type ApiKeys } from '../access/auth/keys.js';
import { isActiveUser, userKey, type UserRecord } from '../access/auth/users.js';

export interface Credential {
  userId: number;
  /** The API key's id, or `oauth-<grant id>`: what rate limits and webhook filters go by. */
  keyId: string;
  scopes: string[];
  kind: 'api-key' | 'oauth';
  /** An access token's OAuth client (the console's own, or a third-party application's). */
  clientId?: string;
  /** A sandbox key, or a token of a sandbox OAuth client: good only at the sandbox base. */
  sandbox: boolean;
  /**
   * The account's fixed processing region (null: none), when checking the credential read the
   * account; absent when it did not, and whoever needs it reads it.
   */
  accountRegion?: string | null;
}

/**
 * What is kept to check a credential again later (a socket subscription: lib/file-api/events/publisher.ts):
 * its kind and the SHA-256 of the bearer, by which its key or token record is found. Never the bearer;
 * the hash is already the key of that record in the same table.
 */
export interface CredentialRef {
  kind: Credential['kind'];
  hash: string;
}

export const credentialRef = (bearer: string, credential: Pick<Credential, 'kind'>): CredentialRef => ({ kind: credential.kind, hash: hashKey(bearer) });

export class Credentials {
  constructor(
    private readonly store: StateStore,
    private readonly keys: ApiKeys,
    private readonly tokens: TokenStore,
  ) {}

  async verify(bearer: string): Promise<Credential | undefined> {
    const hash = hashKey(bearer);
    if (bearer.startsWith(TOKEN_PREFIX.access)) {
      const token = await this.#token(hash);
      if (token) return token;
      // An API key chosen to look like a token (`API_KEY=oat_… npm start`) is still a key.
    }
    return this.#key(hash);
  }

  /** The same check as `verify`, again, for a credential that `verify` accepted: undefined once it ended. */
  async verifyRef(ref: CredentialRef): Promise<Credential | undefined> {
    return ref.kind === 'oauth' ? this.#token(ref.hash) : this.#key(ref.hash);
  }

  async #token(hash: string): Promise<Credential | undefined> {
    const grant = await this.tokens.verifyAccessTokenHash(hash);
    return grant && { userId: grant.userId, keyId: `oauth-${grant.grantId}`, scopes: grant.scopes, kind: 'oauth', clientId: grant.clientId, sandbox: grant.sandbox };
  }

  async #key(hash: string): Promise<Credential | undefined> {
    const key = await this.keys.verifyHash(hash);
    if (!key) return undefined;
    const user = await this.store.get<UserRecord>(userKey(key.userId));
    if (!isActiveUser(key.userId, user)) return undefined;
    const accountRegion = typeof user?.region === 'string' ? user.region : null;
    return { userId: key.userId, keyId: key.keyId, scopes: key.scopes, kind: 'api-key', sandbox: key.sandbox === true, accountRegion };
  }
}
