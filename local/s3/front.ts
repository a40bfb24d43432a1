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
 *   its `Authorization` header or presigned in its query (sigv4.ts); only CORS preflights
 *   (`OPTIONS`) go through unsigned. An unsigned or tampered request is `403` in S3's XML format;
 * - it maps buckets, keys, upload ids and part numbers straight onto file paths, so a `..` reaches any
 *   file. Here such requests are refused with `400` (confine.ts), and a request whose Host
 *   would make s3rver take the bucket from the host name goes on as path-style.
 *
 * The file part is never held in memory. It streams (with back-pressure) into a spool file and s3rver
 * gets the upload only once it is complete, within `content-length-range` and the request has ended: s3rver
 * writes an upload straight to the object's final path, so an upload cut off half-way (size limit, client
 * gone) would otherwise leave a partial object behind — and overwrite the previous one. S3 itself only
 * makes an object visible once the whole upload has arrived, so the client sees the same behaviour.
 *
 * One job a file: the lenient multipart reader (multipart.ts), the POST policy check (post-policy.ts), the
 * request signature check (sigv4.ts), the form upload (form-upload.ts), the proxy to s3rver (proxy.ts), S3's
 * XML errors (errors.ts) and what may reach s3rver's file system (confine.ts); here the server that routes.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { redactText } from '../../lib/kernel/redact.js';
import { keepIdleConnections } from '../shared/idle.js';
import { deleteListProblem, isDeleteObjects, requestProblem, type S3Problem } from './confine.js';
import { drain, fromProblem, malformedPost, S3PostError, sendS3Error } from './errors.js';
import { ClientGone, readForm, rebuildForm } from './form-upload.js';
import { multipartBoundary } from './multipart.js';
import { verifyPostPolicy } from './post-policy.js';
import { forwardHeaders, S3Upstream } from './proxy.js';
import { verifySigV4 } from './sigv4.js';

type Credentials = { accessKeyId: string; secretAccessKey: string; sessionToken?: string };

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
  credentials: Credentials;
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

/** S3 rejects POSTs whose fields before the file exceed 20 KB. */
const DEFAULT_MAX_PRE_DATA = 20 * 1024;
/** Size cap of a multi-object delete's body (S3: at most 1000 keys of up to 1024 bytes). */
const MAX_DELETE_BODY_BYTES = 2 * 1024 * 1024;

/** What the request handlers share. */
interface Front {
  upstream: S3Upstream;
  credentials: Credentials;
  spoolDir: string;
  maxPreDataBytes: number;
  log: (line: string) => void;
}

export async function startS3Front(opts: S3FrontOptions): Promise<S3Front> {
  const host = opts.host ?? '127.0.0.1';
  const ownSpool = !opts.spoolDir;
  const spoolDir = opts.spoolDir ?? (await mkdtemp(path.join(tmpdir(), 's3-front-')));
  await mkdir(spoolDir, { recursive: true });
  const front: Front = {
    upstream: new S3Upstream(opts.target),
    credentials: opts.credentials,
    spoolDir,
    maxPreDataBytes: opts.maxPreDataBytes ?? DEFAULT_MAX_PRE_DATA,
    // Request targets carry presigned signatures: lines go through the one redaction rule.
    log: (line: string) => (opts.log ?? (() => {}))(redactText(line)),
  };
  const { log } = front;

  const server = keepIdleConnections(
    createServer((req, res) => {
      const work = handle(front, req, res);
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
      front.upstream.close();
      if (ownSpool) await rm(spoolDir, { recursive: true, force: true });
    },
  };
}

/** The one key pair requests are signed with, looked up by its access key id. */
const keyOf = (credentials: Credentials) => (accessKeyId: string) =>
  accessKeyId === credentials.accessKeyId
    ? { secretAccessKey: credentials.secretAccessKey, ...(credentials.sessionToken !== undefined && { sessionToken: credentials.sessionToken }) }
    : undefined;

/** Answers an S3 error before the request body was read. */
async function refuse(req: IncomingMessage, res: ServerResponse, problem: S3Problem): Promise<void> {
  drain(req);
  await sendS3Error(req, res, fromProblem(problem));
}

/** A multi-object delete: its (small) body is read first, so that the keys it names can be checked. */
async function handleDelete(front: Front, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_DELETE_BODY_BYTES) {
      await sendS3Error(req, res, new S3PostError(400, 'MalformedXML', 'The XML you provided was not well-formed or did not validate against our published schema.'));
      req.socket.destroy();
      return;
    }
    chunks.push(chunk as Buffer);
  }
  const body = Buffer.concat(chunks);
  const problem = deleteListProblem(body.toString('utf8'));
  if (problem) return sendS3Error(req, res, fromProblem(problem));
  await front.upstream.proxy(req, res, front.log, body);
}

/** Routes one request: refused if it reaches outside s3rver's buckets, a form upload, a checked delete, or passed through when signed. */
async function handle(front: Front, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? '/';
  const outside = requestProblem(url, req.headersDistinct);
  if (outside) return refuse(req, res, outside);
  // CORS preflights are anonymous, as on S3.
  if (req.method === 'OPTIONS') return front.upstream.proxy(req, res, front.log);
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
    return handleForm(front, req, res, bucket);
  }
  const unsigned = verifySigV4({ method: req.method ?? 'GET', url, headers: req.headersDistinct }, keyOf(front.credentials));
  if (unsigned) return refuse(req, res, unsigned);
  if (isDeleteObjects(req.method, url)) return handleDelete(front, req, res);
  return front.upstream.proxy(req, res, front.log);
}

/** A browser-form upload: its policy verified, its file spooled, then handed to s3rver as a well-formed form. */
async function handleForm(front: Front, req: IncomingMessage, res: ServerResponse, bucket: string): Promise<void> {
  const boundary = multipartBoundary(req.headers['content-type']);
  const spoolPath = path.join(front.spoolDir, randomUUID());
  try {
    if (!boundary) throw malformedPost();
    const form = await readForm(req, {
      boundary,
      spoolPath,
      maxPreDataBytes: front.maxPreDataBytes,
      verify: (fields) => verifyPostPolicy(fields, bucket, front.credentials),
    });
    const rebuilt = rebuildForm(form);
    const headers = forwardHeaders(req.headers, front.upstream.target.host);
    delete headers['content-length'];
    headers['content-type'] = `multipart/form-data; boundary=${rebuilt.boundary}`;
    headers['content-length'] = String(rebuilt.length);
    // s3rver answers 201 with `<Etag>`; S3's PostResponse element is `<ETag>`.
    await front.upstream.request(req, res, headers, Readable.from(rebuilt.body()), (status, outHeaders, body) =>
      status === 201 ? { headers: outHeaders, body: Buffer.from(body.toString('utf8').replace(/<(\/?)Etag>/g, '<$1ETag>'), 'utf8') } : undefined,
    );
  } catch (err) {
    if (err instanceof S3PostError) {
      drain(req);
      await sendS3Error(req, res, err, (origin) => front.upstream.corsHeaders(bucket, origin));
    } else if (err instanceof ClientGone) {
      res.destroy();
    } else {
      front.log(`s3-front: form upload to ${bucket} failed: ${(err as Error).stack ?? String(err)}`);
      if (!req.complete) drain(req);
      await sendS3Error(req, res, new S3PostError(500, 'InternalError', 'We encountered an internal error. Please try again.'));
    }
  } finally {
    await rm(spoolPath, { force: true });
  }
}
