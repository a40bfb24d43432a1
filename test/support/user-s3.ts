/**
 * A user's S3-compatible bucket for tests: s3rver behind a front that checks every request's AWS
 * Signature Version 4 against a random key pair of the test's (s3rver itself checks only that the
 * access key id exists), and records every request line and header. s3rver stores metadata, content
 * headers and tags (PutObjectTagging) but ignores ACLs and server-side encryption (its GetObjectAcl is
 * a stub), so those are checked on the recorded requests.
 */
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { createS3Client } from '#lib/files/s3.js';

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

/** RFC 3986 encoding as SigV4 wants it: everything but unreserved characters. */
const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * Checks a header-signed SigV4 request (the form the SDK uses): rebuilds the canonical request from
 * what arrived, derives the signing key from the secret of the access key named in the credential
 * scope, and compares signatures. Returns why it fails, or undefined when it holds.
 */
export function sigV4Problem(
  method: string,
  url: string,
  headers: IncomingHttpHeaders,
  secrets: ReadonlyMap<string, { secretAccessKey: string; sessionToken?: string }>,
): string | undefined {
  const auth = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
    String(headers.authorization ?? ''),
  );
  if (!auth) return 'not signed with AWS4-HMAC-SHA256 in the Authorization header';
  const [, accessKeyId, date, region, service, signedHeaders, signature] = auth as unknown as string[];
  const account = secrets.get(accessKeyId!);
  if (!account) return `unknown access key ${accessKeyId}`;
  if (account.sessionToken !== undefined && headers['x-amz-security-token'] !== account.sessionToken) return 'session token missing or wrong';
  const amzDate = String(headers['x-amz-date'] ?? '');
  const [path = '/', query = ''] = url.split(/\?(.*)/s);
  const canonicalQuery = query
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const i = pair.indexOf('=');
      const [k, v] = i < 0 ? [pair, ''] : [pair.slice(0, i), pair.slice(i + 1)];
      return [rfc3986(decodeURIComponent(k)), rfc3986(decodeURIComponent(v))] as const;
    })
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const names = signedHeaders!.split(';');
  const canonicalHeaders = names.map((n) => `${n}:${String(headers[n] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const payloadHash = String(headers['x-amz-content-sha256'] ?? 'UNSIGNED-PAYLOAD');
  const canonicalRequest = [method, path, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
  const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${account.secretAccessKey}`, date!), region!), service!), 'aws4_request');
  const expected = createHmac('sha256', signingKey).update(stringToSign).digest();
  return timingSafeEqual(expected, Buffer.from(signature!, 'hex')) ? undefined : 'signature does not match';
}

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
    const problem = sigV4Problem(req.method ?? '', req.url ?? '/', req.headers, keys);
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
    const upstream = request(
      { host: '127.0.0.1', port: s3rverPort, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
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
