/**
 * POST /oauth/token: the token endpoint (RFC 6749 §3.2). `grant_type=authorization_code` (with
 * `code_verifier` where the code has a PKCE challenge) and `grant_type=refresh_token` (rotation: the
 * answer carries a new refresh token and the old one is spent). Confidential clients authenticate with
 * HTTP Basic or `client_secret`; public clients send `client_id`. Answers and errors are RFC 6749 §5.1
 * and §5.2 JSON, never cached; the protocol work is @node-oauth/oauth2-server's (lib/access/oauth/server.ts).
 */
import { ApiError } from '#lib/kernel/errors.js';
import { renderOAuthError } from '#lib/http/dialects.js';
import { route } from '#lib/http/middleware/route.js';
import { oauthServer } from '#lib/wiring/oauth-server.js';
import { formOf, repeatedNames } from '#lib/web/form.js';

const PARAMS = ['grant_type', 'code', 'redirect_uri', 'client_id', 'client_secret', 'code_verifier', 'refresh_token', 'scope'] as const;

export const handler = route({ render: renderOAuthError, body: 'raw' }, async (req) => {
  const form = formOf(req);
  const repeated = repeatedNames(form, PARAMS);
  if (repeated.length) throw new ApiError('INVALID_ARGUMENT', `${repeated.join(', ')} must not be repeated`);
  const answer = await oauthServer().token(form, req.headers);
  const fields = { grantType: form.get('grant_type') ?? undefined, status: answer.status, error: answer.body.error };
  req.log.info(answer.status === 200 ? 'oauth tokens issued' : 'oauth token request refused', fields);
  return { status: answer.status, headers: { 'cache-control': 'no-store', pragma: 'no-cache', ...answer.headers }, body: answer.body };
});
