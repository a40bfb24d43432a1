import type { MiddlewareObj } from '@middy/core';
import { toApiError, type ApiError } from '../../kernel/errors.js';
import { toGatewayResult } from '../gateway.js';
import type { HttpResponse } from '../types.js';
import type { RouteContext, RouteRequest } from './context.js';

/** How one API family writes its errors. */
export type ErrorRenderer = (err: ApiError) => HttpResponse;

/**
 * Renders any error in the dialect's format. Client errors keep their message; anything else is
 * logged whole and answered with a generic message, so internals never leak.
 */
export function renderErrors(render: ErrorRenderer): MiddlewareObj<any, any, Error, RouteContext> {
  return {
    onError(request: RouteRequest) {
      const err = toApiError(request.error);
      const log = request.context.http?.log;
      if (err.expose) log?.info('request failed', { reason: err.reason, message: err.message });
      else log?.error('request failed', { error: request.error ?? undefined, cause: err.cause });
      const res = render(err);
      request.response = toGatewayResult({
        ...res,
        headers: { ...request.context.responseHeaders, ...err.headers, ...res.headers },
      });
    },
  };
}
