/**
 * The local S3 endpoint (local/s3/front.ts) in front of a real s3rver: plain S3 traffic passes through
 * unchanged; presigned POST form uploads are parsed leniently (cloudconvert SDK style), streamed, checked
 * against their policy as S3 does, and stored only when complete.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import v8 from 'node:v8';
import vm from 'node:vm';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutBucketCorsCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Client } from '#lib/adapters/file-store/s3-file-store.js';
import { startS3Front, type S3Front } from '../../local/s3/front.js';
import { MultipartScanner, parseContentDisposition } from '../../local/s3/multipart.js';

const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const BUCKET = 'front-test';

let dir: string;
let spoolDir: string;
let s3rver: S3rver;
let front: S3Front;
let s3: S3Client;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 's3-front-test-'));
  spoolDir = join(dir, 'spool');
  await mkdir(spoolDir);
  s3rver = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: join(dir, 's3'), configureBuckets: [{ name: BUCKET }] });
  const { port } = await s3rver.run();
  front = await startS3Front({ target: `http://127.0.0.1:${port}`, port: 0, credentials: CREDENTIALS, spoolDir });
  s3 = createS3Client({ region: 'us-east-1', endpoint: front.url, credentials: CREDENTIALS });
  await s3.send(
    new PutBucketCorsCommand({
      Bucket: BUCKET,
      CORSConfiguration: { CORSRules: [{ AllowedOrigins: ['*'], AllowedMethods: ['GET', 'POST', 'PUT'], AllowedHeaders: ['*'], ExposeHeaders: ['ETag'] }] },
    }),
  );
});

afterAll(async () => {
  s3?.destroy();
  await front?.close();
  await s3rver?.close();
  await rm(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------------
// helpers

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A raw HTTP request whose body is a Buffer or a stream (sent with the given Content-Length). */
function send(url: string, opts: { method?: string; headers?: Record<string, string | number>; body?: Buffer | Readable }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: opts.method ?? 'POST', headers: opts.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (Buffer.isBuffer(opts.body) || !opts.body) req.end(opts.body);
    // The answer may come before the whole body was sent (early errors): a broken pipe then is fine.
    else pipeline(opts.body, req).catch(() => {});
  });
}

/** A boundary like the cloudconvert SDK's: ten dashes and 32 random [0-9a-z]. */
const sdkBoundary = () =>
  '----------' +
  Array.from(randomBytes(32), (b) => '0123456789abcdefghijklmnopqrstuvwxyz'[b % 36]).join('');

/**
 * The multipart head and tail exactly as the cloudconvert Node SDK writes them (spec §14.4): lowercase
 * header names, no space after the colon or `;`, an unquoted filename.
 */
function sdkStyleForm(fields: Record<string, string>, fileHeader: string, boundary = sdkBoundary()) {
  let head = '';
  for (const [name, value] of Object.entries(fields)) {
    head += `--${boundary}\r\ncontent-disposition:form-data;name="${name}"\r\n\r\n${value}\r\n`;
  }
  head += `--${boundary}\r\n${fileHeader}\r\ncontent-type:application/octet-stream\r\n\r\n`;
  return { boundary, head: Buffer.from(head, 'utf8'), tail: Buffer.from(`\r\n--${boundary}--\r\n`) };
}

function postSdkStyle(url: string, fields: Record<string, string>, filename: string, bytes: Buffer): Promise<Answer> {
  const { boundary, head, tail } = sdkStyleForm(fields, `content-disposition:form-data;name="file";filename=${filename}`);
  const body = Buffer.concat([head, bytes, tail]);
  return send(url, { headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length }, body });
}

async function presignedPost(key: string, opts: { maxBytes?: number; fields?: Record<string, string>; expires?: number } = {}) {
  return createPresignedPost(s3, {
    Bucket: BUCKET,
    Key: key,
    Conditions: [['content-length-range', 0, opts.maxBytes ?? 100 * 1024 * 1024]],
    Fields: opts.fields ?? {},
    Expires: opts.expires ?? 600,
  });
}

async function getBytes(key: string): Promise<Buffer> {
  const out = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return Buffer.from(await out.Body!.transformToByteArray());
}

async function keysUnder(prefix: string): Promise<string[]> {
  const out = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return (out.Contents ?? []).map((o) => o.Key!);
}

/** Every byte value, several times over, and sequences that look like the start of a delimiter. */
function allBytes(): Buffer {
  const values = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  return Buffer.concat([values, Buffer.from('\r\n--\r\n------------\r\n--x'), values.reverse(), randomBytes(4096), values]);
}

