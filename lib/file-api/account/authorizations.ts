/**
 * The OAuth applications a user authorized (their grants), as the account page and
 * GET /v2/users/me/authorizations show them: newest first, without the console's own clients (this
 * service's page, signed in and out with the browser session, is not an application to list or revoke
 * there).
 */
import type { ClientRecord, OAuthClients } from '../../access/oauth/clients.js';
import type { GrantRecord, TokenStore } from '../../access/oauth/tokens.js';
import { isConsoleClient } from '../../web/console/token.js';
import { toIsoSeconds } from '../../kernel/time.js';

export interface AuthorizedApp {
  grant: GrantRecord;
  client: ClientRecord;
}

export async function authorizedApps(deps: { tokens: TokenStore; clients: OAuthClients }, userId: number): Promise<AuthorizedApp[]> {
  const grants = await deps.tokens.grants(userId);
  const clients = await Promise.all(grants.map((g) => deps.clients.get(g.clientId)));
  return grants
    .map((grant, i) => ({ grant, client: clients[i] }))
    .filter((app): app is AuthorizedApp => app.client !== undefined && !isConsoleClient(app.client.id))
    .sort((a, b) => b.grant.updatedAt.localeCompare(a.grant.updatedAt));
}

/** One authorization in the API's answers (snake_case, times to the second, as the rest of /v2). */
export const authorizationView = ({ grant, client }: AuthorizedApp) => ({
  client_id: client.id,
  name: client.name,
  scopes: grant.scopes,
  sandbox: client.sandbox === true,
  created_at: toIsoSeconds(grant.createdAt),
  updated_at: toIsoSeconds(grant.updatedAt),
});
