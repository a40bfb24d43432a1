/**
 * The local S3 endpoint: an HTTP server in front of s3rver that closes the gaps between s3rver and S3
 * for browser-form (presigned POST) uploads, and proxies everything else to s3rver unchanged.
 *
 * What s3rver 3.7.1 gets wrong on `POST /<bucket>` with `multipart/form-data`, and what this does:
 * - it parses with busboy 0.3.1, which misreads SDK-style parts (`content-disposition:form-data;name="file";
 *   filename=my report.pdf` — lowercase, no spaces, unquoted filename with spaces) as text fields and stores
 *   utf-8-mangled bytes. Here the parts are parsed leniently and re-emitted as well-formed multipart;
 * - it stores `${filename}` in the key literally. Here every field's `${filename}` is replaced by the base
 *   name of the uploaded file, as S3 does, and user metadata that is not US-ASCII is stored RFC 2047-encoded,
 *   as S3 answers it;
 * - it checks nothing of the POST policy. Here the policy is verified as S3 does (SigV4 or legacy V2
 *   signature, expiration, every condition, `content-length-range`, no unconditioned fields), with S3's
 *   XML errors and status codes;
 * - it checks no SigV4 signature (it only looks the access key up), so anyone reaching the port could
 *   read and write every object. Here every other request must be signed with the local credentials, in
 *   its `Authorization` header or presigned in its query (local/sigv4.ts); only CORS preflights
 *   (`OPTIONS`) go through unsigned. An unsigned or tampered request is `403` in S3's XML format;
 * - it maps buckets, keys, upload ids and part numbers straight onto file paths, so a `..` reaches any
 *   file. Here such requests are refused with `400` (local/s3-confine.ts), and a request whose Host
 *   would make s3rver take the bucket from the host name goes on as path-style.
 *
 * The file part is never held in memory. It streams (with back-pressure) into a spool file and s3rver
 * gets the upload only once it is complete, within `content-length-range` and the request has ended: s3rver
 * writes an upload straight to the object's final path, so an upload cut off half-way (size limit, client
 * gone) would otherwise leave a partial object behind — and overwrite the previous one. S3 itself only
 * makes an object visible once the whole upload has arrived, so the client sees the same behaviour.
 */
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { deleteListProblem, isDeleteObjects, isPathStyleHost, keyProblem, requestProblem, type S3Problem } from './s3-confine.js';
import { redactText } from '../lib/kernel/redact.js';
import { signingKey, verifySigV4 } from './sigv4.js';
import { trimEnd } from '../lib/kernel/text.js';
import { keepIdleConnections } from './idle.js';

export interface S3FrontOptions {
  /** s3rver's base URL, e.g. `http://127.0.0.1:4569`. */
  target: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /**
   * The credentials every request and presigned POST policy must be signed with (locally s3rver's
   * `S3RVER`/`S3RVER`); with a session token, signed requests must carry it too.
   */
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Where form uploads are spooled while they arrive; a private folder under the OS temp dir by default. */
  spoolDir?: string;
  /** Size cap of the form fields before the file part (S3: 20 KB). */
  maxPreDataBytes?: number;
  log?: (line: string) => void;
}

export interface S3Front {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** S3's own upper bound for a POST upload (5 GB). */
const MAX_POST_OBJECT_SIZE = 5 * 1024 ** 3;
/** S3 rejects POSTs whose fields before the file exceed 20 KB. */
const DEFAULT_MAX_PRE_DATA = 20 * 1024;
/** Size cap of one part's header block. */
const MAX_PART_HEADER_BYTES = 16 * 1024;
/** Size cap of a multi-object delete's body (S3: at most 1000 keys of up to 1024 bytes). */
const MAX_DELETE_BODY_BYTES = 2 * 1024 * 1024;
/** After an early error answer, how much more of the request is read (and discarded) before the connection is cut. */
const MAX_DRAIN_BYTES = 64 * 1024 * 1024;

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

// ---------------------------------------------------------------------------------------------------------
// S3 errors

/** An error answered in S3's XML error format. */
export class S3PostError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, string | number> = {},
  ) {
    super(message);
    this.name = 'S3PostError';
  }
}

const xmlEscape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

