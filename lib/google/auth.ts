/**
 * Authentication of the Google-dialect APIs, as a route guard (middy middleware).
 *
 * `open` (the local default): every request passes, with any bearer token or none — Google's clients
 * always send some token, and a mismatched auth library may send none. `enforced`: the credential
 * (an `Authorization: Bearer` token, or the `access_token`/`oauth_token`/`key` parameter that
 * discovery clients send) must be an API key issued by this service (`npm run keys`) or an access
 * token of its OAuth server that holds one of the method's OAuth scopes. Missing or unknown credentials are 401 UNAUTHENTICATED, a key
 * without the scope 403 PERMISSION_DENIED, both in Google's error format with an ErrorInfo detail.
 */
import type { MiddlewareObj } from '@middy/core';
import type { Credentials } from '../http/credentials.js';
import type { GoogleScope } from '../access/auth/scopes.js';
import { ApiError } from '../kernel/errors.js';
import { bearerToken } from '../http/middleware/api-key.js';
import type { RouteContext, RouteRequest } from '../http/middleware/context.js';

export type GoogleAuthMode = 'open' | 'enforced';

export interface GoogleAuthOptions {
  mode: () => GoogleAuthMode;
  /** Verifies API keys and OAuth access tokens alike. */
  credentials: () => Credentials;
  /** Any one of these is enough. */
  scopes: readonly GoogleScope[];
  /** The API's host name, the ErrorInfo domain (e.g. `drivelabels.googleapis.com`). */
  service: string;
}

const errorInfo = (reason: string, metadata: Record<string, string>) => ({
  '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
  reason,
  domain: 'googleapis.com',
  metadata,
});

export function credentialOf(headers: Record<string, string>, params: URLSearchParams): string | undefined {
  return bearerToken(headers) ?? params.get('access_token') ?? params.get('oauth_token') ?? params.get('key') ?? undefined;
}

export function googleAuth(opts: GoogleAuthOptions): MiddlewareObj<any, any, Error, RouteContext> {
  return {
    async before(request: RouteRequest) {
      if (opts.mode() === 'open') return;
      const http = request.context.http;
      const token = credentialOf(http.headers, http.searchParams);
      const challenge = { 'www-authenticate': `Bearer realm="${opts.service}", scope="${opts.scopes.join(' ')}"` };
      if (!token) {
        throw new ApiError(
          'UNAUTHENTICATED',
          'Request is missing required authentication credential. Expected an API key of this service as OAuth 2 bearer token.',
          { headers: challenge, details: [errorInfo('CREDENTIALS_MISSING', { service: opts.service })] },
        );
      }
      const record = await opts.credentials().verify(token);
      if (!record) {
        throw new ApiError('UNAUTHENTICATED', 'Request had invalid authentication credentials: the token is not an active API key or access token of this service.', {
          headers: challenge,
          details: [errorInfo('ACCESS_TOKEN_TYPE_UNSUPPORTED', { service: opts.service })],
        });
      }
      if (record.sandbox) {
        // The sandbox is the file API's (/sandbox/v2): its keys and tokens are good nowhere else.
        throw new ApiError('UNAUTHENTICATED', 'Request had invalid authentication credentials: a sandbox key or token works only at the file API\'s sandbox (/sandbox/v2).', {
          headers: challenge,
          details: [errorInfo('ACCESS_TOKEN_TYPE_UNSUPPORTED', { service: opts.service })],
        });
      }
      if (!opts.scopes.some((s) => record.scopes.includes(s))) {
        throw new ApiError('PERMISSION_DENIED', `Request had insufficient authentication scopes; the key needs one of ${opts.scopes.join(', ')}.`, {
          headers: { 'www-authenticate': `Bearer realm="${opts.service}", error="insufficient_scope", scope="${opts.scopes.join(' ')}"` },
          details: [errorInfo('ACCESS_TOKEN_SCOPE_INSUFFICIENT', { service: opts.service })],
        });
      }
      http.principal = { userId: record.userId, keyId: record.keyId, scopes: record.scopes, sandbox: false };
      http.log = http.log.child({ keyId: record.keyId });
    },
  };
}
