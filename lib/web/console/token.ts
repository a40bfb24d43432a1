/**
 * The console's access to the API: a first-party OAuth client of this service, registered on first
 * use, to which a signed-in browser session gets access tokens (POST /console/token). A token carries
 * the file API's scopes of the session's user, so everything the console does goes through the public
 * API with exactly that user's rights, and stops when the grant is revoked (signing out does).
 */
import type { StateStore } from '../../adapters/state/port.js';
import { FILE_API_SCOPES } from '../../access/auth/scopes.js';
import { clientKey, type ClientRecord } from '../../access/oauth/clients.js';
import type { TokenStore } from '../../access/oauth/tokens.js';

/** The console client's id ("console" in hex, padded to the 24 hex digits of every client id). */
export const CONSOLE_CLIENT_ID = '636f6e736f6c650000000000';
export const CONSOLE_CLIENT_NAME = 'Console (this service)';

/** Registers the console client when it is missing (a fresh table, or an operator deleted it). */
export async function ensureConsoleClient(store: StateStore): Promise<void> {
  if (await store.get<ClientRecord>(clientKey(CONSOLE_CLIENT_ID))) return;
  const createdAt = new Date().toISOString();
  const client: ClientRecord = {
    ...clientKey(CONSOLE_CLIENT_ID),
    gsi1pk: 'oauthclients',
    gsi1sk: `${createdAt}#${CONSOLE_CLIENT_ID}`,
    id: CONSOLE_CLIENT_ID,
    name: CONSOLE_CLIENT_NAME,
    // No redirect URI: it never takes part in the authorization endpoint's flow.
    redirectUris: [],
    public: true,
    implicit: false,
    createdAt,
  };
  try {
    await store.put(client, { condition: { exists: false } });
  } catch {
    // Another instance registered it meanwhile.
  }
}

/** A new access token of the console for the user (the grant is recorded or renewed first). */
export async function consoleAccessToken(deps: { store: StateStore; tokens: TokenStore }, userId: number): Promise<{ accessToken: string; expiresIn: number; scopes: string[] }> {
  await ensureConsoleClient(deps.store);
  const scopes = [...FILE_API_SCOPES];
  const grant = await deps.tokens.approve(userId, CONSOLE_CLIENT_ID, scopes);
  const issued = await deps.tokens.issueImplicit({ userId, clientId: CONSOLE_CLIENT_ID, grantId: grant.grantId }, scopes);
  return { ...issued, scopes };
}

/** Ends every console token of the user (at sign-out). */
export const revokeConsoleTokens = (tokens: TokenStore, userId: number) => tokens.revokeGrant(userId, CONSOLE_CLIENT_ID);
