/**
 * Class 8 of issue 10 (the local object-storage front): every request but a CORS preflight and a
 * policy-signed form upload must carry a valid SigV4 signature of the local credentials, in its
 * `Authorization` header or presigned in its query. Unsigned, tampered, expired or foreign-key requests
 * are refused with 403 in S3's XML error format, quickly, and change nothing.
 */
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutBucketCorsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Client } from '#lib/adapters/file-store/s3-file-store.js';
import { startS3Front, type S3Front } from '../../local/s3/front.js';

const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const BUCKET = 'signed';

let root: string;
let s3rver: S3rver;
let front: S3Front;
let s3: S3Client;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'front-signatures-'));
  s3rver = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: root, configureBuckets: [{ name: BUCKET }] });
  const { port } = await s3rver.run();
  front = await startS3Front({ target: `http://127.0.0.1:${port}`, credentials: CREDENTIALS });
  s3 = createS3Client({ region: 'us-east-1', endpoint: front.url, credentials: CREDENTIALS });
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'doc/report.txt', Body: 'the stored report' }));
  await s3.send(
    new PutBucketCorsCommand({ Bucket: BUCKET, CORSConfiguration: { CORSRules: [{ AllowedOrigins: ['*'], AllowedMethods: ['GET', 'PUT', 'POST'], AllowedHeaders: ['*'] }] } }),
  );
});

afterAll(async () => {
  s3?.destroy();
  await front?.close();
  await s3rver?.close();
  await rm(root, { recursive: true, force: true });
});

const code = (xml: string) => /<Code>([^<]*)<\/Code>/.exec(xml)?.[1];

/** An answer, timed. */
async function timed(url: string, init: RequestInit = {}) {
  const started = performance.now();
  const res = await fetch(url, init);
  const body = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type'), body, ms: performance.now() - started };
}

async function expectRefused(answer: Awaited<ReturnType<typeof timed>>, expectedCode: string) {
  expect(answer.status, answer.body).toBe(403);
  expect(answer.contentType).toBe('application/xml');
  expect(answer.body).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<Error><Code>/);
  expect(code(answer.body)).toBe(expectedCode);
  expect(answer.body).not.toContain('the stored report');
  // Refused at once, without waiting on the stored object; generous for a loaded machine.
  expect(answer.ms).toBeLessThan(5000);
}

async function stored(key: string): Promise<string | undefined> {
  try {
    const out = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    return await out.Body!.transformToString();
  } catch {
    return undefined;
  }
}