export function s3ErrorXml(err: S3PostError, requestId: string): string {
  const extra = Object.entries(err.extra)
    .map(([k, v]) => `<${k}>${xmlEscape(String(v))}</${k}>`)
    .join('');
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${xmlEscape(err.code)}</Code><Message>${xmlEscape(err.message)}</Message>${extra}` +
    `<RequestId>${requestId}</RequestId><HostId>${createHash('sha256').update(requestId).digest('base64')}</HostId></Error>`
  );
}

const fromProblem = (p: S3Problem) => new S3PostError(p.status, p.code, p.message, p.extra);

const malformedPost = () =>
  new S3PostError(400, 'MalformedPOSTRequest', 'The body of your POST request is not well-formed multipart/form-data.');
const missingField = (name: string) =>
  new S3PostError(
    400,
    'InvalidArgument',
    `Bucket POST must contain a field named '${name}'.  If it is specified, please check the order of the fields.`,
    { ArgumentName: name, ArgumentValue: '' },
  );
const policyFailure = (detail: string) => new S3PostError(403, 'AccessDenied', `Invalid according to Policy: ${detail}`);
const invalidPolicy = (detail: string) => new S3PostError(400, 'InvalidPolicyDocument', `Invalid Policy: ${detail}`);

// ---------------------------------------------------------------------------------------------------------
// Lenient multipart parsing

export interface ContentDisposition {
  type: string;
  name?: string;
  filename?: string;
}

function decodeExtValue(value: string): string | undefined {
  // RFC 5987: charset'language'percent-encoded
  const m = /^([^']*)'[^']*'(.*)$/.exec(value.trim().replace(/^"(.*)"$/, '$1'));
  if (!m) return undefined;
  const bytes: number[] = [];
  const encoded = m[2] ?? '';
  for (let i = 0; i < encoded.length; i++) {
    const c = encoded[i]!;
    if (c === '%' && /^[0-9a-fA-F]{2}$/.test(encoded.slice(i + 1, i + 3))) {
      bytes.push(parseInt(encoded.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(c, 'utf8'));
    }
  }
  const charset = (m[1] ?? '').toLowerCase();
  const buf = Buffer.from(bytes);
  return charset === 'iso-8859-1' || charset === 'latin1' ? buf.toString('latin1') : buf.toString('utf8');
}

/**
 * Parses a part's Content-Disposition leniently: any case, optional spaces, quoted or unquoted values.
 * An unquoted `filename` runs to the end of the line (it may contain spaces and `;`), unless a further
 * `; name=` or `; filename*=` parameter follows it; `filename*=UTF-8''…` (RFC 5987) wins over `filename`.
 * Inside quotes, `\"` and `\\` are escapes and a quote only closes the value when `;` or the end of the
 * line follows it (other backslashes stay, so Windows paths survive).
 */
export function parseContentDisposition(header: string): ContentDisposition {
  const semi = header.indexOf(';');
  const type = (semi < 0 ? header : header.slice(0, semi)).trim().toLowerCase();
  const params = new Map<string, string>();
  let i = semi < 0 ? header.length : semi + 1;
  while (i < header.length) {
    while (i < header.length && /[\s;]/.test(header[i]!)) i++;
    if (i >= header.length) break;
    const eq = header.indexOf('=', i);
    const nextSemi = header.indexOf(';', i);
    if (eq < 0 || (nextSemi >= 0 && nextSemi < eq)) {
      // a parameter without a value: skip it
      i = nextSemi < 0 ? header.length : nextSemi + 1;
      continue;
    }
    const name = header.slice(i, eq).trim().toLowerCase();
    i = eq + 1;
    while (i < header.length && (header[i] === ' ' || header[i] === '\t')) i++;
    let value: string;
    if (header[i] === '"') {
      let j = i + 1;
      let out = '';
      let closed = false;
      while (j < header.length) {
        const c = header[j]!;
        if (c === '\\' && (header[j + 1] === '"' || header[j + 1] === '\\')) {
          out += header[j + 1];
          j += 2;
        } else if (c === '"' && /^\s*(;|$)/.test(header.slice(j + 1))) {
          closed = true;
          j++;
          break;
        } else {
          out += c;
          j++;
        }
      }
      value = closed ? out : out.replace(/"\s*$/, '');
      const after = header.indexOf(';', j);
      i = after < 0 ? header.length : after + 1;
    } else if (name === 'filename') {
      const rest = header.slice(i);
      const cut = /;\s*(?:name|filename\*)\s*=/i.exec(rest);
      value = (cut ? rest.slice(0, cut.index) : rest).trimEnd();
      i = cut ? i + cut.index + 1 : header.length;
    } else {
      const end = header.indexOf(';', i);
      value = (end < 0 ? header.slice(i) : header.slice(i, end)).trim();
      i = end < 0 ? header.length : end + 1;
    }
    if (name === 'filename*') {
      const decoded = decodeExtValue(value);
      if (decoded !== undefined && !params.has(name)) params.set(name, decoded);
    } else if (!params.has(name)) {
      params.set(name, value);
    }
  }
  return { type, name: params.get('name'), filename: params.get('filename*') ?? params.get('filename') };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
/** Header bytes as UTF-8 (what browsers and the SDKs send), or Latin-1 when they are not valid UTF-8. */
function decodeHeaderBytes(raw: Buffer): string {
  try {
    return utf8.decode(raw);
  } catch {
    return raw.toString('latin1');
  }
}

/** A part's headers: names lowercased, values trimmed, folded lines joined; CRLF or bare LF. */
export function parsePartHeaders(raw: Buffer): Map<string, string> {
  const headers = new Map<string, string>();
  const lines: string[] = [];
  for (const line of decodeHeaderBytes(raw).split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && lines.length) lines[lines.length - 1] += ' ' + line.trim();
    else if (line.trim()) lines.push(line);
  }
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return headers;
}

export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^\s*multipart\/form-data\s*(;|$)/i.test(contentType)) return undefined;
  const m = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  return boundary && boundary.length <= 200 ? boundary : undefined;
}

