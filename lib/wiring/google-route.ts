/**
 * A Google-dialect route: the shared route chain (lib/http/middleware/route.ts) with Google's error renderer and
 * the googleAuth guard; the core also gets the request's wire options (enum encoding, partial
 * response, pretty printing), checks the partial response against its method's response message
 * (`responseWire`) and answers through `googleJson`.
 */
import type { GoogleScope } from '../access/auth/scopes.js';
import { config } from '../kernel/config.js';
import { renderGoogleError } from '../http/dialects.js';
import { route, type LambdaHandler } from '../http/middleware/route.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import { bearerCredentials } from './credentials.js';
import { googleAuth } from '../google/auth.js';
import { wireOf, type RequestWire } from '../google/wire.js';

export interface GoogleRouteOptions {
  /** The API's host name, e.g. `rapidmigrationassessment.googleapis.com`. */
  service: string;
  /** OAuth scopes of which the caller needs one when authentication is enforced. */
  scopes: readonly GoogleScope[];
  /** `json`: an optional JSON body is parsed; `none`: the body is ignored. */
  body?: 'json' | 'none';
}

export type GoogleCore = (req: HttpRequest, wire: RequestWire) => Promise<HttpResponse>;

export function googleRoute(opts: GoogleRouteOptions, core: GoogleCore): LambdaHandler {
  return route(
    {
      render: renderGoogleError,
      body: opts.body ?? 'json',
      guards: [googleAuth({ mode: () => config().GOOGLE_AUTH_MODE, credentials: bearerCredentials, scopes: opts.scopes, service: opts.service })],
    },
    (req) => core(req, wireOf(req.searchParams, req.headers)),
  );
}
