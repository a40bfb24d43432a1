/**
 * What may be shown of the secrets a request carries: one rule for task payloads as the API shows them
 * and keeps them, task messages, log lines and webhook bodies.
 *
 * - Headers: an allowlist. Under a field named `headers` (or ending in `headers`) every value is hidden
 *   but those of a few headers that carry no credential (`Accept`, `Content-Type`, `User-Agent`…).
 * - Fields, at any depth: hidden when the name contains `secret`, `password`, `passwd`, `passphrase`,
 *   `token`, `signature`, `credential`, `session`, `cookie`, `authorization`, `apikey`, `privatekey`,
 *   `accesskey`, `accountkey`, `signingkey` (ignoring case, `-` and `_`), or has a word `auth`, `pwd`,
 *   `pass`, `sig`, `sas`, `jwt`, `otp`, `bearer`.
 * - URL query parameters and fragments: the same names, plus `key`, `k`, `code` and every `x-amz-…`
 *   and `x-goog-…` parameter; a URL's user-info is hidden whole.
 * - Free text (task messages, engine and storage errors, log messages): URLs anywhere in it get the URL
 *   rule, `name=value` pairs and `"name": "value"` pairs with a secret name and `Bearer …`/`Basic …`
 *   credentials are hidden, and so is every secret value of the task's own payload (as given,
 *   URL-encoded or JSON-escaped).
 *
 * Text is scanned with fixed expressions and bounded loops only: nothing is built from input.
 *
 * Headers a request sends on a user's behalf answer two questions, both here:
 * - may its value be shown (payloads, logs, messages)? Only for the allowlist (`isShownHeader`);
 * - does it carry a credential, which goes only to the origin it was given for (`isCredentialHeader`:
 *   dropped on a cross-origin redirect by lib/adapters/net/guarded-fetch.ts)? Any header with a
 *   secret field's name, and any naming `auth` or `passw`.
 * A header such as `X-Sig` (a signature the user's own server checks) is sent to the URL the user
 * named, hidden wherever it is shown, and not carried to another origin a redirect points at.
 */

export const HIDDEN = '[hidden]';
/** Nesting past this depth is hidden whole. */
const MAX_DEPTH = 32;
/** Secret values shorter than this are not searched for in text (they would match ordinary words). */
const MIN_SECRET_LENGTH = 4;

/** Headers whose values are shown; every other header's value is hidden. */
export const SHOWN_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'accept-charset',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'content-disposition',
  'content-encoding',
  'content-language',
  'content-length',
  'content-md5',
  'content-type',
  'dnt',
  'if-match',
  'if-modified-since',
  'if-none-match',
  'if-unmodified-since',
  'pragma',
  'range',
  'user-agent',
  'x-requested-with',
]);

const SECRET_FRAGMENTS = [
  'secret',
  'password',
  'passwd',
  'passphrase',
  'token',
  'signature',
  'credential',
  'session',
  'cookie',
  'authorization',
  'apikey',
  'privatekey',
  'accesskey',
  'accountkey',
  'signingkey',
];
const SECRET_WORDS = new Set(['auth', 'pwd', 'pass', 'sig', 'sas', 'jwt', 'otp', 'bearer']);
/** Names that are secret as URL parameters (an API key, an OAuth code) but ordinary as fields (an S3 object `key`). */
const SECRET_QUERY_NAMES = new Set(['key', 'k', 'code']);

/** A name's words: split on anything but letters and digits, and at lower-to-upper case changes. */
const wordsOf = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/** Whether a field (of a payload, a log line, a JSON text) holds a secret, by its name. */
export function isSecretField(name: string): boolean {
  const compact = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SECRET_FRAGMENTS.some((f) => compact.includes(f)) || wordsOf(name).some((w) => SECRET_WORDS.has(w));
}

