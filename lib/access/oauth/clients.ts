/**
 * OAuth clients (applications), registered by the operator with `npm run oauth -- clients create`.
 * A confidential client gets a secret, shown once; only its SHA-256 is stored (the secret is 256
 * random bits, so a fast hash is enough) and it is compared in constant time. A public client (a
 * browser or native app) has no secret and must use PKCE. `implicit` allows `response_type=token`.
 * `sandbox`: the tokens it gets are sandbox tokens (the file API's sandbox base only).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { queryAll, type StateStore } from '../../adapters/state/port.js';
import { checkRedirectUri, RedirectUriError } from './redirect-uris.js';

export interface ClientRecord {
  pk: string;
  sk: 'client';
  gsi1pk: 'oauthclients';
  gsi1sk: string;
  id: string;
  name: string;
  redirectUris: string[];
  /** A public client has no secret and must use PKCE. */
  public: boolean;
  /** Whether the implicit grant (`response_type=token`) is allowed. */
  implicit: boolean;
  secretHash?: string;
  /** A sandbox client: its access tokens work only at the file API's sandbox base (`/sandbox/v2`). */
  sandbox?: boolean;
  createdAt: string;
  [k: string]: unknown;
}

export class ClientInputError extends Error {
  override readonly name = 'ClientInputError';
}

export const clientKey = (id: string) => ({ pk: `oauthclient#${id}`, sk: 'client' as const });
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest();
/** Client ids are 24 hex characters: unguessable enough not to invite enumeration, short enough to type. */
const CLIENT_ID = /^[0-9a-f]{24}$/;

/** A client's stored record (the listing keys added), as registered now. */
export function clientRecord(fields: Pick<ClientRecord, 'id' | 'name' | 'redirectUris' | 'public' | 'implicit' | 'secretHash' | 'sandbox'>): ClientRecord {
  const createdAt = new Date().toISOString();
  const { secretHash, sandbox, ...rest } = fields;
  return {
    ...clientKey(fields.id),
    gsi1pk: 'oauthclients',
    gsi1sk: `${createdAt}#${fields.id}`,
    ...rest,
    ...(secretHash ? { secretHash } : {}),
    ...(sandbox ? { sandbox: true } : {}),
    createdAt,
  };
}

export class OAuthClients {
  constructor(private readonly store: StateStore) {}

  async create(opts: { name: string; redirectUris: string[]; public?: boolean; implicit?: boolean; sandbox?: boolean }): Promise<{ client: ClientRecord; secret?: string }> {
    const name = opts.name.trim();
    if (!name || name.length > 100) throw new ClientInputError('give the application a name of 1 to 100 characters (--name)');
    if (!opts.redirectUris.length) throw new ClientInputError('give at least one --redirect-uri');
    try {
      opts.redirectUris.forEach(checkRedirectUri);
    } catch (err) {
      if (err instanceof RedirectUriError) throw new ClientInputError(err.message);
      throw err;
    }
    const id = randomBytes(12).toString('hex');
    const secret = opts.public ? undefined : `ocs_${randomBytes(32).toString('base64url')}`;
    const client = clientRecord({
      id,
      name,
      redirectUris: [...new Set(opts.redirectUris)],
      public: opts.public ?? false,
      implicit: opts.implicit ?? false,
      secretHash: secret ? sha256(secret).toString('hex') : undefined,
      sandbox: opts.sandbox,
    });
    await this.store.put(client, { condition: { exists: false } });
    return { client, secret };
  }

  async get(id: string): Promise<ClientRecord | undefined> {
    if (!CLIENT_ID.test(id)) return undefined;
    return this.store.get<ClientRecord>(clientKey(id));
  }

  /**
   * The client, when the credentials authenticate it (RFC 6749 §2.3.1): a confidential client with
   * its secret, a public client with none (a secret sent by a public client is refused too).
   */
  async authenticate(id: string, secret: string | undefined): Promise<ClientRecord | undefined> {
    const client = await this.get(id);
    if (!client) return undefined;
    if (client.public) return secret ? undefined : client;
    if (!secret || !client.secretHash) return undefined;
    const stored = Buffer.from(client.secretHash, 'hex');
    return timingSafeEqual(sha256(secret), stored) ? client : undefined;
  }

  async list(): Promise<ClientRecord[]> {
    return queryAll<ClientRecord>(this.store, 'oauthclients', { index: 'gsi1' });
  }

  /** Deletes a client; every token issued to it stops working (lib/access/oauth/tokens.ts checks the client). */
  async delete(id: string): Promise<ClientRecord | undefined> {
    if (!CLIENT_ID.test(id)) return undefined;
    return this.store.delete<ClientRecord>(clientKey(id));
  }
}
