/** Routes of the file-processing API (CloudConvert v2 dialect): API-key and OAuth token auth with scopes and rate limits. */
import { ApiKeys } from '../access/auth/keys.js';
import { RateLimiter } from '../access/auth/rate-limit.js';
import type { Scope } from '../access/auth/scopes.js';
import { config } from '../kernel/config.js';
import { bearerCredentials } from './credentials.js';
import { stateStore } from './clients.js';
import { renderFileApiError } from '../http/dialects.js';
import { apiBaseOf } from '../http/api-base.js';
import { apiKeyAuth } from '../http/middleware/api-key.js';
import type { RouteContext, RouteRequest } from '../http/middleware/context.js';
import type { MiddlewareObj } from '@middy/core';
import { notFound } from '../kernel/errors.js';
import { route, type RequestOf, type RouteOptions, type RouteSchemas } from '../http/middleware/route.js';
import type { HttpResponse, Principal } from '../http/types.js';

let keys: ApiKeys | undefined;
let limiter: RateLimiter | undefined;
export const apiKeys = () => (keys ??= new ApiKeys(stateStore()));
export const rateLimiter = () =>
  (limiter ??= new RateLimiter(stateStore(), config().RATE_LIMIT, config().RATE_LIMIT_WINDOW_SECONDS));

export interface FileApiRouteOptions<S extends RouteSchemas> extends Omit<RouteOptions<S>, 'render' | 'guards'> {
  scope: Scope;
  /** Job and task creation count against the key's rate limit. */
  rateLimited?: boolean;
}

/** A file API core: the request always carries the authenticated principal. */
export type FileApiCore<S extends RouteSchemas> = (req: RequestOf<S> & { principal: Principal }) => Promise<HttpResponse>;

export function fileApiRoute<S extends RouteSchemas>(opts: FileApiRouteOptions<S>, core: FileApiCore<S>) {
  return route(
    {
      ...opts,
      render: renderFileApiError,
      guards: [apiBaseGuard(), apiKeyAuth({ credentials: bearerCredentials, limiter: rateLimiter, scope: opts.scope, counts: opts.rateLimited ?? false })],
    },
    (req) => {
      const { principal } = req;
      // The authentication guard sets it or fails the request; this only narrows the type.
      if (!principal) throw new Error('fileApiRoute core reached without a principal');
      return core({ ...req, principal });
    },
  );
}

/** Which base (plain, sandbox, region) the request came through; a prefix that is none of ours is 404. */
function apiBaseGuard(): MiddlewareObj<any, any, Error, RouteContext> {
  return {
    before(request: RouteRequest) {
      const http = request.context.http;
      const base = apiBaseOf(http.params.apiBase, config().REGIONS);
      if (!base) throw notFound('Not found.');
      http.apiBase = base;
    },
  };
}