type MultipartEvent = { kind: 'headers'; raw: Buffer; bodyStart: number } | { kind: 'data'; data: Buffer } | { kind: 'partEnd' } | { kind: 'end' };

const CRLF = Buffer.from('\r\n');
const CRLFCRLF = Buffer.from('\r\n\r\n');

/**
 * An incremental multipart/form-data scanner: push chunks, get events. Part bodies are handed on as they
 * arrive; only the last `delimiter.length - 1` bytes are held back (they may begin a delimiter).
 */
export class MultipartScanner {
  private state: 'preamble' | 'afterDelimiter' | 'headers' | 'body' | 'epilogue' = 'preamble';
  private readonly delimiter: Buffer;
  /** The leading CRLF lets a body that starts with the delimiter (no preamble) match `\r\n--boundary`. */
  private buf: Buffer = CRLF;
  /** Bytes consumed so far (offsets into the request body, the leading CRLF excluded). */
  private consumed = -2;

  constructor(boundary: string) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  }

  push(chunk: Buffer): MultipartEvent[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const events: MultipartEvent[] = [];
    for (;;) {
      if (this.state === 'epilogue') {
        this.take(this.buf.length);
        return events;
      }
      if (this.state === 'preamble' || this.state === 'body') {
        const idx = this.buf.indexOf(this.delimiter);
        if (idx < 0) {
          const safe = this.buf.length - (this.delimiter.length - 1);
          if (safe > 0) {
            const data = this.take(safe);
            if (this.state === 'body') events.push({ kind: 'data', data });
          }
          return events;
        }
        const data = this.take(idx);
        if (this.state === 'body') {
          if (data.length) events.push({ kind: 'data', data });
          events.push({ kind: 'partEnd' });
        }
        this.take(this.delimiter.length);
        this.state = 'afterDelimiter';
        continue;
      }
      if (this.state === 'afterDelimiter') {
        if (this.buf.length < 2) return events;
        if (this.buf[0] === 0x2d && this.buf[1] === 0x2d) {
          this.state = 'epilogue';
          events.push({ kind: 'end' });
          continue;
        }
        const lf = this.buf.indexOf(0x0a);
        if (lf < 0) {
          if (this.buf.length > 256) throw malformedPost();
          return events;
        }
        // transport padding (spaces/tabs) may precede the CRLF
        if (!/^[ \t]*\r?$/.test(this.buf.subarray(0, lf).toString('latin1'))) throw malformedPost();
        this.take(lf + 1);
        this.state = 'headers';
        continue;
      }
      // headers
      if (this.buf.length >= 2 && this.buf[0] === 0x0d && this.buf[1] === 0x0a) {
        this.take(2);
        events.push({ kind: 'headers', raw: Buffer.alloc(0), bodyStart: this.consumed });
        this.state = 'body';
        continue;
      }
      const end = this.buf.indexOf(CRLFCRLF);
      if (end < 0) {
        if (this.buf.length > MAX_PART_HEADER_BYTES) throw malformedPost();
        return events;
      }
      const raw = Buffer.from(this.take(end));
      this.take(CRLFCRLF.length);
      events.push({ kind: 'headers', raw, bodyStart: this.consumed });
      this.state = 'body';
    }
  }

  /** The body has ended: it is well-formed when the closing delimiter was seen. */
  end(): MultipartEvent[] {
    if (this.state === 'epilogue') return [];
    // lenient: a final delimiter without the closing `--`
    if (this.state === 'afterDelimiter' && !this.buf.toString('latin1').trim()) {
      this.state = 'epilogue';
      return [{ kind: 'end' }];
    }
    throw malformedPost();
  }

  private take(n: number): Buffer {
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    this.consumed += n;
    return out;
  }
}

// ---------------------------------------------------------------------------------------------------------
// POST policy

export interface FormField {
  name: string;
  value: string;
}

export interface PolicyLimits {
  minSize: number;
  maxSize: number;
}

const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A condition as S3 quotes it in its errors: `["eq", "$key", "value"]`. */
const conditionText = (c: unknown) => (Array.isArray(c) ? `[${c.map((x) => JSON.stringify(x)).join(', ')}]` : JSON.stringify(c));

/** Fields that need no policy condition. */
const isExemptField = (name: string) =>
  ['file', 'policy', 'x-amz-signature', 'signature', 'awsaccesskeyid'].includes(name) || name.startsWith('x-ignore-');

/**
 * Verifies a browser-form POST as S3 does, from the fields before the file (values as submitted, before
 * `${filename}` substitution). Returns the `content-length-range` limits; throws an S3PostError.
 */