describe('the local S3 front checks SigV4 on every request', () => {
  it('refuses an unsigned GET of an existing object with 403 AccessDenied', async () => {
    await expectRefused(await timed(`${front.url}/${BUCKET}/doc/report.txt`), 'AccessDenied');
    // HEAD too (no body, the status tells).
    const head = await fetch(`${front.url}/${BUCKET}/doc/report.txt`, { method: 'HEAD' });
    expect(head.status).toBe(403);
  });

  it('serves a presigned GET, and refuses it once tampered with or expired', async () => {
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: BUCKET, Key: 'doc/report.txt' }), { expiresIn: 60 });
    const ok = await timed(url);
    expect(ok.status).toBe(200);
    expect(ok.body).toBe('the stored report');

    const u = new URL(url);
    const signature = u.searchParams.get('X-Amz-Signature')!;
    const flipped = new URL(url);
    flipped.searchParams.set('X-Amz-Signature', (signature[0] === 'a' ? 'b' : 'a') + signature.slice(1));
    await expectRefused(await timed(flipped.href), 'SignatureDoesNotMatch');

    const longer = new URL(url);
    longer.searchParams.set('X-Amz-Expires', '604800');
    await expectRefused(await timed(longer.href), 'SignatureDoesNotMatch');

    const otherKey = new URL(url.replace('/doc/report.txt', '/doc/other.txt'));
    await expectRefused(await timed(otherKey.href), 'SignatureDoesNotMatch');

    const overridden = new URL(url);
    overridden.searchParams.set('response-content-type', 'text/html');
    await expectRefused(await timed(overridden.href), 'SignatureDoesNotMatch');

    const unsignedCopy = new URL(url);
    unsignedCopy.searchParams.delete('X-Amz-Signature');
    expect((await timed(unsignedCopy.href)).status).toBeGreaterThanOrEqual(400);

    const expired = await getSignedUrl(s3, new GetObjectCommand({ Bucket: BUCKET, Key: 'doc/report.txt' }), { expiresIn: 1, signingDate: new Date(Date.now() - 60_000) });
    await expectRefused(await timed(expired), 'AccessDenied');
  });

  it('refuses an unsigned PUT with 403 and stores nothing', async () => {
    await expectRefused(await timed(`${front.url}/${BUCKET}/doc/planted.txt`, { method: 'PUT', body: 'planted' }), 'AccessDenied');
    await expectRefused(await timed(`${front.url}/${BUCKET}/doc/report.txt`, { method: 'PUT', body: 'overwritten' }), 'AccessDenied');
    expect(await stored('doc/planted.txt')).toBeUndefined();
    expect(await stored('doc/report.txt')).toBe('the stored report');
  });

  it('refuses an unsigned DELETE and an unsigned listing, and deletes nothing', async () => {
    await expectRefused(await timed(`${front.url}/${BUCKET}/doc/report.txt`, { method: 'DELETE' }), 'AccessDenied');
    await expectRefused(await timed(`${front.url}/${BUCKET}?list-type=2`), 'AccessDenied');
    await expectRefused(await timed(`${front.url}/`), 'AccessDenied');
    expect(await stored('doc/report.txt')).toBe('the stored report');
  });

  it('refuses an unsigned HEAD, an unsigned multipart start and an unsigned form without a policy, and stores nothing', async () => {
    const head = await timed(`${front.url}/${BUCKET}/doc/report.txt`, { method: 'HEAD' });
    expect(head.status).toBe(403);
    await expectRefused(await timed(`${front.url}/${BUCKET}/doc/multi.txt?uploads`, { method: 'POST' }), 'AccessDenied');
    await expectRefused(await timed(`${front.url}/${BUCKET}?delete`, { method: 'POST', body: '<Delete><Object><Key>doc/report.txt</Key></Object></Delete>' }), 'AccessDenied');
    const form = new FormData();
    form.set('key', 'doc/form.txt');
    form.set('file', new Blob(['planted by a form']), 'form.txt');
    await expectRefused(await timed(`${front.url}/${BUCKET}`, { method: 'POST', body: form }), 'AccessDenied');
    expect(await stored('doc/form.txt')).toBeUndefined();
    expect(await stored('doc/report.txt')).toBe('the stored report');
  });

  it('lets an OPTIONS request do nothing but a preflight: no object, listing or write behind it', async () => {
    for (const [target, headers, body] of [
      [`/${BUCKET}/doc/report.txt`, {}, undefined],
      [`/${BUCKET}/doc/report.txt`, { 'X-HTTP-Method-Override': 'GET', 'X-Amz-Method': 'GET' }, undefined],
      [`/${BUCKET}?list-type=2`, { Origin: 'http://app.example', 'Access-Control-Request-Method': 'GET' }, undefined],
      [`/${BUCKET}/doc/options.txt`, { Origin: 'http://app.example', 'Access-Control-Request-Method': 'PUT' }, 'written by OPTIONS'],
    ] as const) {
      const answer = await timed(`${front.url}${target}`, { method: 'OPTIONS', headers, ...(body ? { body } : {}) });
      expect(answer.body).not.toContain('the stored report');
      expect(answer.body).not.toContain('<ListBucketResult');
    }
    expect(await stored('doc/options.txt')).toBeUndefined();
  });

  it('refuses requests signed with another secret or an unknown key, and a header signature whose request was changed', async () => {
    const wrongSecret = createS3Client({ region: 'us-east-1', endpoint: front.url, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'not-the-secret' } });
    const unknownKey = createS3Client({ region: 'us-east-1', endpoint: front.url, credentials: { accessKeyId: 'AKIAUNKNOWN', secretAccessKey: 'S3RVER' } });
    const tampered = createS3Client({ region: 'us-east-1', endpoint: front.url, credentials: CREDENTIALS });
    // After signing: the request goes to another key than the one signed for.
    tampered.middlewareStack.addRelativeTo(
      (next: any) => (args: any) => {
        (args.request as { path: string }).path = `/${BUCKET}/doc/tampered.txt`;
        return next(args);
      },
      { relation: 'after', toMiddleware: 'httpSigningMiddleware', name: 'tamper' },
    );
    const statusOf = (p: Promise<unknown>) =>
      p.then(
        () => ({ status: 200, code: '' }),
        (e: { $metadata?: { httpStatusCode?: number }; name?: string; Code?: string }) => ({ status: e.$metadata?.httpStatusCode, code: e.name }),
      );
    expect(await statusOf(wrongSecret.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'doc/wrong.txt', Body: 'x' })))).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
    expect(await statusOf(unknownKey.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'doc/report.txt' })))).toEqual({ status: 403, code: 'InvalidAccessKeyId' });
    expect(await statusOf(tampered.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'doc/signed-for.txt', Body: 'x' })))).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
    expect(await statusOf(wrongSecret.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'doc/report.txt' })))).toMatchObject({ status: 403 });
    for (const c of [wrongSecret, unknownKey, tampered]) c.destroy();
    const listing = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'doc/' }));
    expect((listing.Contents ?? []).map((o) => o.Key)).toEqual(['doc/report.txt']);
  });

  it('refuses Signature Version 2 and a stale header signature', async () => {
    const v2 = await timed(`${front.url}/${BUCKET}/doc/report.txt?AWSAccessKeyId=S3RVER&Expires=9999999999&Signature=abc`);
    expect(v2.status).toBe(400);
    expect(code(v2.body)).toBe('InvalidRequest');
    // One attempt: the SDK would otherwise correct its clock from the answer and try again.
    const stale = new S3Client({ region: 'us-east-1', endpoint: front.url, forcePathStyle: true, credentials: CREDENTIALS, systemClockOffset: -3600_000, maxAttempts: 1 });
    const answer = await stale.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'doc/report.txt' })).then(
      () => 200,
      (e: { $metadata?: { httpStatusCode?: number } }) => e.$metadata?.httpStatusCode,
    );
    stale.destroy();
    expect(answer).toBe(403);
  });

  it('keeps serving the service\'s own signed clients and presigned PUTs, and CORS preflights', async () => {
    const put = await getSignedUrl(s3, new PutObjectCommand({ Bucket: BUCKET, Key: 'doc/presigned.txt' }), { expiresIn: 60 });
    expect((await fetch(put, { method: 'PUT', body: 'via presigned PUT' })).status).toBe(200);
    expect(await stored('doc/presigned.txt')).toBe('via presigned PUT');
    await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'doc/presigned.txt' }));
    const preflight = await fetch(`${front.url}/${BUCKET}/doc/report.txt`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://app.example', 'Access-Control-Request-Method': 'GET' },
    });
    expect(preflight.status).not.toBe(403);
  });
});
