/**
 * A buffered adapter from API Gateway HTTP API events (payload format 2.0) to a fetch-style server
 * such as a yoga instance. Text responses go back as text; compressed or binary ones (the explorer's
 * assets) as base64.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

export interface FetchServer<TServerContext> {
  fetch(input: string, init: RequestInit, serverContext: TServerContext): Response | Promise<Response>;
}

export interface LambdaServerContext {
  event: APIGatewayProxyEventV2;
  lambdaContext: Context;
}

const TEXT_TYPE = /^(text\/|application\/(json|graphql-response\+json|javascript|xml)|[^;]*\+json)/i;

/** The Request URL of an event: its host header (or domain name) and raw path and query string. */
export function requestUrl(event: APIGatewayProxyEventV2): string {
  const host = event.headers?.host ?? event.requestContext?.domainName ?? 'localhost';
  const proto = event.headers?.['x-forwarded-proto'] ?? 'https';
  const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
  return `${proto}://${host}${event.rawPath || '/'}${query}`;
}

export function lambdaHandler<TServerContext extends LambdaServerContext>(
  server: FetchServer<TServerContext>,
): (event: APIGatewayProxyEventV2, lambdaContext: Context) => Promise<APIGatewayProxyStructuredResultV2> {
  return async (event, lambdaContext) => {
    const method = event.requestContext?.http?.method ?? 'GET';
    // A plain object rather than a `Headers`: yoga's Headers reads a plain object's fields as they are,
    // where another Headers implementation goes through its validating getters (about a tenth of the
    // handler's time for a cached answer, measured). The gateway delivers header names in lower case.
    // No prototype, so that a header named __proto__ is a header like any other.
    const headers: Record<string, string> = Object.create(null);
    for (const [name, value] of Object.entries(event.headers ?? {})) {
      if (value !== undefined) headers[name.toLowerCase()] = value;
    }
    if (event.cookies?.length) headers.cookie = event.cookies.join('; ');
    const body =
      method === 'GET' || method === 'HEAD' || event.body == null
        ? undefined
        : event.isBase64Encoded
          ? Buffer.from(event.body, 'base64')
          : event.body;

    const response = await server.fetch(
      requestUrl(event),
      { method, headers, body },
      { event, lambdaContext } as TServerContext,
    );

    const outHeaders: Record<string, string> = {};
    response.headers.forEach((value, rawName) => {
      // Some fetch implementations keep the case a header was set with; the gateway wants lower case.
      const name = rawName.toLowerCase();
      // The gateway computes content-length itself (the body may be base64 here).
      if (name !== 'set-cookie' && name !== 'content-length') outHeaders[name] = value;
    });
    const cookies = typeof response.headers.getSetCookie === 'function' ? response.headers.getSetCookie() : [];
    const contentType = response.headers.get('content-type') ?? '';
    const binary = response.headers.has('content-encoding') || (contentType !== '' && !TEXT_TYPE.test(contentType));
    const result: APIGatewayProxyStructuredResultV2 = {
      statusCode: response.status,
      headers: outHeaders,
      body: binary ? Buffer.from(await response.arrayBuffer()).toString('base64') : await response.text(),
      isBase64Encoded: binary,
    };
    if (cookies.length) result.cookies = cookies;
    return result;
  };
}
