/**
 * Secrets in task arguments (storage keys, tokens, private keys, passwords, credential headers):
 * hidden in every response and log line, and removed from the stored payload once the task ends.
 */

const SECRET_FIELD = /(secret|password|passphrase|token|private_key|access_key|sas|credential)/i;
const SECRET_HEADER = /(authorization|cookie|token|secret|key|signature|password|credential|session)/i;
export const HIDDEN = '[hidden]';

function hideHeaders(headers: unknown): unknown {
  if (!headers || typeof headers !== 'object') return headers;
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, SECRET_HEADER.test(k) ? HIDDEN : v]));
}

function hideUrlCredentials(value: unknown): unknown {
  if (typeof value !== 'string' || !/^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(value)) return value;
  try {
    const u = new URL(value);
    if (u.username || u.password) {
      u.username = u.username ? HIDDEN : '';
      u.password = u.password ? HIDDEN : '';
    }
    return u.toString();
  } catch {
    return value;
  }
}

/** The payload as it may be shown: secret fields and credential headers replaced. */
export function redactPayload(payload: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(payload).map(([k, v]) => {
      if (k === 'headers') return [k, hideHeaders(v)];
      if (SECRET_FIELD.test(k) && v !== undefined && v !== null && v !== '') return [k, HIDDEN];
      return [k, hideUrlCredentials(v)];
    }),
  );
}

/** The payload as it may be kept after the task ended; the same object when nothing changes. */
export function scrubPayload(payload: Record<string, unknown>): Record<string, unknown> {
  const redacted = redactPayload(payload);
  return JSON.stringify(redacted) === JSON.stringify(payload) ? payload : redacted;
}
