/**
 * Secrets in task arguments (storage keys, tokens, private keys, passwords, credential headers):
 * hidden in every response and log line, and removed from the stored payload once the task ends.
 */

const SECRET_FIELD = /(secret|password|passphrase|token|private_key|access_key|sas|credential)/i;
const SECRET_HEADER = /(authorization|cookie|token|secret|key|signature|password|credential|session)/i;
/** Query parameters that carry credentials in signed URLs (S3/GCS presigned, Azure SAS `sig`, tokens, keys). */
const SECRET_QUERY = /(signature|credential|security-token|token|secret|passw|api[-_]?key|^key$|^sig$)/i;
export const HIDDEN = '[hidden]';

function hideHeaders(headers: unknown): unknown {
  if (!headers || typeof headers !== 'object') return headers;
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, SECRET_HEADER.test(k) ? HIDDEN : v]));
}

/** A URL with its userinfo and the values of credential-carrying query parameters hidden. */
function hideUrlCredentials(value: unknown): unknown {
  if (typeof value !== 'string' || !/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return value;
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return value;
  }
  const secretParams = [...u.searchParams.keys()].filter((k) => SECRET_QUERY.test(k));
  if (!u.username && !u.password && secretParams.length === 0) return value;
  u.username = u.username ? HIDDEN : '';
  u.password = u.password ? HIDDEN : '';
  for (const k of secretParams) u.searchParams.set(k, HIDDEN);
  return u.toString();
}

/** The secret values in a task payload (secret fields, credential headers, URL credentials), longest first. */
export function secretValues(payload: Record<string, unknown>): string[] {
  const found = new Set<string>();
  const add = (v: unknown) => {
    if (typeof v === 'string' && v.length >= 4) found.add(v);
  };
  for (const [k, v] of Object.entries(payload)) {
    if (k === 'headers' && v && typeof v === 'object') {
      for (const [h, hv] of Object.entries(v)) if (SECRET_HEADER.test(h)) add(hv);
    } else if (SECRET_FIELD.test(k)) {
      add(v);
    } else if (typeof v === 'string' && /^[a-z][a-z0-9+.-]*:\/\//i.test(v)) {
      try {
        const u = new URL(v);
        add(decodeURIComponent(u.password));
        for (const [q, qv] of u.searchParams) if (SECRET_QUERY.test(q)) add(qv);
      } catch {
        // not a URL after all
      }
    }
  }
  // Parts that may show up on their own: each line of a PEM key, each value of a SAS token.
  for (const secret of [...found]) {
    for (const line of secret.split(/\\n|\r?\n/)) if (line.length >= 16 && !line.startsWith('-----')) found.add(line.trim());
    if (/^\??[a-z]+=.+&/i.test(secret)) {
      for (const [, qv] of new URLSearchParams(secret.replace(/^\?/, ''))) if (qv.length >= 12) found.add(qv);
    }
  }
  return [...found].sort((a, b) => b.length - a.length);
}

/** `text` with every occurrence of a secret (as given, URL-encoded or JSON-escaped) replaced by `[hidden]`. */
export function hideSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    for (const form of new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)])) {
      if (form.length >= 4) out = out.split(form).join(HIDDEN);
    }
  }
  return out;
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
