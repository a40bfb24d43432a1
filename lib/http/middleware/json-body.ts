import type { MiddlewareObj } from '@middy/core';
import { ApiError } from '../../errors.js';
import type { RouteContext, RouteRequest } from './context.js';

export interface JsonBodyOptions {
  maxBytes: () => number;
  /** When false, an empty body is an error. */
  optional?: boolean;
}

/**
 * Parses a JSON request body: a body in another media type is 415, one over the size limit is 413,
 * malformed JSON is 400. An empty body with no content type reads as `{}` when the body is optional.
 */
export function jsonBody(opts: JsonBodyOptions): MiddlewareObj<any, any, Error, RouteContext> {
  return {
    before(request: RouteRequest) {
      const http = request.context.http;
      const raw = http.rawBody;
      if (!raw || raw.length === 0) {
        if (!opts.optional) throw new ApiError('INVALID_ARGUMENT', 'A JSON request body is required.', { status: 400 });
        http.body = {};
        return;
      }
      if (raw.length > opts.maxBytes()) {
        throw new ApiError('PAYLOAD_TOO_LARGE', `The request body is larger than ${opts.maxBytes()} bytes.`);
      }
      const type = (http.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/json' && !type.endsWith('+json')) {
        throw new ApiError(
          'UNSUPPORTED_MEDIA_TYPE',
          `The request body must be sent as application/json, not ${type || 'without a Content-Type'}.`,
        );
      }
      try {
        http.body = JSON.parse(raw.toString('utf8'));
      } catch {
        throw new ApiError('INVALID_ARGUMENT', 'The request body is not valid JSON.', { status: 400 });
      }
    },
  };
}
