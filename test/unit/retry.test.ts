/**
 * The one retry rule (lib/adapters/net/retry.ts) and the two families of callers that answer with it:
 * the guarded client (`assertOk`, its network failures) and the user-storage adapters' shared errors.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { retryableNetworkCode, retryableStatus } from '#lib/adapters/net/retry.js';
import { assertOk, FetchFailedError, type GuardedResponse } from '#lib/adapters/net/guarded-fetch.js';
import { describeCommonError } from '#lib/adapters/user-storage/failure.js';

const answer = (status: number): GuardedResponse => ({
  status,
  statusText: '',
  headers: new Headers(),
  url: 'https://files.example.com/x',
  redirects: [],
  body: Readable.from([]),
});

/** What `assertOk` says of a status: passes, or whether its failure is retryable. */
function assertOkSays(status: number): 'ok' | boolean {
  try {
    assertOk(answer(status));
    return 'ok';
  } catch (err) {
    if (!(err instanceof FetchFailedError)) throw err;
    return err.retryable;
  }
}

const networkError = (code: string) => Object.assign(new Error(`connect ${code} 192.0.2.1:443`), { code });

describe('HTTP statuses', () => {
  it('retries 408, 425 Too Early (RFC 8470), 429 and every 5xx; no other status, and no answer', () => {
    for (const status of [408, 425, 429, 500, 502, 503, 504, 599]) expect(retryableStatus(status), String(status)).toBe(true);
    for (const status of [200, 301, 400, 401, 403, 404, 409, 410, 412, 413, 422, 426, 451]) expect(retryableStatus(status), String(status)).toBe(false);
    expect(retryableStatus(undefined)).toBe(false);
  });

  it('is the guarded client\'s rule for an answer that is not 2xx', () => {
    for (const status of [201, 204, 400, 404, 408, 425, 429, 451, 500, 503]) {
      expect(assertOkSays(status), String(status)).toBe(status < 300 ? 'ok' : retryableStatus(status));
    }
  });
});

describe('network failures', () => {
  const passing = ['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_SOCKET', 'UND_ERR_HEADERS_TIMEOUT', 'ERR_STREAM_PREMATURE_CLOSE'];
  const lasting = ['ENOTFOUND', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'ERR_TLS_CERT_ALTNAME_INVALID', 'HPE_INVALID_CONSTANT', 'ERR_INVALID_CHAR', 'ERR_HTTP_CONTENT_LENGTH_MISMATCH', 'EACCES', 'CredentialsProviderError', 'SOMETHING_NEW'];

  it('retries the codes of trouble that passes, and nothing else (a code not met before is final)', () => {
    for (const code of passing) expect(retryableNetworkCode(code), code).toBe(true);
    for (const code of lasting) expect(retryableNetworkCode(code), code).toBe(false);
    expect(retryableNetworkCode(undefined)).toBe(false);
  });

  it('is the storage adapters\' rule for a Node network error', () => {
    for (const code of passing) expect(describeCommonError(networkError(code))?.transient, code).toBe(true);
    // Not read as a network error at all: the adapter's own diagnosis decides (final).
    for (const code of lasting) expect(describeCommonError(networkError(code))?.transient ?? false, code).toBe(false);
  });
});
