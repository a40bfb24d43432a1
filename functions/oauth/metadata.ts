/**
 * GET /.well-known/oauth-authorization-server: the authorization server's metadata (RFC 8414), so
 * standard clients can discover the endpoints, grants and PKCE method from the base URL alone.
 */
import { SCOPES } from '#lib/access/auth/scopes.js';
import { renderOAuthError } from '#lib/http/dialects.js';
import { route } from '#lib/http/middleware/route.js';
import { json } from '#lib/http/types.js';

const CLIENT_AUTH = ['client_secret_basic', 'client_secret_post', 'none'];

export const handler = route({ render: renderOAuthError, body: 'none' }, async (req) =>
  json(
    200,
    {
      issuer: req.baseUrl,
      authorization_endpoint: `${req.baseUrl}/oauth/authorize`,
      token_endpoint: `${req.baseUrl}/oauth/token`,
      revocation_endpoint: `${req.baseUrl}/oauth/revoke`,
      response_types_supported: ['code', 'token'],
      response_modes_supported: ['query', 'fragment'],
      grant_types_supported: ['authorization_code', 'implicit', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: CLIENT_AUTH,
      revocation_endpoint_auth_methods_supported: CLIENT_AUTH,
      scopes_supported: SCOPES,
    },
    { 'cache-control': 'public, max-age=3600' },
  ),
);