/** Whether a URL query or fragment parameter holds a secret, by its name. */
export function isSecretParam(name: string): boolean {
  const lower = name.toLowerCase();
  return isSecretField(name) || SECRET_QUERY_NAMES.has(lower) || lower.startsWith('x-amz-') || lower.startsWith('x-goog-');
}

/** Whether a header's value may be shown (in payloads, logs and messages): the allowlist. */
export const isShownHeader = (name: string) => SHOWN_HEADERS.has(name.trim().toLowerCase());

/** Whether a header carries a credential, to be sent to the origin it was given for and no other. */
export const isCredentialHeader = (name: string) => isSecretField(name) || /auth|passw/i.test(name);

const isHeadersField = (name: string) => name.toLowerCase().endsWith('headers');

// ---------------------------------------------------------------------------------------------------
// Text

const safeDecode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** Characters that end a URL or a parameter value in free text. */
const ENDS_URL = new Set([' ', '\t', '\n', '\r', '"', "'", '<', '>', '`', '\\']);
/** Characters a URL parser drops wherever they are (WHATWG: ASCII tab and newline), so they do not end a URL's authority. */
const DROPPED_IN_URL = new Set(['\t', '\n', '\r']);
/**
 * Where a URL's authority starts: after `scheme://`, and after `http:`, `https:`, `ws:`, `wss:` or
 * `ftp:` followed by any slashes or backslashes, none included, since URL parsers read
 * `https:user:pass@host` and `https:\\user:pass@host` as `https://user:pass@host`.
 */
const AUTHORITY_START = /(?:\b(?:https?|wss?|ftp):[/\\]*|:\/\/)/gi;

/** Each URL authority in `text` that holds user-info: where it starts and where its last `@` is. */
function userinfoSpans(text: string): Array<{ start: number; at: number }> {
  const spans: Array<{ start: number; at: number }> = [];
  let scannedTo = 0;
  for (const m of text.matchAll(AUTHORITY_START)) {
    const start = m.index + m[0].length;
    if (start < scannedTo) continue;
    let end = start;
    let lastAt = -1;
    for (; end < text.length; end++) {
      const c = text[end]!;
      if (DROPPED_IN_URL.has(c)) continue;
      if (ENDS_URL.has(c) || c === '/' || c === '?' || c === '#') break;
      if (c === '@') lastAt = end;
    }
    scannedTo = end;
    if (lastAt > start) spans.push({ start, at: lastAt });
  }
  return spans;
}

