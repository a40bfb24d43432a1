/**
 * One error hierarchy for every API. An error names a canonical reason (the google.rpc.Code names,
 * plus the few HTTP-level reasons that have no rpc code); each API dialect's renderer turns the reason
 * into its own status code and body. `expose` follows middy's rule: only client errors (< 500) show
 * their message to the caller; everything else is logged whole and answered with a generic message.
 */

export type Reason =
  | 'INVALID_ARGUMENT'
  | 'FAILED_PRECONDITION'
  | 'OUT_OF_RANGE'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'ABORTED'
  | 'RESOURCE_EXHAUSTED'
  | 'CANCELLED'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'PAYLOAD_TOO_LARGE'
  | 'METHOD_NOT_ALLOWED'
  | 'UNIMPLEMENTED'
  | 'DEADLINE_EXCEEDED'
  | 'UNAVAILABLE'
  | 'INTERNAL';

/** HTTP status of each reason, as Google maps its rpc codes (AIP-193). */
export const httpStatusOf: Record<Reason, number> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  ABORTED: 409,
  RESOURCE_EXHAUSTED: 429,
  CANCELLED: 499,
  UNSUPPORTED_MEDIA_TYPE: 415,
  PAYLOAD_TOO_LARGE: 413,
  METHOD_NOT_ALLOWED: 405,
  UNIMPLEMENTED: 501,
  DEADLINE_EXCEEDED: 504,
  UNAVAILABLE: 503,
  INTERNAL: 500,
};

export interface ApiErrorOptions {
  /** Field path → messages, for validation errors. */
  fields?: Record<string, string[]>;
  /** A dialect-specific code that overrides the default one (e.g. `CREDITS_EXCEEDED`). */
  code?: string;
  /** An HTTP status that overrides the dialect's default for the reason. */
  status?: number;
  /** Extra response headers (e.g. `Retry-After`, `Allow`). */
  headers?: Record<string, string>;
  /** Structured details (Google `details[]` entries with `@type`). */
  details?: Array<Record<string, unknown>>;
  cause?: unknown;
}

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly fields?: Record<string, string[]>;
  readonly code?: string;
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly details?: Array<Record<string, unknown>>;

  constructor(
    readonly reason: Reason,
    message: string,
    opts: ApiErrorOptions = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.fields = opts.fields;
    this.code = opts.code;
    this.status = opts.status;
    this.headers = opts.headers;
    this.details = opts.details;
  }

  /** Whether the message may be shown to the caller. */
  get expose(): boolean {
    return (this.status ?? httpStatusOf[this.reason]) < 500;
  }
}

export const invalid = (message: string, fields?: Record<string, string[]>) =>
  new ApiError('INVALID_ARGUMENT', message, { fields });
export const notFound = (message: string) => new ApiError('NOT_FOUND', message);
export const unauthenticated = (message = 'Unauthenticated.') => new ApiError('UNAUTHENTICATED', message);
export const forbidden = (message: string) => new ApiError('PERMISSION_DENIED', message);
export const conflict = (message: string) => new ApiError('ALREADY_EXISTS', message);
export const precondition = (message: string, fields?: Record<string, string[]>) =>
  new ApiError('FAILED_PRECONDITION', message, { fields });

/** Normalizes anything thrown into an ApiError; unknown errors become INTERNAL (not exposed). */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return new ApiError('INTERNAL', 'Internal server error.', { cause: err });
}