export function verifyPostPolicy(
  fields: readonly FormField[],
  bucket: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
  now: Date = new Date(),
): PolicyLimits {
  const values = new Map<string, string>();
  for (const f of fields) {
    const name = f.name.toLowerCase();
    if (!values.has(name)) values.set(name, f.value);
  }
  const policy = values.get('policy');
  if (policy === undefined) {
    // An anonymous upload: S3 allows it only into a publicly writable bucket.
    throw new S3PostError(403, 'AccessDenied', 'Access Denied');
  }

  // The signature (over the base64 policy as submitted).
  const v4Signature = values.get('x-amz-signature');
  if (v4Signature !== undefined) {
    const algorithm = values.get('x-amz-algorithm');
    if (algorithm === undefined) throw missingField('x-amz-algorithm');
    if (algorithm !== 'AWS4-HMAC-SHA256') {
      throw new S3PostError(400, 'InvalidArgument', `Unsupported algorithm: ${algorithm}`, { ArgumentName: 'x-amz-algorithm', ArgumentValue: algorithm });
    }
    const credential = values.get('x-amz-credential');
    if (credential === undefined) throw missingField('x-amz-credential');
    if (values.get('x-amz-date') === undefined) throw missingField('x-amz-date');
    const [accessKeyId, date, region, service, terminator, ...more] = credential.split('/');
    if (!accessKeyId || !date || !/^\d{8}$/.test(date) || !region || !service || terminator !== 'aws4_request' || more.length) {
      throw new S3PostError(400, 'InvalidArgument', `Invalid credential: ${credential}`, { ArgumentName: 'x-amz-credential', ArgumentValue: credential });
    }
    if (accessKeyId !== credentials.accessKeyId) {
      throw new S3PostError(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.', { AWSAccessKeyId: accessKeyId });
    }
    if (!sameSecret(hmac(signingKey(credentials.secretAccessKey, date, region, service), policy).toString('hex'), v4Signature.toLowerCase())) {
      throw new S3PostError(
        403,
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
        { AWSAccessKeyId: accessKeyId, StringToSign: policy },
      );
    }
  } else if (values.get('signature') !== undefined) {
    const accessKeyId = values.get('awsaccesskeyid');
    if (accessKeyId === undefined) throw missingField('AWSAccessKeyId');
    if (accessKeyId !== credentials.accessKeyId) {
      throw new S3PostError(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.', { AWSAccessKeyId: accessKeyId });
    }
    const expected = createHmac('sha1', credentials.secretAccessKey).update(policy, 'utf8').digest('base64');
    if (!sameSecret(expected, values.get('signature')!)) {
      throw new S3PostError(
        403,
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
        { AWSAccessKeyId: accessKeyId, StringToSign: policy },
      );
    }
  } else {
    throw missingField('x-amz-signature');
  }

  // The policy document.
  let doc: unknown;
  try {
    if (!/^[A-Za-z0-9+/=\s]*$/.test(policy)) throw new Error('not base64');
    doc = JSON.parse(Buffer.from(policy, 'base64').toString('utf8'));
  } catch {
    throw invalidPolicy('Invalid JSON.');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw invalidPolicy('Invalid JSON.');
  const { expiration, conditions } = doc as { expiration?: unknown; conditions?: unknown };
  if (expiration === undefined) throw invalidPolicy('Policy missing expiration.');
  const expires = typeof expiration === 'string' ? Date.parse(expiration) : NaN;
  if (Number.isNaN(expires)) throw invalidPolicy(`Invalid 'expiration' value: '${String(expiration)}'`);
  if (now.getTime() > expires) throw policyFailure('Policy expired.');
  if (!Array.isArray(conditions)) throw invalidPolicy('Policy missing conditions.');

  const limits: PolicyLimits = { minSize: 0, maxSize: MAX_POST_OBJECT_SIZE };
  const covered = new Set<string>();
  const valueOf = (field: string) => (field === 'bucket' ? bucket : (values.get(field) ?? ''));
  for (const condition of conditions as unknown[]) {
    if (Array.isArray(condition)) {
      const op = typeof condition[0] === 'string' ? condition[0].toLowerCase() : '';
      if (op === 'content-length-range') {
        const min = Number(condition[1]);
        const max = Number(condition[2]);
        if (condition.length !== 3 || !Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max < min) {
          throw invalidPolicy(`Invalid content-length-range condition: ${conditionText(condition)}`);
        }
        limits.minSize = Math.max(limits.minSize, min);
        limits.maxSize = Math.min(limits.maxSize, max);
        continue;
      }
      const [, target, expected] = condition as [unknown, unknown, unknown];
      if (
        (op !== 'eq' && op !== 'starts-with') ||
        condition.length !== 3 ||
        typeof target !== 'string' ||
        !target.startsWith('$') ||
        typeof expected !== 'string'
      ) {
        throw invalidPolicy(`Invalid Condition: ${conditionText(condition)}`);
      }
      const field = target.slice(1).toLowerCase();
      covered.add(field);
      const actual = valueOf(field);
      if (op === 'eq' ? actual !== expected : !actual.startsWith(expected)) {
        throw policyFailure(`Policy Condition failed: ${conditionText(condition)}`);
      }
    } else if (typeof condition === 'object' && condition !== null) {
      const entries = Object.entries(condition);
      if (entries.length !== 1) throw invalidPolicy('Invalid Simple-Condition: Simple-Conditions must have exactly one property specified.');
      for (const [name, expected] of entries) {
        if (typeof expected !== 'string') throw invalidPolicy(`Invalid Condition: ${conditionText(condition)}`);
        const field = name.toLowerCase();
        covered.add(field);
        if (valueOf(field) !== expected) {
          throw policyFailure(`Policy Condition failed: ${conditionText(['eq', `$${name}`, expected])}`);
        }
      }
    } else {
      throw invalidPolicy(`Invalid Condition: ${conditionText(condition)}`);
    }
  }
  const extra = [...values.keys()].filter((name) => !isExemptField(name) && !covered.has(name));
  if (extra.length) throw policyFailure(`Extra input fields: ${extra.join(', ')}`);
  return limits;
}

// ---------------------------------------------------------------------------------------------------------
// The form upload

/** The base name S3 substitutes for `${filename}`: what follows the last `/` or `\`. */
export const uploadBaseName = (filename: string) => filename.slice(Math.max(filename.lastIndexOf('/'), filename.lastIndexOf('\\')) + 1);

interface SpooledForm {
  fields: FormField[];
  filename: string;
  contentType: string | undefined;
  spoolPath: string;
  size: number;
}

class ClientGone extends Error {
  constructor() {
    super('the client closed the connection before the upload was complete');
  }
}

/**
 * Reads the form: fields up to the first `file` part, then that part into a spool file while counting its
 * bytes. The policy is verified as soon as the file part's headers are known (before any file byte is
 * read); the size limits are enforced as the bytes arrive. Resolves once the request has ended and the
 * spool file is complete.
 */
function readForm(
  req: IncomingMessage,
  opts: { boundary: string; spoolPath: string; maxPreDataBytes: number; verify: (fields: FormField[]) => PolicyLimits },
): Promise<SpooledForm> {
  return new Promise<SpooledForm>((resolve, reject) => {
    const scanner = new MultipartScanner(opts.boundary);
    const fields: FormField[] = [];
    let preData = 0;
    let part: { kind: 'field'; name: string; chunks: Buffer[] } | { kind: 'file' } | undefined;
    let file: { filename: string; contentType: string | undefined; out: WriteStream; size: number; limits: PolicyLimits; dataStart: number } | undefined;
    let fileDone = false;
    let fileFlushed = false;
    let requestEnded = false;
    let settled = false;

    const finish = () => {
      if (settled || !requestEnded || !fileFlushed || !file) return;
      settled = true;
      resolve({ fields, filename: file.filename, contentType: file.contentType, spoolPath: opts.spoolPath, size: file.size });
    };
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      const out = file?.out;
      if (out) {
        // The spool file goes once its stream has closed (it may still be opening).
        const remove = () => void rm(opts.spoolPath, { force: true }).catch(() => {});
        if (out.closed) remove();
        else out.once('close', remove);
        out.destroy();
      }
      reject(err instanceof Error ? err : new Error(String(err)));
    };

    const onEvent = (ev: MultipartEvent): boolean => {
      switch (ev.kind) {
        case 'headers': {
          const headers = parsePartHeaders(ev.raw);
          const disposition = parseContentDisposition(headers.get('content-disposition') ?? '');
          const name = disposition.name;
          if (name === undefined || disposition.type !== 'form-data') throw malformedPost();
          if (name.toLowerCase() !== 'file') {
            preData += ev.raw.length;
            part = { kind: 'field', name, chunks: [] };
            break;
          }
          // The file part: everything S3 needs has arrived.
          if (!fields.some((f) => f.name.toLowerCase() === 'key')) throw missingField('key');
          const limits = opts.verify(fields);
          const out = createWriteStream(opts.spoolPath, { flags: 'wx', mode: 0o600 });
          out.on('error', fail);
          out.on('finish', () => {
            fileFlushed = true;
            finish();
          });
          file = { filename: disposition.filename ?? '', contentType: headers.get('content-type'), out, size: 0, limits, dataStart: ev.bodyStart };
          part = { kind: 'file' };
          break;
        }
        case 'data':
          if (part?.kind === 'field') {
            preData += ev.data.length;
            if (preData > opts.maxPreDataBytes) {
              throw new S3PostError(400, 'MaxPostPreDataLengthExceeded', 'Your POST request fields preceding the upload file were too large.');
            }
            part.chunks.push(Buffer.from(ev.data));
          } else if (part?.kind === 'file' && file) {
            file.size += ev.data.length;
            if (file.size > file.limits.maxSize) {
              // The size proposed: what the declared length leaves for the file, at least what arrived.
              const contentLength = Number(req.headers['content-length']);
              const declared = Number.isFinite(contentLength) ? contentLength - file.dataStart - (opts.boundary.length + 8) : 0;
              throw entityTooLarge(Math.max(file.size, declared), file.limits.maxSize);
            }
            file.out.write(ev.data);
          }
          break;
        case 'partEnd':
          if (part?.kind === 'field') {
            fields.push({ name: part.name, value: Buffer.concat(part.chunks).toString('utf8') });
          } else if (part?.kind === 'file' && file) {
            if (file.size < file.limits.minSize) {
              throw new S3PostError(400, 'EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed size', {
                ProposedSize: file.size,
                MinSizeAllowed: file.limits.minSize,
              });
            }
            // S3 ignores whatever follows the file.
            fileDone = true;
            file.out.end();
            return false;
          }
          part = undefined;
          break;
        case 'end':
          break;
      }
      return true;
    };

    req.on('data', (chunk: Buffer) => {
      if (settled || fileDone) return;
      try {
        for (const ev of scanner.push(chunk)) if (!onEvent(ev)) break;
      } catch (err) {
        fail(err);
        return;
      }
      // Back-pressure: stop reading the request until the spool file has taken the data.
      const out = file?.out;
      if (out?.writableNeedDrain && !fileDone) {
        req.pause();
        out.once('drain', () => {
          if (!settled) req.resume();
        });
      }
    });
    req.on('end', () => {
      requestEnded = true;
      if (settled) return;
      try {
        if (!fileDone) {
          for (const ev of scanner.end()) onEvent(ev);
          // No file part at all: the same checks S3 makes, then the missing file.
          if (!fields.some((f) => f.name.toLowerCase() === 'key')) throw missingField('key');
          opts.verify(fields);
          throw new S3PostError(400, 'InvalidArgument', 'POST requires exactly one file upload per request.', { ArgumentName: 'file', ArgumentValue: 0 });
        }
        finish();
      } catch (err) {
        fail(err);
      }
    });
    req.on('error', () => fail(new ClientGone()));
    req.on('close', () => {
      if (!requestEnded) fail(new ClientGone());
    });
  });
}

const entityTooLarge = (proposed: number, max: number) =>
  new S3PostError(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size', { ProposedSize: proposed, MaxSizeAllowed: max });

/** A quoted-string for a re-emitted header parameter. */
const quoted = (s: string) => `"${s.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`;

/** A header value as S3 answers non-ASCII user metadata: one RFC 2047 `B` encoded-word of its UTF-8. */
export const encodeMimeWord = (value: string) =>
  /^[\x20-\x7e]*$/.test(value) ? value : `=?UTF-8?B?${Buffer.from(value, 'utf8').toString('base64')}?=`;

/** The well-formed multipart body s3rver gets: fields (with `${filename}` substituted), then the spooled file. */
function rebuildForm(form: SpooledForm): { boundary: string; length: number; body: () => AsyncGenerator<Buffer> } {
  const boundary = `----s3front${randomBytes(16).toString('hex')}`;
  const base = uploadBaseName(form.filename);
  const parts: Buffer[] = [];
  const seen = new Set<string>();
  for (const f of form.fields) {
    const name = f.name.toLowerCase();
    // The first of repeated fields is the one the policy was checked against (s3rver would keep the last).
    if (seen.has(name)) continue;
    seen.add(name);
    const substituted = isExemptField(name) ? f.value : f.value.split('${filename}').join(base);
    // S3 keeps user metadata that is not US-ASCII and answers it RFC 2047-encoded (s3rver would store it
    // as is and then fail to send it as a header): stored here as S3 answers it.
    const value = name.startsWith('x-amz-meta-') ? encodeMimeWord(substituted) : substituted;
    const why = name === 'key' ? keyProblem(value) : undefined;
    if (why) {
      throw new S3PostError(400, 'InvalidArgument', `Object keys with ${why} are refused by this local S3 endpoint: its file-system backend would resolve them.`, {
        ArgumentName: 'key',
        ArgumentValue: value.slice(0, 1024),
      });
    }
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name=${quoted(name)}\r\n\r\n${value}\r\n`, 'utf8'));
  }
  // busboy 0.3.1 treats a part as a file when it has a filename or is application/octet-stream.
  const disposition = form.filename ? `form-data; name="file"; filename=${quoted(form.filename)}` : 'form-data; name="file"';
  const contentType = form.filename && form.contentType ? form.contentType.replace(/[\r\n]/g, ' ') : 'application/octet-stream';
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\nContent-Type: ${contentType}\r\n\r\n`, 'utf8'));
  const head = Buffer.concat(parts);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return {
    boundary,
    length: head.length + form.size + tail.length,
    body: async function* () {
      yield head;
      for await (const chunk of createReadStream(form.spoolPath)) yield chunk as Buffer;
      yield tail;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// The server

/**
 * Request headers for s3rver: hop-by-hop ones (and those `Connection` names) and `Expect` removed, and a
 * Host that s3rver would read a bucket from (anything but an address or localhost) replaced by its own.
 */
function forwardHeaders(headers: IncomingHttpHeaders, targetHost: string): OutgoingHttpHeaders {
  const listed = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  );
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || listed.has(name) || name === 'expect') continue;
    out[name] = value;
  }
  if (!isPathStyleHost(headers.host)) out.host = targetHost;
  return out;
}

/** Response headers from s3rver, raw (case and repetitions kept), without hop-by-hop ones. */
function backwardHeaders(res: IncomingMessage): string[] {
  const listed = new Set(
    String(res.headers.connection ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase()),
  );
  const out: string[] = [];
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    const name = res.rawHeaders[i]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || listed.has(lower)) continue;
    out.push(name, res.rawHeaders[i + 1]!);
  }
  return out;
}

