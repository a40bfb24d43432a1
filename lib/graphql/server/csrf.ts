/**
 * CSRF prevention for GraphQL over HTTP, after yoga's `useCSRFPrevention` (and Apollo's): a POST a
 * browser could send cross-site without a CORS preflight (its content type absent, text/plain,
 * form-urlencoded or multipart) is refused with 403 unless it carries one of the custom headers below,
 * which no plain form can set.
 *
 * GET passes without a header, unlike in yoga's and Apollo's rule, so that clients' GET modes work
 * with their defaults (graphql-request's `method: 'GET'` sends none). A GET can only read: yoga
 * refuses a mutation over GET (405) whatever the headers, and queries here have no side effect. What
 * a cross-site page could gain by making a visitor's browser send one is an answer it could ask for
 * itself: the API takes no cookies or other ambient credentials (CORS allows no credentials) and its
 * data is public.
 *
 * JSON POSTs (`content-type: application/json`), which is what GraphiQL, curl examples and GraphQL
 * clients send, are preflighted by browsers and pass untouched. The explorer page and its assets are
 * not GraphQL requests and are not affected.
 */
import { createGraphQLError, type Plugin } from 'graphql-yoga';

export const CSRF_HEADERS = ['x-graphql-yoga-csrf', 'apollo-require-preflight'] as const;

const SIMPLE_CONTENT_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];

/** True when a browser would have sent a CORS preflight before this request (so CORS protects it). */
function wasPreflighted(request: Request, headers: readonly string[]): boolean {
  if (headers.some((h) => request.headers.has(h))) return true;
  const contentType = request.headers.get('content-type')?.toLowerCase().trim();
  if (!contentType) return false;
  return !SIMPLE_CONTENT_TYPES.some((simple) => contentType.startsWith(simple));
}

export function useCsrfPrevention(opts: { headers?: readonly string[] } = {}): Plugin {
  const headers = opts.headers ?? CSRF_HEADERS;
  return {
    onRequestParse({ request }) {
      if (request.method === 'GET' || wasPreflighted(request, headers)) return;
      throw createGraphQLError(
        'This request could have been sent by another web site without your consent (CSRF), so it is refused. ' +
          `Send it with "content-type: application/json", or add the header "${headers[0]}: 1".`,
        { extensions: { code: 'CSRF_PREVENTED', http: { status: 403 } } },
      );
    },
  };
}