/** `scheme://userinfo@` anywhere in the text: the user-info hidden. */
function hideUserinfo(text: string): string {
  let out = '';
  let from = 0;
  for (const { start, at } of userinfoSpans(text)) {
    out += text.slice(from, start) + HIDDEN;
    from = at;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** `?name=value`, `&name=value`, `#name=value` (any secret parameter name) and ` name=value` (secret field names). */
const PARAM = /(^|[?&;#\s,(])([A-Za-z0-9_.%-]{1,64})=([^&#;\s"'<>`\\,)]*)/g;
/** Whether a `name=value` follows a URL's `?`, `&` (also as `&amp;`), `;` or `#`: then URL parameter names count. */
const isParamSeparator = (sep: string) => sep === '?' || sep === '&' || sep === ';' || sep === '#';
/** `"name": "value"` in JSON-like text. */
const JSON_PAIR = /"([A-Za-z0-9_.-]{1,64})"(\s*:\s*)"((?:[^"\\]|\\.)*)"/g;
/** An HTTP credential written out: `Bearer <token>`, `Basic <base64>`. */
const SCHEME_CREDENTIAL = /\b(Bearer|Basic)(\s+)([A-Za-z0-9._~+/=-]{8,})/g;

/**
 * `Name: value` as in a header line or a printed object (`Authorization: Token …`, `{ password: 'x' }`)
 * with a secret name: the value hidden, quoted or up to the end of the line (or `,`, `;`, `}`).
 */
const COLON_NAME = /(^|[\s{,(;])([A-Za-z0-9_-]{1,64}):[ \t]*/g;
/** Where an unquoted `Name: value` value ends. */
const ENDS_COLON_VALUE = new Set(['\r', '\n', ',', ';', '}']);

function hideColonPairs(text: string): string {
  let out = '';
  let from = 0;
  for (const m of text.matchAll(COLON_NAME)) {
    const start = m.index + m[0].length;
    if (start <= from || !isSecretField(m[2]!)) continue;
    const quote = text[start] === "'" || text[start] === '"' ? text[start]! : '';
    let end = start + quote.length;
    if (quote) {
      while (end < text.length && text[end] !== quote && text[end] !== '\n') end++;
    } else {
      while (end < text.length && !ENDS_COLON_VALUE.has(text[end]!)) end++;
      while (end > start && (text[end - 1] === ' ' || text[end - 1] === '\t')) end--;
    }
    const value = text.slice(start + quote.length, end);
    if (!value || value === HIDDEN || value.startsWith('//')) continue;
    out += text.slice(from, start + quote.length) + HIDDEN;
    from = end;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** Whether a parameter or field name is secret, also when percent-encoded (`%74oken`). */
const secretName = (name: string, asParam: boolean) => {
  const plain = name.includes('%') ? safeDecode(name) : name;
  return asParam ? isSecretParam(plain) : isSecretField(plain);
};

function hideParams(text: string): string {
  return text
    .replace(SCHEME_CREDENTIAL, (_all, scheme: string, space: string) => `${scheme}${space}${HIDDEN}`)
    .replace(PARAM, (all, sep: string, name: string, value: string) => {
      if (!value || value === HIDDEN) return all;
      return secretName(name, isParamSeparator(sep)) ? `${sep}${name}=${HIDDEN}` : all;
    })
    .replace(JSON_PAIR, (all, name: string, colon: string, value: string) => (value && isSecretField(name) ? `"${name}"${colon}"${HIDDEN}"` : all));
}

/** `text` with every occurrence of the given secrets (as given, URL-encoded or JSON-escaped) hidden. */
export function hideSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    for (const form of new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)])) {
      if (form.length >= MIN_SECRET_LENGTH) out = out.split(form).join(HIDDEN);
    }
  }
  return out;
}

/** Free text as it may be shown: known secrets, URL user-info, secret parameters and credentials hidden. */
export function redactText(text: string, secrets: readonly string[] = []): string {
  return hideColonPairs(hideParams(hideUserinfo(hideSecrets(text, secrets))));
}

// ---------------------------------------------------------------------------------------------------
// Values

function redactHeaders(headers: unknown, secrets: readonly string[]): unknown {
  if (Array.isArray(headers)) {
    return headers.map((h) => {
      if (Array.isArray(h) && typeof h[0] === 'string') return [h[0], isShownHeader(h[0]) ? redactValue(h[1], secrets) : HIDDEN];
      if (h && typeof h === 'object' && typeof (h as { name?: unknown }).name === 'string') {
        const { name, ...rest } = h as { name: string };
        return isShownHeader(name) ? { name, ...(redactValue(rest, secrets) as object) } : { name, ...Object.fromEntries(Object.keys(rest).map((k) => [k, HIDDEN])) };
      }
      return HIDDEN;
    });
  }
  if (headers && typeof headers === 'object') {
    return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, isShownHeader(k) ? redactValue(v, secrets) : HIDDEN]));
  }
  return headers === undefined || headers === null || headers === '' ? headers : HIDDEN;
}

/**
 * A value (a payload, log fields) as it may be shown: secret fields and non-safe header values hidden
 * at any depth, text redacted, errors reduced to name, message and stack.
 */
