/**
 * Signed URLs as the SDKs build them (`signedUrls.sign(base, signingSecret, job, cacheKey)`):
 *
 *   {base}?job={base64 of the job's JSON}[&cache_key={key}]&s={hex HMAC-SHA256 of everything before "&s="}
 *
 * The Node SDK makes the base64 "URL-safe" by replacing only the first `+` and the first `/` and
 * dropping the `=` padding, so a job parameter may hold both alphabets at once; it encodes nothing
 * else. This module takes such a query apart, checks its signature over the URL exactly as it was
 * signed, and decodes the job leniently. Pure: no I/O.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../kernel/errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../http/middleware/json-body.js';

/**
 * The largest job JSON a signed URL may carry, decoded. API Gateway takes a request line and headers of
 * about 10 KB, so a real signed URL stays far below it; the bound keeps a crafted one cheap to refuse.
 */
export const MAX_SIGNED_JOB_BYTES = 16 * 1024;
/** The longest `cache_key`. */
export const MAX_CACHE_KEY_LENGTH = 256;

const SIGNATURE_SEPARATOR = '&s=';
/**
 * The signature exactly as the SDKs write it: lower-case hex. Upper-case digits decode to the same
 * bytes, but a URL with a changed character is a different URL and is refused.
 */
const HEX_SHA256 = /^[0-9a-f]{64}$/;

export interface SignedQuery {
  /** The query as it was signed: everything before the last `&s=`, as received. */
  signed: string;
  /** The hex signature (`s`). */
  signature: string;
  /** Parameters after the signature, not covered by it (only `run`, set by our own re-wait redirect). */
  unsigned: Map<string, string>;
}

/** Splits the raw query at its signature; undefined when there is none (no `&s=`). */
export function splitSignedQuery(rawQuery: string): SignedQuery | undefined {
  const at = rawQuery.lastIndexOf(SIGNATURE_SEPARATOR);
  if (at < 0) return undefined;
  const [signature = '', ...rest] = rawQuery.slice(at + SIGNATURE_SEPARATOR.length).split('&');
  const unsigned = new Map<string, string>();
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq > 0) unsigned.set(part.slice(0, eq), part.slice(eq + 1));
  }
  return { signed: rawQuery.slice(0, at), signature, unsigned };
}

/** `%XX` escapes undone (never `+`, which is a base64 character here); undefined when malformed. */
export function percentDecoded(text: string): string | undefined {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** Constant-time check of a hex HMAC-SHA256 of `message` under `secret`. */
export function hmacMatches(secret: string | Buffer, message: string, signatureHex: string): boolean {
  if (!HEX_SHA256.test(signatureHex)) return false;
  const expected = createHmac('sha256', secret).update(message, 'utf8').digest();
  return timingSafeEqual(expected, Buffer.from(signatureHex, 'hex'));
}

/**
 * The signed URL string that `signature` signs, or undefined. It is the base as stored plus `?` and the
 * query before `&s=` as received; when that fails and the query holds `%` escapes, the same with them
 * undone, because clients and local gateways may escape characters the signer wrote raw (`/` as
 * `%2F`, a space as `%20`). No parameter is re-serialised: only someone holding the secret can have
 * signed either string, and the parameters are then read from the string that was signed.
 */
export function verifiedUrl(secret: string | Buffer, base: string, query: SignedQuery): string | undefined {
  const raw = `${base}?${query.signed}`;
  if (hmacMatches(secret, raw, query.signature)) return query.signed;
  const decoded = percentDecoded(query.signed);
  if (decoded !== undefined && decoded !== query.signed && hmacMatches(secret, `${base}?${decoded}`, query.signature)) return decoded;
  return undefined;
}

const invalidJob = (message: string) => new ApiError('INVALID_ARGUMENT', 'The given data was invalid.', { fields: { job: [message] } });

export interface SignedParameters {
  /** The `job` parameter as signed (base64 in either alphabet). */
  job: string;
  cacheKey?: string;
}

/** `job` and `cache_key` of a signed query (422 when `job` is missing or a parameter is repeated). */
export function signedParameters(signed: string): SignedParameters {
  const seen = new Map<string, string>();
  for (const part of signed.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? '' : part.slice(eq + 1);
    if (seen.has(name)) {
      throw new ApiError('INVALID_ARGUMENT', 'The given data was invalid.', { fields: { [name]: ['This parameter appears more than once.'] } });
    }
    seen.set(name, value);
  }
  const job = seen.get('job');
  if (!job) throw invalidJob('The job parameter is required: the base64 of the job JSON.');
  const cacheKey = seen.get('cache_key');
  if (cacheKey !== undefined) {
    const key = percentDecoded(cacheKey) ?? cacheKey;
    if (key.length > MAX_CACHE_KEY_LENGTH) {
      throw new ApiError('INVALID_ARGUMENT', 'The given data was invalid.', {
        fields: { cache_key: [`The cache key may be at most ${MAX_CACHE_KEY_LENGTH} characters long.`] },
      });
    }
    return key ? { job, cacheKey: key } : { job };
  }
  return { job };
}

/**
 * The job of a `job` parameter (its JSON text and value), decoded leniently: the standard and the URL-safe alphabet (even
 * mixed, as the Node SDK makes it), with or without `=` padding, `%` escapes undone and a space read
 * as the `+` a form decoder turned into one. Anything else is a 422 under `job`.
 */
export function decodeSignedJob(param: string): { json: string; job: unknown } {
  const text = (percentDecoded(param) ?? param).replaceAll(' ', '+');
  const maxChars = Math.ceil((MAX_SIGNED_JOB_BYTES * 4) / 3) + 2;
  if (text.length > maxChars) throw invalidJob(`The job may be at most ${MAX_SIGNED_JOB_BYTES} bytes of JSON.`);
  const body = text.endsWith('==') ? text.slice(0, -2) : text.endsWith('=') ? text.slice(0, -1) : text;
  if (!/^[A-Za-z0-9+/_-]*$/.test(body) || body.length % 4 === 1) throw invalidJob('The job parameter is not base64.');
  const bytes = Buffer.from(body.replaceAll('-', '+').replaceAll('_', '/'), 'base64');
  let json: string;
  try {
    json = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw invalidJob('The job parameter does not decode to UTF-8 text.');
  }
  if (nestsDeeperThan(json, MAX_JSON_DEPTH)) throw invalidJob(`The job nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`);
  try {
    return { json, job: JSON.parse(json) as unknown };
  } catch {
    throw invalidJob('The job parameter does not decode to JSON.');
  }
}
