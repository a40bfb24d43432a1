import type { MiddlewareObj } from '@middy/core';
import { ApiError } from '../../kernel/errors.js';
import type { RouteContext, RouteRequest } from './context.js';

/**
 * The deepest nesting of arrays and objects a request body may have (the outermost one is level 1).
 * Real bodies nest under 10 levels; deeper ones are refused before parsing, so that no code below
 * (validation, the DynamoDB marshaller, loggers) ever recurses through a hostile structure.
 */
export const MAX_JSON_DEPTH = 32;

export interface JsonBodyOptions {
  maxBytes: () => number;
  /** When false, an empty body is an error. */
  optional?: boolean;
  /** Default MAX_JSON_DEPTH. */
  maxDepth?: number;
}

/**
 * Whether JSON text nests arrays and objects deeper than `max`, in one pass over the text (brackets
 * inside strings do not count). Stops at the first level over the limit.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}

/**
 * Parses a JSON request body: a body in another media type is 415, one over the size limit is 413,
 * malformed JSON or JSON nested deeper than MAX_JSON_DEPTH is 400. An empty body with no content type
 * reads as `{}` when the body is optional.
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
      const text = raw.toString('utf8');
      const maxDepth = opts.maxDepth ?? MAX_JSON_DEPTH;
      if (nestsDeeperThan(text, maxDepth)) {
        throw new ApiError('INVALID_ARGUMENT', `The request body nests arrays and objects deeper than ${maxDepth} levels.`, { status: 400 });
      }
      try {
        http.body = JSON.parse(text);
      } catch {
        throw new ApiError('INVALID_ARGUMENT', 'The request body is not valid JSON.', { status: 400 });
      }
    },
  };
}
