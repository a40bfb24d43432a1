/**
 * POST /oauth/revoke: token revocation (RFC 7009). The client authenticates as at the token endpoint
 * (HTTP Basic or `client_secret`; a public client sends `client_id`) and names a token it was issued:
 * a refresh token ends with every access token of its family, an access token alone. 200 also for a
 * token that is unknown or already gone (§2.2); `unsupported_token_type` for a hint other than
 * `access_token` or `refresh_token`; a token of another client is refused.
 */
import { ApiError } from '#lib/kernel/errors.js';
import { renderOAuthError } from '#lib/http/dialects.js';
import { route } from '#lib/http/middleware/route.js';
import { BASIC_CHALLENGE, clientCredentials } from '#lib/access/oauth/client-auth.js';
import { oauthClients, tokenStore } from '#lib/wiring/auth.js';
import { formOf, repeatedNames } from '#lib/web/form.js';

const oauthError = (error: string, message: string, status = 400, headers?: Record<string, string>) =>
  new ApiError(status === 401 ? 'UNAUTHENTICATED' : 'INVALID_ARGUMENT', message, { code: error, status, headers });

export const handler = route({ render: renderOAuthError, body: 'raw' }, async (req) => {
  const form = formOf(req);
  const repeated = repeatedNames(form, ['token', 'token_type_hint', 'client_id', 'client_secret']);
  if (repeated.length) throw oauthError('invalid_request', `${repeated.join(', ')} must not be repeated`);
  const credentials = clientCredentials(req.headers, form);
  if (!credentials.ok) throw oauthError('invalid_request', credentials.message);
  const client = await oauthClients().authenticate(credentials.clientId, credentials.clientSecret);
  if (!client) {
    const challenge = credentials.basic ? { 'www-authenticate': BASIC_CHALLENGE } : undefined;
    throw oauthError('invalid_client', 'Client authentication failed.', 401, challenge);
  }
  const token = form.get('token');
  if (!token) throw oauthError('invalid_request', 'token is required');
  const hint = form.get('token_type_hint') ?? undefined;
  if (hint !== undefined && hint !== 'access_token' && hint !== 'refresh_token') {
    throw oauthError('unsupported_token_type', 'token_type_hint must be access_token or refresh_token');
  }
  const outcome = await tokenStore().revoke(token, client.id, hint);
  if (outcome === 'other-client') throw oauthError('invalid_request', 'the token was issued to another client');
  req.log.info('oauth token revocation', { clientId: client.id, outcome });
  return { status: 200, headers: { 'cache-control': 'no-store', pragma: 'no-cache' } };
});
