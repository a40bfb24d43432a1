/**
 * AWS Signature Version 4 as S3 checks it, for the local S3 endpoint (and the tests' stand-in for a
 * user's bucket): a request signed in its `Authorization` header, or presigned in its query
 * (`X-Amz-Signature`). The canonical request is rebuilt from what arrived — the path as sent (S3 does
 * not normalize or re-encode it), the query re-encoded and sorted, the signed headers — and its
 * signature compared in constant time with the one derived from the access key's secret.
 *
 * A failure names S3's error code and status: anonymous requests `403 AccessDenied`, a wrong signature
 * `403 SignatureDoesNotMatch`, an unknown key `403 InvalidAccessKeyId`, an expired URL `403 AccessDenied`,
 * a stale date `403 RequestTimeTooSkewed`, Signature Version 2 `400 InvalidRequest`.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export interface SigV4Key {
  secretAccessKey: string;
  /** When set, requests must carry it as `x-amz-security-token`. */
  sessionToken?: string;
}

export interface SigV4Request {
  method: string;
  /** The request target as received: raw path and query. */
  url: string;
  /** Lowercase header names; repeated headers as arrays (Node's `headersDistinct`). */
  headers: Record<string, string | string[] | undefined>;
}

export interface SigV4Failure {
  status: number;
  code: string;
  message: string;
  extra?: Record<string, string | number>;
}

/** How far a header-signed request's date may be from the server's clock (S3: 15 minutes). */
const MAX_SKEW_MS = 15 * 60 * 1000;
/** The longest validity of a presigned URL (S3: 7 days). */
const MAX_EXPIRES_SECONDS = 7 * 24 * 60 * 60;
const ALGORITHM = 'AWS4-HMAC-SHA256';

const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
const sha256Hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');

/** The SigV4 signing key of a secret for one day, region and service. */
export function signingKey(secretAccessKey: string, date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), service), 'aws4_request');
}

/** RFC 3986 encoding as SigV4 wants it: everything but unreserved characters. */
const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function decode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/** The query's parameters in order, decoded (`+` stays a plus, as S3 reads it). */
function queryPairs(query: string): Array<[string, string]> | undefined {
  const pairs: Array<[string, string]> = [];
  for (const part of query.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const name = decode(eq < 0 ? part : part.slice(0, eq));
    const value = decode(eq < 0 ? '' : part.slice(eq + 1));
    if (name === undefined || value === undefined) return undefined;
    pairs.push([name, value]);
  }
  return pairs;
}

const headerValue = (headers: SigV4Request['headers'], name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v.join(',') : v;
};

/** `YYYYMMDDTHHMMSSZ` as a time, or NaN. */
function parseAmzDate(value: string | undefined): number {
  const m = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/.exec(value ?? '');
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : NaN;
}

const failure = (status: number, code: string, message: string, extra?: Record<string, string | number>): SigV4Failure => ({ status, code, message, extra });
const anonymous = () => failure(403, 'AccessDenied', 'Access Denied');
const v2Refused = () =>
  failure(400, 'InvalidRequest', 'The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.');

interface Parsed {
  accessKeyId: string;
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
  amzDate: string;
}

function parseCredential(credential: string): Omit<Parsed, 'signedHeaders' | 'signature' | 'amzDate'> | undefined {
  const [accessKeyId, date, region, service, terminator, ...more] = credential.split('/');
  if (!accessKeyId || !date || !/^\d{8}$/.test(date) || !region || !service || terminator !== 'aws4_request' || more.length) return undefined;
  return { accessKeyId, date, region, service };
}

/**
 * Checks a request's SigV4 signature. Returns undefined when it holds, else the S3 error to answer.
 * `lookup` gives the secret of an access key id (undefined: unknown key).
 */
