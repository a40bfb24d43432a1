/**
 * GET /v2/users/me/authorizations (our extension; scope user.read): the OAuth applications the user
 * authorized, newest first, each with its scopes (the console's own clients are not listed).
 */
import { authorizationView, authorizedApps } from '#lib/file-api/account/authorizations.js';
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { json } from '#lib/http/types.js';
import { oauthClients, tokenStore } from '#lib/wiring/auth.js';

export const handler = fileApiRoute({ scope: 'user.read', body: 'none' }, async (req) => {
  const apps = await authorizedApps({ tokens: tokenStore(), clients: oauthClients() }, req.principal.userId);
  return json(200, { data: apps.map(authorizationView) });
});
