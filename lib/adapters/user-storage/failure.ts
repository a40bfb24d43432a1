/**
 * Failures of the storage adapters that speak their protocol themselves (SFTP, OpenStack Swift), and
 * what they share when read back as a `StorageErrorInfo`: the address guard's refusals, network
 * errors, aborts. Messages never hold credentials: they name the host, the container or the path.
 */
import { FetchFailedError } from '../net/address-policy.js';
import { retryableNetworkCode } from '../net/retry.js';
import type { StorageErrorInfo } from './port.js';

/** A failure the adapter diagnosed: a stable code, the service's status if any, whether to retry. */
export class StorageFailure extends Error {
  readonly status?: number;
  readonly transient: boolean;

  constructor(
    readonly code: string,
    message: string,
    opts: { transient: boolean; status?: number; cause?: unknown },
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    Object.defineProperty(this, 'name', { value: 'StorageFailure', enumerable: false, configurable: true });
    this.transient = opts.transient;
    this.status = opts.status;
  }
}

/**
 * What any adapter's error says when it is one of the shared kinds, else `undefined`: a
 * `StorageFailure`, a guarded-fetch failure (forbidden address, timeout, HTTP status), an abort, a
 * Node network error.
 */
export function describeCommonError(err: unknown): StorageErrorInfo | undefined {
  if (err instanceof StorageFailure) return { code: err.code, status: err.status, message: err.message, transient: err.transient };
  if (err instanceof FetchFailedError) {
    return { code: err.failure, status: err.upstreamStatus, message: err.message, transient: err.retryable };
  }
  const e = err as { name?: string; code?: unknown; message?: string } | undefined;
  if (e?.name === 'AbortError') return { code: 'ABORTED', message: 'The transfer was aborted.', transient: false };
  if (e?.name === 'TimeoutError') return { code: 'TIMEOUT', message: e.message || 'The transfer timed out.', transient: true };
  if (typeof e?.code === 'string' && retryableNetworkCode(e.code)) {
    return { code: e.code, message: e.message || e.code, transient: true };
  }
  return undefined;
}

/** An abort as the error to throw: the signal's reason when it is an Error, else an `AbortError`. */
export function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The transfer was aborted.', 'AbortError');
}