export function verifySigV4(req: SigV4Request, lookup: (accessKeyId: string) => SigV4Key | undefined, now: Date = new Date()): SigV4Failure | undefined {
  const q = req.url.indexOf('?');
  const path = (q < 0 ? req.url : req.url.slice(0, q)) || '/';
  const pairs = queryPairs(q < 0 ? '' : req.url.slice(q + 1));
  if (!pairs) return failure(400, 'InvalidArgument', 'The query string is not well-formed.');
  const query = new Map<string, string>();
  for (const [k, v] of pairs) if (!query.has(k)) query.set(k, v);
  const authorization = headerValue(req.headers, 'authorization');
  const presigned = query.has('X-Amz-Algorithm') || query.has('X-Amz-Signature');

  if (authorization !== undefined && presigned) {
    return failure(400, 'InvalidArgument', 'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified', {
      ArgumentName: 'Authorization',
    });
  }
  let parsed: Parsed;
  if (authorization !== undefined) {
    if (/^AWS /.test(authorization)) return v2Refused();
    if (!authorization.startsWith(`${ALGORITHM} `)) return failure(400, 'InvalidArgument', 'Unsupported Authorization Type', { ArgumentName: 'Authorization' });
    const fields = new Map<string, string>();
    for (const part of authorization.slice(ALGORITHM.length + 1).split(',')) {
      const eq = part.indexOf('=');
      if (eq > 0) fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
    }
    const credential = parseCredential(fields.get('Credential') ?? '');
    const signature = fields.get('Signature') ?? '';
    const signedHeaders = fields.get('SignedHeaders') ?? '';
    const amzDate = headerValue(req.headers, 'x-amz-date') ?? '';
    if (!credential || !/^[0-9a-f]{64}$/.test(signature) || !signedHeaders) {
      return failure(400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed.');
    }
    if (Number.isNaN(parseAmzDate(amzDate))) {
      return failure(403, 'AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
    }
    parsed = { ...credential, signature, signedHeaders: signedHeaders.split(';'), amzDate };
  } else if (presigned) {
    const algorithm = query.get('X-Amz-Algorithm');
    if (algorithm !== ALGORITHM) {
      return failure(400, 'AuthorizationQueryParametersError', 'X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"');
    }
    const credential = parseCredential(query.get('X-Amz-Credential') ?? '');
    const signature = query.get('X-Amz-Signature') ?? '';
    const signedHeaders = query.get('X-Amz-SignedHeaders') ?? '';
    const amzDate = query.get('X-Amz-Date') ?? '';
    const expires = Number(query.get('X-Amz-Expires'));
    if (!credential || !/^[0-9a-f]{64}$/.test(signature) || !signedHeaders || Number.isNaN(parseAmzDate(amzDate))) {
      return failure(400, 'AuthorizationQueryParametersError', 'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.');
    }
    if (!Number.isInteger(expires) || expires < 1 || expires > MAX_EXPIRES_SECONDS) {
      return failure(400, 'AuthorizationQueryParametersError', 'X-Amz-Expires must be a number of seconds from 1 to 604800.');
    }
    const signedAt = parseAmzDate(amzDate);
    if (now.getTime() > signedAt + expires * 1000) {
      return failure(403, 'AccessDenied', 'Request has expired', {
        'X-Amz-Expires': expires,
        Expires: new Date(signedAt + expires * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        ServerTime: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      });
    }
    if (signedAt - now.getTime() > MAX_SKEW_MS) return failure(403, 'AccessDenied', 'Request is not valid yet');
    parsed = { ...credential, signature, signedHeaders: signedHeaders.split(';'), amzDate };
  } else {
    if (query.has('Signature') || query.has('AWSAccessKeyId')) return v2Refused();
    return anonymous();
  }

  if (parsed.amzDate.slice(0, 8) !== parsed.date) {
    return failure(400, 'AuthorizationHeaderMalformed', `Invalid credential date "${parsed.date}". This date is not the same as X-Amz-Date: "${parsed.amzDate.slice(0, 8)}".`);
  }
  if (parsed.service !== 's3') return failure(400, 'AuthorizationHeaderMalformed', `The credential should be scoped to the service 's3', not '${parsed.service}'.`);
  if (!parsed.signedHeaders.includes('host')) return failure(403, 'AccessDenied', 'The host header must be signed.');
  if (authorization !== undefined && Math.abs(parseAmzDate(parsed.amzDate) - now.getTime()) > MAX_SKEW_MS) {
    return failure(403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.', {
      RequestTime: parsed.amzDate,
      ServerTime: now.toISOString(),
      MaxAllowedSkewMilliseconds: MAX_SKEW_MS,
    });
  }
  const key = lookup(parsed.accessKeyId);
  if (!key) {
    return failure(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.', { AWSAccessKeyId: parsed.accessKeyId });
  }
  const token = headerValue(req.headers, 'x-amz-security-token') ?? query.get('X-Amz-Security-Token');
  if (key.sessionToken !== undefined ? token !== key.sessionToken : token !== undefined) {
    return failure(403, 'InvalidToken', 'The provided token is malformed or otherwise invalid.');
  }

  const canonicalQuery = pairs
    .filter(([k]) => !(presigned && k === 'X-Amz-Signature'))
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalHeaders = parsed.signedHeaders
    .map((name) => {
      const raw = req.headers[name];
      const values = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map((v) => v.trim().replace(/\s+/g, ' '));
      return `${name}:${values.join(',')}\n`;
    })
    .join('');
  const payloadHash = headerValue(req.headers, 'x-amz-content-sha256') ?? (presigned ? (query.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD') : undefined);
  if (payloadHash === undefined) {
    return failure(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
  }
  const canonicalRequest = [req.method, path, canonicalQuery, canonicalHeaders, parsed.signedHeaders.join(';'), payloadHash].join('\n');
  const scope = `${parsed.date}/${parsed.region}/${parsed.service}/aws4_request`;
  const stringToSign = [ALGORITHM, parsed.amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const expected = createHmac('sha256', signingKey(key.secretAccessKey, parsed.date, parsed.region, parsed.service)).update(stringToSign, 'utf8').digest();
  if (!timingSafeEqual(expected, Buffer.from(parsed.signature, 'hex'))) {
    return failure(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.', {
      AWSAccessKeyId: parsed.accessKeyId,
      StringToSign: stringToSign,
      SignatureProvided: parsed.signature,
      CanonicalRequest: canonicalRequest,
    });
  }
  return undefined;
}
