import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Logger } from '../../kernel/log.js';
import { baseUrlOf, headersOf, rawBodyOf, requestIdOf, toGatewayResult } from '../gateway.js';
import type { HttpRequest, HttpResponse } from '../types.js';

/** Lambda context plus what our middlewares share. */
export interface RouteContext extends Context {
  http: HttpRequest;
  /** Headers every response of this request carries, errors included. */
  responseHeaders: Record<string, string>;
}

export type RouteRequest = Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 | HttpResponse, Error, RouteContext>;

export interface ContextOptions {
  log: () => Logger;
  publicBaseUrl?: () => string | undefined;
}

/**
 * First in every chain: builds the HttpRequest from the gateway event (header names lower-cased,
 * body base64-decoded, query parsed), gives it a request id and a logger bound to it, and at the end
 * turns the core's HttpResponse into the gateway's result with the shared response headers.
 */
export function requestContext(opts: ContextOptions): MiddlewareObj<APIGatewayProxyEventV2, any, Error, RouteContext> {
  return {
    before(request: RouteRequest) {
      const { event, context } = request;
      const headers = headersOf(event);
      const requestId = requestIdOf(context);
      const searchParams = new URLSearchParams(event.rawQueryString ?? '');
      context.responseHeaders = { 'x-request-id': requestId };
      context.http = {
        method: (event.requestContext?.http?.method ?? 'GET').toUpperCase(),
        path: event.rawPath ?? '/',
        headers,
        params: { ...(event.pathParameters as Record<string, string> | undefined) },
        query: Object.fromEntries(searchParams),
        rawQuery: event.rawQueryString ?? '',
        searchParams,
        body: undefined,
        rawBody: rawBodyOf(event),
        requestId,
        baseUrl: baseUrlOf(event, headers, opts.publicBaseUrl?.()),
        ...(event.requestContext?.http?.sourceIp ? { sourceIp: event.requestContext.http.sourceIp } : {}),
        log: opts.log().child({ requestId, method: event.requestContext?.http?.method, path: event.rawPath }),
      };
    },
    after(request: RouteRequest) {
      const res = request.response as HttpResponse;
      request.response = toGatewayResult({ ...res, headers: { ...request.context.responseHeaders, ...res.headers } });
    },
  };
}
