/** The error formats of the API families. */
import { httpStatusOf, type ApiError, type Reason } from '../kernel/errors.js';
import type { HttpResponse } from './types.js';

/** CloudConvert v2: `{"message","code","errors"}`; validation is 422 `INVALID_DATA`. */
const fileApiCodes: Record<Reason, [number, string]> = {
  INVALID_ARGUMENT: [422, 'INVALID_DATA'],
  FAILED_PRECONDITION: [400, 'INVALID_DATA'],
  OUT_OF_RANGE: [422, 'INVALID_DATA'],
  UNAUTHENTICATED: [401, 'UNAUTHENTICATED'],
  PERMISSION_DENIED: [403, 'FORBIDDEN'],
  NOT_FOUND: [404, 'NOT_FOUND'],
  ALREADY_EXISTS: [409, 'CONFLICT'],
  ABORTED: [409, 'CONFLICT'],
  RESOURCE_EXHAUSTED: [429, 'TOO_MANY_REQUESTS'],
  CANCELLED: [400, 'CANCELLED'],
  UNSUPPORTED_MEDIA_TYPE: [415, 'UNSUPPORTED_MEDIA_TYPE'],
  PAYLOAD_TOO_LARGE: [413, 'PAYLOAD_TOO_LARGE'],
  METHOD_NOT_ALLOWED: [405, 'METHOD_NOT_ALLOWED'],
  UNIMPLEMENTED: [501, 'NOT_IMPLEMENTED'],
  DEADLINE_EXCEEDED: [504, 'TIMEOUT'],
  UNAVAILABLE: [503, 'SERVICE_UNAVAILABLE'],
  INTERNAL: [500, 'INTERNAL_ERROR'],
};

export function renderFileApiError(err: ApiError): HttpResponse {
  const [status, code] = fileApiCodes[err.reason];
  const finalStatus = err.status ?? status;
  const body: Record<string, unknown> = {
    message: err.expose ? err.message : 'Internal server error.',
    code: err.code ?? code,
  };
  if (err.fields) body.errors = err.fields;
  return { status: finalStatus, body };
}

/** google.rpc.Status numbers, for `$alt=json;enum-encoding=int` and LRO errors. */
export const rpcCode: Partial<Record<Reason, number>> = {
  CANCELLED: 1,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
};

/** The rpc status name a reason is reported under; HTTP-level reasons have none of their own. */
function googleStatus(reason: Reason): string {
  switch (reason) {
    case 'UNSUPPORTED_MEDIA_TYPE':
    case 'PAYLOAD_TOO_LARGE':
      return 'INVALID_ARGUMENT';
    case 'METHOD_NOT_ALLOWED':
      return 'UNIMPLEMENTED';
    default:
      return reason;
  }
}

/** Google AIP-193: `{"error":{"code","message","status","details"}}`, field violations as BadRequest. */
export function renderGoogleError(err: ApiError): HttpResponse {
  const status = err.status ?? httpStatusOf[err.reason];
  const details = [...(err.details ?? [])];
  if (err.fields) {
    details.push({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: Object.entries(err.fields).flatMap(([field, messages]) =>
        messages.map((description) => ({ field, description })),
      ),
    });
  }
  const message = err.expose
    ? err.fields
      ? `${err.message} ${Object.entries(err.fields).map(([f, m]) => `${f}: ${m.join(', ')}`).join('; ')}`.trim()
      : err.message
    : 'Internal error encountered.';
  return {
    status,
    headers: { 'content-type': 'application/json; charset=UTF-8' },
    body: { error: { code: status, message, status: googleStatus(err.reason), details } },
  };
}

/**
 * OAuth 2.0 endpoints (token, revocation): RFC 6749 §5.2 `{"error","error_description"}`, never cached.
 * `code` of the error is the OAuth error code when set; otherwise a client mistake is
 * `invalid_request` (400) and anything unexpected a generic 500.
 */
export function renderOAuthError(err: ApiError): HttpResponse {
  const internal = !err.expose;
  const status = internal ? 500 : (err.status ?? (err.reason === 'UNAUTHENTICATED' ? 401 : 400));
  const error = internal ? 'server_error' : (err.code ?? (err.reason === 'UNAUTHENTICATED' ? 'invalid_client' : 'invalid_request'));
  return {
    status,
    headers: { 'cache-control': 'no-store', pragma: 'no-cache' },
    body: { error, error_description: internal ? 'The server could not handle the request.' : err.message },
  };
}
