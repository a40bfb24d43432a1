/**
 * The two questions a header sent on a user's behalf answers (lib/kernel/redact.ts): may its value be
 * shown, and does it carry a credential that stays with its origin (dropped on a cross-origin redirect).
 */
import { describe, expect, it } from 'vitest';
import { isCredentialHeader, isShownHeader, redactValue, SHOWN_HEADERS } from '#lib/kernel/redact.js';

const CREDENTIALS = [
  'Authorization',
  'Proxy-Authorization',
  'Cookie',
  'X-Api-Key',
  'api_key',
  'X-Auth-Token',
  'X-Authentication',
  'X-Amz-Security-Token',
  'X-Session-Id',
  'X-Client-Secret',
  'X-Hub-Signature-256',
  'X-Sig',
  'X-Jwt',
  'X-Password',
  'X-Access-Key',
];
const ORDINARY = ['Accept', 'Content-Type', 'User-Agent', 'X-Trace', 'X-Request-Id', 'If-Match', 'Range', 'X-Signed-Off'];

describe('headers that carry a credential', () => {
  it('are the secret-named ones and those naming auth or a password, whatever their case', () => {
    for (const name of CREDENTIALS) {
      expect(isCredentialHeader(name), name).toBe(true);
      expect(isCredentialHeader(name.toLowerCase()), name).toBe(true);
    }
    for (const name of ORDINARY) expect(isCredentialHeader(name), name).toBe(false);
  });

  it('are never among the headers whose values are shown', () => {
    for (const name of SHOWN_HEADERS) expect(isCredentialHeader(name), name).toBe(false);
    for (const name of CREDENTIALS) expect(isShownHeader(name), name).toBe(false);
  });

  it('X-Sig: its value is hidden where a payload is shown', () => {
    const shown = redactValue({ headers: { 'X-Sig': 'hmac-0123456789abcdef', Accept: 'application/json' } }) as { headers: Record<string, string> };
    expect(shown.headers).toEqual({ 'X-Sig': '[hidden]', Accept: 'application/json' });
  });
});