const xmlValue = (xml: string, tag: string) => new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml)?.[1];

// ---------------------------------------------------------------------------------------------------------

describe('lenient multipart parsing', () => {
  it('reads SDK-style, browser-style and RFC 5987 Content-Disposition headers', () => {
    expect(parseContentDisposition('form-data;name="file";filename=my report.pdf')).toEqual({ type: 'form-data', name: 'file', filename: 'my report.pdf' });
    expect(parseContentDisposition('form-data; name="file"; filename="a; b \\"c\\".txt"')).toEqual({ type: 'form-data', name: 'file', filename: 'a; b "c".txt' });
    expect(parseContentDisposition('Form-Data ; name = file ; filename = x;y z.bin  ')).toEqual({ type: 'form-data', name: 'file', filename: 'x;y z.bin' });
    expect(parseContentDisposition('form-data;filename=my file.pdf;name="file"')).toEqual({ type: 'form-data', name: 'file', filename: 'my file.pdf' });
    expect(parseContentDisposition(`form-data; name="file"; filename="fallback.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`).filename).toBe('résumé.pdf');
    expect(parseContentDisposition('form-data; name="file"; filename="C:\\Users\\me\\doc.txt"').filename).toBe('C:\\Users\\me\\doc.txt');
    expect(parseContentDisposition('form-data; name="key"')).toEqual({ type: 'form-data', name: 'key', filename: undefined });
  });

  it('finds every part whatever the chunking', () => {
    const { boundary, head, tail } = sdkStyleForm({ key: 'k' }, 'content-disposition:form-data;name="file";filename=f g');
    const bytes = allBytes();
    const body = Buffer.concat([Buffer.from('preamble\r\n'), head, bytes, tail, Buffer.from('epilogue')]);
    for (const size of [1, 7, 64, 1000, body.length]) {
      const scanner = new MultipartScanner(boundary);
      const events = [];
      for (let i = 0; i < body.length; i += size) events.push(...scanner.push(body.subarray(i, i + size)));
      events.push(...scanner.end());
      const kinds = events.filter((e) => e.kind !== 'data').map((e) => e.kind);
      expect(kinds).toEqual(['headers', 'partEnd', 'headers', 'partEnd', 'end']);
      const lastHeaders = events.findLastIndex((e) => e.kind === 'headers');
      const data = Buffer.concat(events.slice(lastHeaders).flatMap((e) => (e.kind === 'data' ? [e.data] : [])));
      expect(data.equals(bytes)).toBe(true);
    }
  });
});

describe('proxied S3 traffic', () => {
  it('serves the AWS SDK (put, head, get, list, delete) and presigned GET/PUT URLs unchanged', async () => {
    const bytes = allBytes();
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'plain/a b+c.bin', Body: bytes, ContentType: 'application/x-test' }));
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'plain/a b+c.bin' }));
    expect(head.ContentLength).toBe(bytes.length);
    expect(head.ContentType).toBe('application/x-test');
    expect((await getBytes('plain/a b+c.bin')).equals(bytes)).toBe(true);
    expect(await keysUnder('plain/')).toEqual(['plain/a b+c.bin']);

    const getUrl = await getSignedUrl(s3, new GetObjectCommand({ Bucket: BUCKET, Key: 'plain/a b+c.bin' }), { expiresIn: 60 });
    expect(getUrl.startsWith(front.url)).toBe(true);
    const got = await fetch(getUrl);
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);

    const range = await fetch(getUrl, { headers: { Range: 'bytes=0-9' } });
    expect(range.status).toBe(206);
    expect(Buffer.from(await range.arrayBuffer()).equals(bytes.subarray(0, 10))).toBe(true);

    const putUrl = await getSignedUrl(s3, new PutObjectCommand({ Bucket: BUCKET, Key: 'plain/presigned.txt' }), { expiresIn: 60 });
    const put = await fetch(putUrl, { method: 'PUT', body: 'via presigned PUT' });
    expect(put.status).toBe(200);
    expect((await getBytes('plain/presigned.txt')).toString()).toBe('via presigned PUT');

    await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'plain/a b+c.bin' }));
    await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'plain/presigned.txt' }));
    expect(await keysUnder('plain/')).toEqual([]);
    const missing = await fetch(getUrl);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('<Code>NoSuchKey</Code>');
  });
});

