/**
 * The one rule for "may another try help?", for every request made to a server not ours: the guarded
 * client (import/url, export/upload, webhooks, custom endpoints) and the user-storage adapters (S3,
 * Azure, Google Cloud Storage, SFTP, Swift) answer with it, and the queue retries the task's step
 * (up to STEP_MAX_ATTEMPTS) only when it says yes.
 *
 * - An HTTP answer: 408 Request Timeout, 425 Too Early (RFC 8470 §5.2: the server refused early data
 *   and the request may be sent again), 429 Too Many Requests and every 5xx. Other statuses say the
 *   request itself is wrong, and say it again on every try.
 * - No answer (a network error): only the codes listed below, which name trouble that passes (a
 *   connection refused, reset or timed out, the name server's "try again", an unreachable host or
 *   network, a socket closed early). Every other code is final: a certificate that does not verify,
 *   a malformed answer, a host name that does not exist, an SDK's own error, a code not met before.
 *   Retrying those only delays by several backoffs the error the user needs to see.
 *
 * Retrying never depends on the method: what is retried is a whole step, which is idempotent (a
 * task's outputs are keyed by its id, a webhook carries an id its receiver can deduplicate).
 */

/** Statuses besides 5xx that say "try again later". */
const RETRYABLE_STATUSES = new Set([408, 425, 429]);

/** Network error codes (Node, undici) of trouble that passes. */
const RETRYABLE_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENETRESET',
  'ERR_SOCKET_CONNECTION_TIMEOUT',
  'ERR_STREAM_PREMATURE_CLOSE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Whether an HTTP status says another try may succeed. `undefined` (no answer) says nothing: false. */
export const retryableStatus = (status: number | undefined): boolean =>
  status !== undefined && (status >= 500 || RETRYABLE_STATUSES.has(status));

/** Whether a failure without an answer, by its error code, is trouble that passes. */
export const retryableNetworkCode = (code: string | undefined): boolean => code !== undefined && RETRYABLE_NETWORK_CODES.has(code);
