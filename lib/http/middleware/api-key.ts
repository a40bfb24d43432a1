import type { MiddlewareObj } from '@middy/core';
import type { Credentials } from '../credentials.js';
import { rateHeaders, type RateLimiter } from '../../access/auth/rate-limit.js';
import type { Scope } from '../../access/auth/scopes.js';
import { ApiError } from '../../kernel/errors.js';
import type { RouteContext, RouteRequest } from './context.js';

export interface ApiKeyAuthOptions {
  /** Verifies API keys and OAuth access tokens alike. */
  credentials: () => Credentials;
  limiter: () => RateLimiter;
  /** The scope the route needs. */
  scope: Scope;
  /** Whether this route counts against the rate limit (job and task creation). */
  counts: boolean;
}

export function bearerToken(headers: Record<string, string>): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  return match?.[1];
}

/**
 * `Authorization: Bearer <key or access token>`: an unknown, revoked, expired or missing credential
 * (or one of a disabled user) is 401, one without the route's scope is 403. Authenticated responses
 * carry the rate-limit headers of the key (or of the token's OAuth grant); routes that count are
 * refused with 429 and `Retry-After` once the window's allowance is spent.
 *
 * A sandbox credential at a live base, or a live one at the sandbox base (`req.apiBase`, set by the
 * base guard before this one), is 401 as well: the two never mix.
 *
 * The credential is verified before the rate counter is touched: a request with no valid credential
 * writes nothing, and only a request the credential may make (right scope) is counted.
 */
export function apiKeyAuth(opts: ApiKeyAuthOptions): MiddlewareObj<any, any, Error, RouteContext> {
  return {
    async before(request: RouteRequest) {
      const http = request.context.http;
      const token = bearerToken(http.headers);
      if (!token) throw new ApiError('UNAUTHENTICATED', 'Unauthenticated.');
      const record = await opts.credentials().verify(token);
      if (!record) throw new ApiError('UNAUTHENTICATED', 'Unauthenticated.');
      // Sandbox credentials work only at the sandbox base, live ones only at the live bases.
      const atSandbox = http.apiBase?.sandbox ?? false;
      if (record.sandbox !== atSandbox) {
        const what = record.kind === 'oauth' ? 'access token' : 'API key';
        throw new ApiError(
          'UNAUTHENTICATED',
          record.sandbox ? `Unauthenticated: this ${what} is for the sandbox; use the /sandbox/v2 base.` : `Unauthenticated: this ${what} is not a sandbox credential; the sandbox takes only sandbox keys and tokens.`,
        );
      }
      const limiter = opts.limiter();
      const permitted = record.scopes.includes(opts.scope);
      const rate = opts.counts && permitted ? await limiter.consume(record.keyId) : await limiter.peek(record.keyId);
      Object.assign(request.context.responseHeaders, rateHeaders(rate));
      if (!permitted) {
        const what = record.kind === 'oauth' ? 'access token' : 'API key';
        throw new ApiError('PERMISSION_DENIED', `This ${what} lacks the scope ${opts.scope}.`);
      }
      if (!rate.allowed) {
        throw new ApiError('RESOURCE_EXHAUSTED', 'Too many requests. Try again later.');
      }
      http.principal = {
        userId: record.userId,
        keyId: record.keyId,
        scopes: record.scopes,
        sandbox: record.sandbox,
        accountRegion: record.accountRegion,
        kind: record.kind,
        ...(record.clientId ? { clientId: record.clientId } : {}),
      };
      http.log = http.log.child({ keyId: record.keyId });
    },
  };
}
