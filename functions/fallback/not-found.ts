/**
 * The catch-all route (`ANY /{proxy+}`): answers requests no other route takes with 404 (unknown
 * path) or 405 (known path, other method), in the format of the API family the path belongs to.
 */
import { ApiError } from '#lib/kernel/errors.js';
import { renderFileApiError, renderGoogleError } from '#lib/http/dialects.js';
import { route } from '#lib/http/middleware/route.js';
import type { HttpResponse } from '#lib/http/types.js';
import { ROUTES } from './routes.js';

const isGooglePath = (path: string) => path.startsWith('/v1/') || path.startsWith('/v2beta/');

function renderGraphqlError(err: ApiError): HttpResponse {
  return { status: err.status ?? 405, headers: err.headers, body: { errors: [{ message: err.message }] } };
}

/**
 * Whether a request path fits a route template, segment by segment: `{name}` takes one non-empty
 * segment, `{name+}` (last) the non-empty rest, anything else must be equal. No regular expression:
 * the path is request text.
 */
function matches(template: string, path: string): boolean {
  const want = template.split('/');
  const have = path.split('/');
  for (let i = 0; i < want.length; i++) {
    const seg = want[i]!;
    const param = seg.startsWith('{') && seg.endsWith('}');
    if (param && seg.endsWith('+}')) return i === want.length - 1 && have.slice(i).join('/') !== '';
    if (i >= have.length) return false;
    if (param ? have[i] === '' : have[i] !== seg) return false;
  }
  return have.length === want.length;
}

export function unmatched(method: string, path: string): ApiError {
  // A greedy route (`/v2/{operation+}`) matches any path below it, so it does not make a path known.
  const allowed = ROUTES.filter(([, p]) => !p.includes('+}') && matches(p, path)).map(([m]) => m);
  if (allowed.length === 0) {
    return new ApiError('NOT_FOUND', isGooglePath(path) ? `The requested URL ${path} was not found on this server.` : `No route for ${method} ${path}.`);
  }
  return new ApiError('METHOD_NOT_ALLOWED', `${method} is not allowed on ${path}; use ${allowed.join(', ')}.`, {
    headers: { allow: allowed.join(', ') },
  });
}

const reject = async (req: { method: string; path: string }): Promise<HttpResponse> => {
  throw unmatched(req.method, req.path);
};
const byDialect = {
  google: route({ render: renderGoogleError, body: 'none' }, reject),
  graphql: route({ render: renderGraphqlError, body: 'none' }, reject),
  file: route({ render: renderFileApiError, body: 'none' }, reject),
};

export const handler: ReturnType<typeof route> = (event, context) => {
  const path = event.rawPath ?? '/';
  const dialect = isGooglePath(path) ? 'google' : path === '/graphql' ? 'graphql' : 'file';
  return byDialect[dialect](event, context);
};
