/**
 * The console's access to the API: a first-party OAuth client of this service, registered on first
 * use, to which a signed-in browser session gets access tokens (POST /console/token). A token carries
 * the file API's scopes of the session's user, so everything the console does goes through the public
 * API with exactly that user's rights, and stops when the grant is revoked (signing out does).
 * A second client, the console's sandbox client, gives the same user sandbox tokens, for what the API
 * serves at the sandbox base only (the sandbox whitelist); signing out ends both.
 */
import type { StateStore } from '../../adapters/state/port.js';
import { FILE_API_SCOPES } from '../../access/auth/scopes.js';
import { clientKey, clientRecord, type ClientRecord } from '../../access/oauth/clients.js';
import type { TokenStore } from '../../access/oauth/tokens.js';

/** The console client's id ("console" in hex, padded to the 24 hex digits of every client id). */
export const CONSOLE_CLIENT_ID = '636f6e736f6c650000000000';
export const CONSOLE_CLIENT_NAME = 'Console (this service)';
/** The console's sandbox client ("consoles" in hex, padded): its tokens work at /sandbox/v2 only. */
export const CONSOLE_SANDBOX_CLIENT_ID = '636f6e736f6c657300000000';

/** Whether a client is one of the console's own (never listed or revoked as an authorized application). */
export const isConsoleClient = (clientId: string) => clientId === CONSOLE_CLIENT_ID || clientId === CONSOLE_SANDBOX_CLIENT_ID;

/** Registers the console client (or its sandbox client) when it is missing (a fresh table, or an operator deleted it). */
export async function ensureConsoleClient(store: StateStore, sandbox = false): Promise<void> {
  const id = sandbox ? CONSOLE_SANDBOX_CLIENT_ID : CONSOLE_CLIENT_ID;
  if (await store.get<ClientRecord>(clientKey(id))) return;
  const client = clientRecord({
    id,
    name: sandbox ? `${CONSOLE_CLIENT_NAME}, sandbox` : CONSOLE_CLIENT_NAME,
    // No redirect URI: it never takes part in the authorization endpoint's flow.
    redirectUris: [],
    public: true,
    implicit: false,
    sandbox,
  });
  try {
    await store.put(client, { condition: { exists: false } });
  } catch {
    // Another instance registered it meanwhile.
  }
}

/**
 * A new access token of the console for the user (the grant is recorded or renewed first); a sandbox
 * token with `sandbox`.
 */
export async function consoleAccessToken(
  deps: { store: StateStore; tokens: TokenStore },
  userId: number,
  sandbox = false,
): Promise<{ accessToken: string; expiresIn: number; scopes: string[] }> {
  await ensureConsoleClient(deps.store, sandbox);
  const clientId = sandbox ? CONSOLE_SANDBOX_CLIENT_ID : CONSOLE_CLIENT_ID;
  const scopes = [...FILE_API_SCOPES];
  const grant = await deps.tokens.approve(userId, clientId, scopes);
  const issued = await deps.tokens.issueImplicit({ userId, clientId, grantId: grant.grantId }, scopes);
  return { ...issued, scopes };
}

/** Ends every console token of the user, live and sandbox (at sign-out). */
export const revokeConsoleTokens = async (tokens: TokenStore, userId: number) =>
  (await Promise.all([tokens.revokeGrant(userId, CONSOLE_CLIENT_ID), tokens.revokeGrant(userId, CONSOLE_SANDBOX_CLIENT_ID)])).some(Boolean);