export async function startS3Front(opts: S3FrontOptions): Promise<S3Front> {
  const target = new URL(opts.target);
  const targetPrefix = trimEnd(target.pathname, '/');
  const host = opts.host ?? '127.0.0.1';
  // Request targets carry presigned signatures: lines go through the one redaction rule.
  const log = (line: string) => (opts.log ?? (() => {}))(redactText(line));
  const maxPreDataBytes = opts.maxPreDataBytes ?? DEFAULT_MAX_PRE_DATA;
  const ownSpool = !opts.spoolDir;
  const spoolDir = opts.spoolDir ?? (await mkdtemp(path.join(tmpdir(), 's3-front-')));
  await mkdir(spoolDir, { recursive: true });
  const agent = new Agent({ keepAlive: true });

  /** Sends one request to s3rver and pipes its answer to `res`; `transform` may rewrite a small body. */
  const upstream = (
    req: IncomingMessage,
    res: ServerResponse,
    headers: OutgoingHttpHeaders,
    body: Readable | null,
    transform?: (status: number, headers: string[], body: Buffer) => { headers: string[]; body: Buffer } | undefined,
  ) =>
    new Promise<void>((resolve, reject) => {
      const up = httpRequest(
        { protocol: target.protocol, hostname: target.hostname, port: target.port, method: req.method, path: targetPrefix + (req.url ?? '/'), headers, agent },
        (upRes) => {
          const status = upRes.statusCode ?? 502;
          let outHeaders = backwardHeaders(upRes);
          const rewrite = transform && /xml/i.test(String(upRes.headers['content-type'] ?? '')) && Number(upRes.headers['content-length'] ?? Infinity) < 64 * 1024;
          if (rewrite) {
            const chunks: Buffer[] = [];
            upRes.on('data', (c: Buffer) => chunks.push(c));
            upRes.on('error', reject);
            upRes.on('end', () => {
              const original = Buffer.concat(chunks);
              const changed = transform(status, outHeaders, original);
              const buf: Buffer = changed?.body ?? original;
              if (changed) {
                outHeaders = changed.headers.map((h, i) => (i % 2 === 1 && changed.headers[i - 1]!.toLowerCase() === 'content-length' ? String(buf.length) : h));
              }
              res.writeHead(status, upRes.statusMessage, outHeaders);
              res.end(buf, () => resolve());
            });
            return;
          }
          res.writeHead(status, upRes.statusMessage, outHeaders);
          pipeline(upRes, res).then(resolve, reject);
        },
      );
      up.on('error', reject);
      res.on('close', () => {
        if (!res.writableFinished) up.destroy();
      });
      if (body) pipeline(body, up).catch((err: unknown) => up.destroy(err instanceof Error ? err : undefined));
      else up.end();
    });

  const sendError = async (req: IncomingMessage, res: ServerResponse, err: S3PostError, bucket?: string) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const requestId = randomBytes(8).toString('hex').toUpperCase();
    const body = s3ErrorXml(err, requestId);
    const headers: OutgoingHttpHeaders = {
      'Content-Type': 'application/xml',
      'Content-Length': Buffer.byteLength(body),
      'x-amz-request-id': requestId,
      ...(bucket && req.headers.origin ? await corsHeaders(bucket, req.headers.origin) : {}),
    };
    res.writeHead(err.status, headers);
    res.end(body);
  };

  /** The bucket's CORS answer for a POST from this origin, asked of s3rver as a preflight would be. */
  const corsHeaders = async (bucket: string, origin: string): Promise<OutgoingHttpHeaders> => {
    try {
      const answer = await fetch(`${target.origin}${targetPrefix}/${encodeURIComponent(bucket)}`, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' },
        signal: AbortSignal.timeout(2000),
      });
      await answer.arrayBuffer();
      const allow = answer.headers.get('access-control-allow-origin');
      return allow ? { 'Access-Control-Allow-Origin': allow, Vary: 'Origin' } : {};
    } catch {
      return {};
    }
  };

  /** After an early answer, read (and drop) the rest of the upload so the client can read the answer. */
  const drain = (req: IncomingMessage) => {
    let drained = 0;
    req.on('data', (c: Buffer) => {
      drained += c.length;
      if (drained > MAX_DRAIN_BYTES) req.socket.destroy();
    });
    req.resume();
  };

  const handleForm = async (req: IncomingMessage, res: ServerResponse, bucket: string) => {
    const boundary = multipartBoundary(req.headers['content-type']);
    const spoolPath = path.join(spoolDir, randomUUID());
    try {
      if (!boundary) throw malformedPost();
      const form = await readForm(req, {
        boundary,
        spoolPath,
        maxPreDataBytes,
        verify: (fields) => verifyPostPolicy(fields, bucket, opts.credentials),
      });
      const rebuilt = rebuildForm(form);
      const headers = forwardHeaders(req.headers, target.host);
      delete headers['content-length'];
      headers['content-type'] = `multipart/form-data; boundary=${rebuilt.boundary}`;
      headers['content-length'] = String(rebuilt.length);
      // s3rver answers 201 with `<Etag>`; S3's PostResponse element is `<ETag>`.
      await upstream(req, res, headers, Readable.from(rebuilt.body()), (status, outHeaders, body) =>
        status === 201 ? { headers: outHeaders, body: Buffer.from(body.toString('utf8').replace(/<(\/?)Etag>/g, '<$1ETag>'), 'utf8') } : undefined,
      );
    } catch (err) {
      if (err instanceof S3PostError) {
        drain(req);
        await sendError(req, res, err, bucket);
      } else if (err instanceof ClientGone) {
        res.destroy();
      } else {
        log(`s3-front: form upload to ${bucket} failed: ${(err as Error).stack ?? String(err)}`);
        if (!req.complete) drain(req);
        await sendError(req, res, new S3PostError(500, 'InternalError', 'We encountered an internal error. Please try again.'));
      }
    } finally {
      await rm(spoolPath, { force: true });
    }
  };

  const proxy = async (req: IncomingMessage, res: ServerResponse, buffered?: Buffer) => {
    const headers = forwardHeaders(req.headers, target.host);
    const hasBody = buffered !== undefined || req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
    if (!hasBody && ['POST', 'PUT', 'PATCH'].includes(req.method ?? '')) headers['content-length'] = '0';
    if (buffered !== undefined) {
      delete headers['transfer-encoding'];
      headers['content-length'] = String(buffered.length);
    }
    try {
      await upstream(req, res, headers, buffered !== undefined ? Readable.from([buffered]) : hasBody ? req : null);
    } catch (err) {
      if (res.headersSent || req.destroyed) {
        res.destroy();
        return;
      }
      log(`s3-front: ${req.method} ${req.url} failed: ${(err as Error).message}`);
      await sendError(req, res, new S3PostError(503, 'ServiceUnavailable', 'Please reduce your request rate.'));
    }
  };

  const lookupKey = (accessKeyId: string) =>
    accessKeyId === opts.credentials.accessKeyId
      ? { secretAccessKey: opts.credentials.secretAccessKey, ...(opts.credentials.sessionToken !== undefined && { sessionToken: opts.credentials.sessionToken }) }
      : undefined;

  /** Answers an S3 error before the request body was read. */
  const refuse = async (req: IncomingMessage, res: ServerResponse, problem: S3Problem) => {
    drain(req);
    await sendError(req, res, fromProblem(problem));
  };

  /** A multi-object delete: its (small) body is read first, so that the keys it names can be checked. */
  const handleDelete = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_DELETE_BODY_BYTES) {
        await sendError(req, res, new S3PostError(400, 'MalformedXML', 'The XML you provided was not well-formed or did not validate against our published schema.'));
        req.socket.destroy();
        return;
      }
      chunks.push(chunk as Buffer);
    }
    const body = Buffer.concat(chunks);
    const problem = deleteListProblem(body.toString('utf8'));
    if (problem) return sendError(req, res, fromProblem(problem));
    await proxy(req, res, body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const outside = requestProblem(url, req.headersDistinct);
    if (outside) return refuse(req, res, outside);
    // CORS preflights are anonymous, as on S3.
    if (req.method === 'OPTIONS') return proxy(req, res);
    const pathname = url.split('?')[0] ?? '/';
    const bucketOnly = /^\/([^/]+)\/?$/.exec(pathname)?.[1];
    if (req.method === 'POST' && bucketOnly && multipartBoundary(req.headers['content-type']) !== undefined) {
      // A browser form: authorized by its signed policy.
      let bucket: string;
      try {
        bucket = decodeURIComponent(bucketOnly);
      } catch {
        bucket = bucketOnly;
      }
      return handleForm(req, res, bucket);
    }
    const unsigned = verifySigV4({ method: req.method ?? 'GET', url, headers: req.headersDistinct }, lookupKey);
    if (unsigned) return refuse(req, res, unsigned);
    if (isDeleteObjects(req.method, url)) return handleDelete(req, res);
    return proxy(req, res);
  };

  const server = keepIdleConnections(
    createServer((req, res) => {
      const work = handle(req, res);
      work.catch((err: unknown) => {
        log(`s3-front: ${req.method} ${req.url}: ${(err as Error).message}`);
        res.destroy();
      });
    }),
  );

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}`,
    port,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      agent.destroy();
      if (ownSpool) await rm(spoolDir, { recursive: true, force: true });
    },
  };
}