export function redactValue(value: unknown, secrets: readonly string[] = [], depth = 0): unknown {
  if (typeof value === 'string') return redactText(value, secrets);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return HIDDEN;
  if (value instanceof Error) {
    return { name: value.name, message: redactText(value.message, secrets), stack: value.stack === undefined ? undefined : redactText(value.stack, secrets) };
  }
  if (Array.isArray(value)) return value.map((v) => redactValue(v, secrets, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => {
      if (isSecretField(k)) return [k, v === undefined || v === null || v === '' ? v : HIDDEN];
      if (isHeadersField(k)) return [k, redactHeaders(v, secrets)];
      return [k, redactValue(v, secrets, depth + 1)];
    }),
  );
}

// ---------------------------------------------------------------------------------------------------
// The secret values of a payload, to find them in text

/** Every string below a value. */
function stringsIn(value: unknown, out: string[], depth = 0): void {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number') out.push(String(value));
  else if (value && typeof value === 'object' && depth < MAX_DEPTH) for (const v of Object.values(value)) stringsIn(v, out, depth + 1);
}

/** Secret values inside a text: URL user-info, secret parameters. */
function secretsInText(text: string, out: string[]): void {
  for (const { start, at } of userinfoSpans(text)) {
    const userinfo = text.slice(start, at).replace(/[\t\n\r]/g, '');
    const colon = userinfo.indexOf(':');
    const secret = colon >= 0 ? userinfo.slice(colon + 1) : userinfo;
    out.push(safeDecode(secret), secret, text.slice(start, at));
  }
  for (const m of text.matchAll(PARAM)) {
    const [, sep, name, value] = m as unknown as [string, string, string, string];
    if (value && secretName(name, isParamSeparator(sep))) out.push(safeDecode(value), value);
  }
}

/** The secret values in a payload (secret fields, non-safe header values, URL credentials), longest first. */
export function secretValues(payload: unknown): string[] {
  const found: string[] = [];
  const walk = (value: unknown, depth: number) => {
    if (typeof value === 'string') return secretsInText(value, found);
    if (!value || typeof value !== 'object' || depth >= MAX_DEPTH) return;
    for (const [k, v] of Array.isArray(value) ? value.map((x, i) => [String(i), x] as const) : Object.entries(value)) {
      if (isSecretField(k)) {
        stringsIn(v, found);
      } else if (isHeadersField(k) && v && typeof v === 'object') {
        const values: string[] = [];
        if (Array.isArray(v)) stringsIn(v, values);
        else for (const [h, hv] of Object.entries(v)) if (!isShownHeader(h)) stringsIn(hv, values);
        for (const hv of values) {
          found.push(hv);
          // The credential part of `Bearer x`, `session=x; other=y`: it may show up on its own.
          for (const part of hv.split(/[\s;,=]+/)) if (part.length >= 8) found.push(part);
        }
      } else {
        walk(v, depth + 1);
      }
    }
  };
  walk(payload, 0);
  const all = new Set(found.filter((s) => s.length >= MIN_SECRET_LENGTH));
  // Parts that may show up on their own: each line of a PEM key, each value of a SAS token.
  for (const secret of [...all]) {
    for (const line of secret.split(/\\n|\r?\n/)) if (line.length >= 16 && !line.startsWith('-----')) all.add(line.trim());
    if (/^\??[a-z]+=.+&/i.test(secret)) {
      for (const [, qv] of new URLSearchParams(secret.replace(/^\?/, ''))) if (qv.length >= 12) all.add(qv);
    }
  }
  return [...all].sort((a, b) => b.length - a.length);
}

/** An error whose message and stack are redacted; the same error when nothing changes. */
export function redactError(err: unknown, secrets: readonly string[] = []): unknown {
  if (!(err instanceof Error)) return err;
  const message = redactText(err.message, secrets);
  const stack = err.stack === undefined ? undefined : redactText(err.stack, secrets);
  if (message === err.message && stack === err.stack) return err;
  const copy = Object.assign(Object.create(Object.getPrototypeOf(err) as object) as Error, err);
  Object.defineProperty(copy, 'message', { value: message, enumerable: false, writable: true, configurable: true });
  Object.defineProperty(copy, 'stack', { value: stack, enumerable: false, writable: true, configurable: true });
  return copy;
}
