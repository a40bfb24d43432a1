/**
 * Request parameters checked where yoga would let a malformed one become an unexpected error (500):
 * the parameters of a GET (`?query=…&variables=…&extensions=…&operationName=…`), read as yoga reads
 * them except that `variables` or `extensions` that are not JSON are a 400 naming the parameter
 * (yoga's parser lets JSON.parse's SyntaxError through), and each operation of a batch, which must be
 * an object before the plugins that read its fields see it (a `null` in the array made them throw).
 */
import { createGraphQLError, type GraphQLParams, type Plugin } from 'graphql-yoga';

function json(params: URLSearchParams, name: 'variables' | 'extensions'): Record<string, unknown> | undefined {
  const text = params.get(name);
  if (!text) return undefined;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw createGraphQLError(`${name}: not JSON (the ${name} parameter of a GET is a JSON object, URL-encoded)`, {
      extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
    });
  }
}

export function parseGetParams(url: string): GraphQLParams {
  const question = url.indexOf('?');
  const params = new URLSearchParams(question < 0 ? '' : url.slice(question + 1));
  return {
    operationName: params.get('operationName') || undefined,
    query: params.get('query') || undefined,
    variables: json(params, 'variables'),
    extensions: json(params, 'extensions'),
  };
}

/** Replaces yoga's GET parser (yoga's request parsers come before a server's own plugins). */
export function useGetParams(): Plugin {
  return {
    onRequestParse({ request, setRequestParser }) {
      if (request.method === 'GET') setRequestParser((r) => parseGetParams(r.url));
    },
  };
}

/** Put before every plugin with an `onParams` hook: they read `params.query` and `params.extensions`. */
export function useParamsObject(): Plugin {
  return {
    onParams({ params }) {
      const value: unknown = params;
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        const given = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
        throw createGraphQLError(`Each operation is a JSON object with a query, got ${given}.`, {
          extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
        });
      }
    },
  };
}
