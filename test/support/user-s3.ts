/**
 * A user's S3-compatible bucket for tests: s3rver behind a front that checks every request's AWS
 * Signature Version 4 against a random key pair of the test's (s3rver itself checks only that the
 * access key id exists), and records every request line and header. s3rver stores metadata, content
 * headers and tags (PutObjectTagging) but ignores ACLs and server-side encryption (its GetObjectAcl is
 * a stub), so those are checked on the recorded requests.
 */
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { createS3Client } from '#lib/adapters/file-store/s3-file-store.js';
import { verifySigV4 } from '../../local/s3/sigv4.js';

const require = createRequire(import.meta.url);
const { DUMMY_ACCOUNT } = require('s3rver/lib/models/account.js') as {
  DUMMY_ACCOUNT: { createKeyPair(accessKeyId: string, secretAccessKey: string): void; revokeAccessKey(accessKeyId: string): void };
};

export interface RecordedS3Request {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Whether the front accepted the request's signature. */
  signed: boolean;
}

/**
 * Checks a request's SigV4 signature (header-signed as the SDK sends it, or presigned) with the same
 * verifier as the local S3 endpoint. Returns why it fails, or undefined when it holds.
 */
export function sigV4Problem(
  method: string,
  url: string,
  headers: Record<string, string | string[] | undefined>,
  secrets: ReadonlyMap<string, { secretAccessKey: string; sessionToken?: string }>,
): string | undefined {
  const problem = verifySigV4({ method, url, headers }, (accessKeyId) => secrets.get(accessKeyId));
  return problem && `${problem.code}: ${problem.message}`;
}

/**
 * S3 keeps `.` and `..` key segments literally; s3rver resolves them on its file system (`p/../q` would be
 * stored, and listed, as `q`). The front stores such segments under an escape (each dot as U+E000) and
 * maps it back in answers, so keys such as `p/../q` behave as on S3.
 */
const ESCAPED_DOT = encodeURIComponent('\uE000');
const safeDecode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};
const escapeSegments = (path: string, from: number) =>
  path
    .split('/')
    .map((seg, i) => (i >= from && (safeDecode(seg) === '.' || safeDecode(seg) === '..') ? ESCAPED_DOT.repeat(safeDecode(seg).length) : seg))
    .join('/');

/** The request line s3rver gets: dot segments of the key, the `prefix` and the copy source escaped. */
function escapeRequest(url: string): string {
  const [path = '/', query] = url.split(/\?(.*)/s);
  const escapedQuery = query
    ?.split('&')
    .map((pair) => (pair.startsWith('prefix=') ? `prefix=${escapeSegments(pair.slice('prefix='.length), 0)}` : pair))
    .join('&');
  return escapeSegments(path, 2) + (query !== undefined ? `?${escapedQuery}` : '');
}

const unescapeDots = (text: string) => text.replaceAll('\uE000', '.').replace(/%EE%80%80/gi, '.');

export async function startUserS3(bucket = 'user-bucket', opts: { sessionToken?: string } = {}) {
  const directory = mkdtempSync(path.join(tmpdir(), 'user-s3-'));
  const s3rver = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory });
  const { port: s3rverPort } = await s3rver.run();
  const credentials = {
    accessKeyId: `AKIA${randomBytes(8).toString('hex').toUpperCase()}`,
    secretAccessKey: randomBytes(30).toString('base64'),
  };
  DUMMY_ACCOUNT.createKeyPair(credentials.accessKeyId, credentials.secretAccessKey);
  const keys = new Map([[credentials.accessKeyId, { secretAccessKey: credentials.secretAccessKey, sessionToken: opts.sessionToken }]]);

  const requests: RecordedS3Request[] = [];
  const front = createServer((req, res) => {
    const problem = sigV4Problem(req.method ?? '', req.url ?? '/', req.headersDistinct, keys);
    requests.push({ method: req.method ?? '', path: req.url ?? '/', headers: req.headers, signed: problem === undefined });
    if (problem) {
      req.resume();
      res.writeHead(403, { 'content-type': 'application/xml' });
      res.end(
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SignatureDoesNotMatch</Code>' +
          '<Message>The request signature we calculated does not match the signature you provided. Check your key and signing method.</Message></Error>',
      );
      return;
    }
    const headers = { ...req.headers };
    const copySource = headers['x-amz-copy-source'];
    if (typeof copySource === 'string') headers['x-amz-copy-source'] = escapeSegments(copySource, copySource.startsWith('/') ? 2 : 1);
    const upstream = request(
      { host: '127.0.0.1', port: s3rverPort, method: req.method, path: escapeRequest(req.url ?? '/'), headers },
      (answer) => {
        if (!/xml/i.test(String(answer.headers['content-type'] ?? ''))) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          const body = Buffer.from(unescapeDots(Buffer.concat(chunks).toString('utf8')), 'utf8');
          const { 'transfer-encoding': _chunked, ...rest } = answer.headers;
          res.writeHead(answer.statusCode ?? 502, { ...rest, 'content-length': String(body.length) });
          res.end(body);
        });
      },
    );
    upstream.on('error', (err) => res.destroy(err));
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', () => resolve()));
  const endpoint = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  const client = createS3Client({ region: 'us-east-1', endpoint, credentials: { ...credentials, sessionToken: opts.sessionToken } });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    endpoint,
    bucket,
    credentials,
    client,
    requests,
    /** The arguments an import/s3 or export/s3 task needs to reach this bucket. */
    taskArgs: (extra: Record<string, unknown> = {}) => ({
      bucket,
      region: 'us-east-1',
      endpoint,
      access_key_id: credentials.accessKeyId,
      secret_access_key: credentials.secretAccessKey,
      ...extra,
    }),
    close: async () => {
      DUMMY_ACCOUNT.revokeAccessKey(credentials.accessKeyId);
      await new Promise<void>((resolve) => front.close(() => resolve()));
      await s3rver.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