describe('presigned POST form uploads', () => {
  it('stores a cloudconvert-SDK-style upload (unquoted filename with a space) at the substituted key, byte for byte', async () => {
    const { url, fields } = await presignedPost('tasks/t1/${filename}', { fields: { success_action_status: '201', 'Content-Type': 'application/pdf' } });
    expect(url).toBe(`${front.url}/${BUCKET}`);
    const bytes = allBytes();
    const answer = await postSdkStyle(url, fields, 'my report.pdf', bytes);
    expect(answer.status, answer.body).toBe(201);
    expect(xmlValue(answer.body, 'Key')).toBe('tasks/t1/my report.pdf');
    expect(xmlValue(answer.body, 'Bucket')).toBe(BUCKET);
    const md5 = createHash('md5').update(bytes).digest('hex');
    expect(xmlValue(answer.body, 'ETag')).toBe(`&quot;${md5}&quot;`);
    expect(answer.headers.location).toBe(`${front.url}/${BUCKET}/tasks/t1/my%20report.pdf`);

    expect(await keysUnder('tasks/t1/')).toEqual(['tasks/t1/my report.pdf']);
    expect((await getBytes('tasks/t1/my report.pdf')).equals(bytes)).toBe(true);
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'tasks/t1/my report.pdf' }));
    expect(head.ContentType).toBe('application/pdf');
  });

  it('takes the name from filename*=UTF-8 and keeps only the base name of a path', async () => {
    const { url, fields } = await presignedPost('tasks/t5/${filename}');
    const { boundary, head, tail } = sdkStyleForm(fields, `content-disposition:form-data;name="file";filename*=UTF-8''r%C3%A9sum%C3%A9%20final.pdf`);
    const answer = await send(url, { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body: Buffer.concat([head, Buffer.from('x'), tail]) });
    expect(answer.status, answer.body).toBe(204);
    const second = await postSdkStyle(url, fields, 'C:\\Users\\me\\notes v2.txt', Buffer.from('y'));
    expect(second.status, second.body).toBe(204);
    expect((await keysUnder('tasks/t5/')).sort()).toEqual(['tasks/t5/notes v2.txt', 'tasks/t5/résumé final.pdf']);
  });

  it('streams a 50 MB upload with bounded memory and stores it intact', async () => {
    const { url, fields } = await presignedPost('tasks/big/${filename}', { fields: { success_action_status: '201' } });
    const { boundary, head, tail } = sdkStyleForm(fields, 'content-disposition:form-data;name="file";filename=big file.bin');
    const size = 50 * 1024 * 1024;
    const sent = createHash('md5');
    // A pool of random chunks, cycled: the client side allocates nothing per chunk.
    const pool = Array.from({ length: 16 }, () => randomBytes(64 * 1024));
    async function* body() {
      yield head;
      for (let i = 0, n = 0; i < size; i += 65536, n++) {
        const data = pool[n % pool.length]!.subarray(0, Math.min(65536, size - i));
        sent.update(data);
        yield data;
      }
      yield tail;
    }
    // Memory held, not garbage waiting for a collection: RSS moves with V8's collection schedule and with
    // malloc keeping freed pages, so a 50 MB upload could show +24 MB of RSS while holding almost nothing.
    // What the code holds is the live JavaScript heap plus live Buffer memory right after a full collection;
    // a front that buffered the upload would hold its 50 MB there.
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const live = () => {
      gc();
      const { heapUsed, arrayBuffers } = process.memoryUsage();
      return heapUsed + arrayBuffers;
    };
    const baseline = live();
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, live());
    }, 25);
    let answer: Answer;
    try {
      answer = await send(url, {
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + size + tail.length },
        body: Readable.from(body()),
      });
    } finally {
      clearInterval(sampler);
    }
    const growthMb = (peak - baseline) / 1024 / 1024;
    console.log(`${size / 1048576} MB form upload: live memory ${(baseline / 1048576).toFixed(1)} MB -> peak ${(peak / 1048576).toFixed(1)} MB (+${growthMb.toFixed(1)} MB)`);
    expect(answer.status, answer.body).toBe(201);
    expect(growthMb).toBeLessThan(20);

    const out = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'tasks/big/big file.bin' }));
    expect(out.ContentLength).toBe(size);
    const stored = createHash('md5');
    for await (const chunk of out.Body as Readable) stored.update(chunk as Buffer);
    expect(stored.digest('hex')).toBe(sent.digest('hex'));
    await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'tasks/big/big file.bin' }));
    expect(await readdir(spoolDir)).toEqual([]);
  }, 180_000);

  it('accepts a standard FormData post from fetch (quoted filename) and answers 204 by default', async () => {
    const { url, fields } = await presignedPost('tasks/t2/${filename}');
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    const bytes = allBytes();
    form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/octet-stream' }), 'quoted name.bin');
    const res = await fetch(url, { method: 'POST', body: form });
    expect(res.status, await res.clone().text()).toBe(204);
    expect(res.headers.get('etag')).toBe(`"${createHash('md5').update(bytes).digest('hex')}"`);
    expect((await getBytes('tasks/t2/quoted name.bin')).equals(bytes)).toBe(true);
  });

  it('answers success_action_redirect with 303 and bucket, key and etag in the Location', async () => {
    const { url, fields } = await presignedPost('tasks/t3/${filename}', { fields: { success_action_redirect: 'http://app.example/done?step=2' } });
    const answer = await postSdkStyle(url, fields, 'r.txt', Buffer.from('redirected'));
    expect(answer.status, answer.body).toBe(303);
    const location = new URL(answer.headers.location!);
    expect(location.origin + location.pathname).toBe('http://app.example/done');
    expect(location.searchParams.get('step')).toBe('2');
    expect(location.searchParams.get('bucket')).toBe(BUCKET);
    expect(location.searchParams.get('key')).toBe('tasks/t3/r.txt');
    expect(location.searchParams.get('etag')).toBe(`"${createHash('md5').update('redirected').digest('hex')}"`);
    expect((await getBytes('tasks/t3/r.txt')).toString()).toBe('redirected');
  });

  it('refuses an expired policy with 403 AccessDenied and stores nothing', async () => {
    const { url, fields } = await presignedPost('tasks/expired/${filename}', { expires: -60 });
    const answer = await postSdkStyle(url, fields, 'late.txt', Buffer.from('too late'));
    expect(answer.status).toBe(403);
    expect(answer.headers['content-type']).toBe('application/xml');
    expect(xmlValue(answer.body, 'Code')).toBe('AccessDenied');
    expect(xmlValue(answer.body, 'Message')).toBe('Invalid according to Policy: Policy expired.');
    expect(await keysUnder('tasks/expired/')).toEqual([]);
  });

  it('gives browsers the bucket CORS headers on form answers, errors included', async () => {
    const { url, fields } = await presignedPost('tasks/cors/${filename}');
    const form = () => {
      const f = new FormData();
      for (const [name, value] of Object.entries(fields)) f.append(name, value);
      f.append('file', new Blob(['hello']), 'hello.txt');
      return f;
    };
    const ok = await fetch(url, { method: 'POST', body: form(), headers: { Origin: 'http://app.example' } });
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    const refused = await fetch(url.replace(BUCKET, BUCKET), { method: 'POST', body: (() => { const f = form(); f.set('key', 'other/x'); return f; })(), headers: { Origin: 'http://app.example' } });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    const preflight = await fetch(url, { method: 'OPTIONS', headers: { Origin: 'http://app.example', 'Access-Control-Request-Method': 'POST' } });
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
  });

  it('refuses a tampered signature or policy with 403 SignatureDoesNotMatch', async () => {
    const { url, fields } = await presignedPost('tasks/tampered/${filename}');
    const signature = fields['X-Amz-Signature']!;
    const badSignature = { ...fields, 'X-Amz-Signature': signature.slice(0, -1) + (signature.endsWith('0') ? '1' : '0') };
    const a = await postSdkStyle(url, badSignature, 'x.txt', Buffer.from('x'));
    expect(a.status).toBe(403);
    expect(xmlValue(a.body, 'Code')).toBe('SignatureDoesNotMatch');

    const policy = JSON.parse(Buffer.from(fields.Policy!, 'base64').toString()) as { conditions: unknown[] };
    policy.conditions = policy.conditions.map((c) => (Array.isArray(c) && c[0] === 'content-length-range' ? ['content-length-range', 0, 10 ** 12] : c));
    const badPolicy = { ...fields, Policy: Buffer.from(JSON.stringify(policy)).toString('base64') };
    const b = await postSdkStyle(url, badPolicy, 'x.txt', Buffer.from('x'));
    expect(b.status).toBe(403);
    expect(xmlValue(b.body, 'Code')).toBe('SignatureDoesNotMatch');
    expect(await keysUnder('tasks/tampered/')).toEqual([]);
  });

  it('refuses a file over the content-length-range with 400 EntityTooLarge and keeps the previous object', async () => {
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'tasks/t4/big.bin', Body: 'previous' }));
    const { url, fields } = await presignedPost('tasks/t4/${filename}', { maxBytes: 1024 });
    const answer = await postSdkStyle(url, fields, 'big.bin', randomBytes(4096));
    expect(answer.status).toBe(400);
    expect(xmlValue(answer.body, 'Code')).toBe('EntityTooLarge');
    expect(xmlValue(answer.body, 'MaxSizeAllowed')).toBe('1024');
    expect(xmlValue(answer.body, 'ProposedSize')).toBe('4096');

    // Streamed and well over the limit: the answer comes while the client is still sending.
    const { boundary, head, tail } = sdkStyleForm(fields, 'content-disposition:form-data;name="file";filename=big.bin');
    const size = 8 * 1024 * 1024;
    async function* body() {
      yield head;
      for (let i = 0; i < size; i += 65536) yield randomBytes(65536);
      yield tail;
    }
    const streamed = await send(url, {
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + size + tail.length },
      body: Readable.from(body()),
    });
    expect(streamed.status).toBe(400);
    expect(xmlValue(streamed.body, 'Code')).toBe('EntityTooLarge');

    // Exactly at the limit is fine.
    const ok = await postSdkStyle(url, fields, 'fits.bin', randomBytes(1024));
    expect(ok.status, ok.body).toBe(204);

    expect((await keysUnder('tasks/t4/')).sort()).toEqual(['tasks/t4/big.bin', 'tasks/t4/fits.bin']);
    expect((await getBytes('tasks/t4/big.bin')).toString()).toBe('previous');
    expect(await readdir(spoolDir)).toEqual([]);
  });

  it('checks the key condition before ${filename} substitution and refuses unconditioned fields', async () => {
    const { url, fields } = await presignedPost('tasks/t6/${filename}');
    const wrongKey = await postSdkStyle(url, { ...fields, key: 'elsewhere/${filename}' }, 'x.txt', Buffer.from('x'));
    expect(wrongKey.status).toBe(403);
    expect(xmlValue(wrongKey.body, 'Message')).toBe('Invalid according to Policy: Policy Condition failed: [&quot;starts-with&quot;, &quot;$key&quot;, &quot;tasks/t6/&quot;]');

    const extra = await postSdkStyle(url, { ...fields, 'x-amz-meta-owner': 'me' }, 'x.txt', Buffer.from('x'));
    expect(extra.status).toBe(403);
    expect(xmlValue(extra.body, 'Message')).toBe('Invalid according to Policy: Extra input fields: x-amz-meta-owner');

    // x-ignore-* fields need no condition
    const ignored = await postSdkStyle(url, { ...fields, 'x-ignore-note': 'anything' }, 'ok.txt', Buffer.from('ok'));
    expect(ignored.status, ignored.body).toBe(204);
    expect(await keysUnder('tasks/t6/')).toEqual(['tasks/t6/ok.txt']);
  });

  it('answers malformed forms as S3 does: no policy, key after the file, no file', async () => {
    const { url, fields } = await presignedPost('tasks/t7/${filename}');
    const { Policy: _policy, ...unsigned } = fields;
    const anonymous = await postSdkStyle(url, unsigned, 'x.txt', Buffer.from('x'));
    expect(anonymous.status).toBe(403);
    expect(xmlValue(anonymous.body, 'Code')).toBe('AccessDenied');

    const { key: _key, ...withoutKey } = fields;
    const keyLast = await postSdkStyle(url, withoutKey, 'x.txt', Buffer.from('x'));
    expect(keyLast.status).toBe(400);
    expect(xmlValue(keyLast.body, 'Code')).toBe('InvalidArgument');

    const boundary = sdkBoundary();
    const fieldsOnly = Object.entries(fields)
      .map(([name, value]) => `--${boundary}\r\ncontent-disposition:form-data;name="${name}"\r\n\r\n${value}\r\n`)
      .join('');
    const noFile = await send(url, { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body: Buffer.from(`${fieldsOnly}--${boundary}--\r\n`) });
    expect(noFile.status).toBe(400);
    expect(xmlValue(noFile.body, 'Message')).toBe('POST requires exactly one file upload per request.');

    const truncated = await send(url, { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body: Buffer.from(`${fieldsOnly}--${boundary}\r\ncontent-disposition:form-data;name="file";filename=a\r\n\r\nabc`) });
    expect(truncated.status).toBe(400);
    expect(xmlValue(truncated.body, 'Code')).toBe('MalformedPOSTRequest');
    expect(await keysUnder('tasks/t7/')).toEqual([]);
  });
});
