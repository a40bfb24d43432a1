/**
 * s3rver notifications → EventBridge "Object Created" events (local/s3/events.ts), with uploads made
 * through the local S3 front as the platform makes them: SDK PUT, presigned POST form, copy, multipart.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CopyObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import type { S3ObjectCreatedNotificationEvent } from 'aws-lambda';
import S3rver from 's3rver';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createS3Client } from '#lib/adapters/file-store/s3-file-store.js';
import { startS3Front, type S3Front } from '../../local/s3/front.js';
import {
  decodeS3EventKey,
  encodeS3EventKey,
  forwardS3Events,
  type EventBridgeS3ObjectCreated,
  type S3EventForwarder,
} from '../../local/s3/events.js';

const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const BUCKET = 'events-test';
const OTHER_BUCKET = 'events-other';

let dir: string;
let s3rver: S3rver;
let front: S3Front;
let s3: S3Client;
let forwarder: S3EventForwarder | undefined;
const logs: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 's3-events-test-'));
  s3rver = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: join(dir, 's3'),
    configureBuckets: [{ name: BUCKET }, { name: OTHER_BUCKET }],
  });
  const { port } = await s3rver.run();
  front = await startS3Front({ target: `http://127.0.0.1:${port}`, credentials: CREDENTIALS });
  s3 = createS3Client({ region: 'us-east-1', endpoint: front.url, credentials: CREDENTIALS });
});

afterEach(async () => {
  await forwarder?.idle();
  forwarder?.();
  forwarder = undefined;
  logs.length = 0;
});

afterAll(async () => {
  s3?.destroy();
  await front?.close();
  await s3rver?.close();
  await rm(dir, { recursive: true, force: true });
});

const md5 = (data: Buffer | string) => createHash('md5').update(data).digest('hex');

/** Subscribes a forwarder that records what it delivers. */
function collect(opts: { prefix?: string; deliver?: (event: EventBridgeS3ObjectCreated) => Promise<void> } = {}) {
  const events: EventBridgeS3ObjectCreated[] = [];
  forwarder = forwardS3Events(s3rver, {
    bucket: BUCKET,
    prefix: opts.prefix ?? 'tasks/',
    retryDelayMs: 20,
    log: (line) => logs.push(line),
    deliver: async (event) => {
      await opts.deliver?.(event);
      events.push(event);
    },
  });
  return events;
}

async function postForm(keyTemplate: string, filename: string, bytes: Buffer): Promise<number> {
  const { url, fields } = await createPresignedPost(s3, { Bucket: BUCKET, Key: keyTemplate, Conditions: [['content-length-range', 0, 10_000_000]], Expires: 60 });
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([new Uint8Array(bytes)]), filename);
  const res = await fetch(url, { method: 'POST', body: form });
  await res.arrayBuffer();
  return res.status;
}

describe('S3 → EventBridge Object Created events', () => {
  it('turns a PUT and a POST upload into one event each, shaped as S3 sends them to EventBridge', async () => {
    const events = collect();
    const putBody = Buffer.from('put body');
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'tasks/t1/a b+c (1).txt', Body: putBody }));
    const postBody = randomBytes(3000);
    expect(await postForm('tasks/t2/${filename}', 'my report.pdf', postBody)).toBe(204);
    await forwarder!.idle();

    expect(events).toHaveLength(2);
    const [put, post] = events as [EventBridgeS3ObjectCreated, EventBridgeS3ObjectCreated];
    expect(put).toMatchObject({
      version: '0',
      'detail-type': 'Object Created',
      source: 'aws.s3',
      account: '000000000000',
      region: 'us-east-1',
      resources: [`arn:aws:s3:::${BUCKET}`],
      detail: {
        version: '0',
        bucket: { name: BUCKET },
        object: { key: 'tasks/t1/a+b%2Bc+%281%29.txt', size: putBody.length, etag: md5(putBody) },
        requester: '000000000000',
        'source-ip-address': '127.0.0.1',
        reason: 'PutObject',
      },
    });
    expect(put.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(put.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(put.detail['request-id']).toMatch(/^[0-9A-F]{16}$/);
    expect(put.detail.object.sequencer).toMatch(/^[0-9A-F]{18}$/);
    expect(decodeS3EventKey(put.detail.object.key)).toBe('tasks/t1/a b+c (1).txt');

    expect(post.detail.reason).toBe('POST Object');
    expect(post.detail.object).toMatchObject({ key: 'tasks/t2/my+report.pdf', size: postBody.length, etag: md5(postBody) });
    expect(decodeS3EventKey(post.detail.object.key)).toBe('tasks/t2/my report.pdf');
    expect(post.detail.object.sequencer > put.detail.object.sequencer).toBe(true);

    // The aws-lambda typings' S3 EventBridge event, but for version-id (absent on unversioned buckets).
    const typed: S3ObjectCreatedNotificationEvent = { ...post, detail: { ...post.detail, object: { ...post.detail.object, 'version-id': 'null' } } };
    expect(typed.detail.reason).toBe('POST Object');
  });

  it('ignores other prefixes, other buckets and deletions', async () => {
    const events = collect({ prefix: 'tasks/' });
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'exports/x.txt', Body: 'x' }));
    expect(await postForm('uploads/${filename}', 'y.txt', Buffer.from('y'))).toBe(204);
    await s3.send(new PutObjectCommand({ Bucket: OTHER_BUCKET, Key: 'tasks/t3/z.txt', Body: 'z' }));
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'tasks/t3/kept.txt', Body: 'k' }));
    await forwarder!.idle();
    expect(events.map((e) => e.detail.object.key)).toEqual(['tasks/t3/kept.txt']);
  });

  it('reports copies and multipart uploads with their own reasons', async () => {
    const events = collect();
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'tasks/t4/source.txt', Body: 'copied body' }));
    await s3.send(new CopyObjectCommand({ Bucket: BUCKET, Key: 'tasks/t4/copy.txt', CopySource: `${BUCKET}/tasks/t4/source.txt` }));
    const big = randomBytes(6 * 1024 * 1024);
    await new Upload({ client: s3, params: { Bucket: BUCKET, Key: 'tasks/t4/multi.bin', Body: big }, partSize: 5 * 1024 * 1024 }).done();
    await forwarder!.idle();
    expect(events.map((e) => [e.detail.object.key, e.detail.reason, e.detail.object.size])).toEqual([
      ['tasks/t4/source.txt', 'PutObject', 11],
      ['tasks/t4/copy.txt', 'CopyObject', 11],
      ['tasks/t4/multi.bin', 'CompleteMultipartUpload', big.length],
    ]);
    expect(events[1]!.detail.object.etag).toBe(md5('copied body'));
  });

  it('delivers one at a time per key, in order, retrying failures with back-off and never throwing', async () => {
    let running = 0;
    let overlapped = false;
    const failures = new Map<string, number>();
    const events = collect({
      deliver: async (event) => {
        running++;
        if (running > 1 && event.detail.object.key.startsWith('tasks/t5/same')) overlapped = true;
        await new Promise((r) => setTimeout(r, 15));
        running--;
        const body = event.detail.object.etag;
        const seen = failures.get(body) ?? 0;
        if (event.detail.object.size === 2 && seen < 2) {
          failures.set(body, seen + 1);
          throw new Error('target unavailable');
        }
      },
    });
    // Three versions of one key: the second fails twice before it goes through, the third must wait for it.
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'tasks/t5/same.txt', Body: '1' }));
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'tasks/t5/same.txt', Body: '22' }));
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'tasks/t5/same.txt', Body: '333' }));
    await forwarder!.idle();
    expect(overlapped).toBe(false);
    expect(events.map((e) => e.detail.object.size)).toEqual([1, 2, 3]);
    expect(logs.filter((l) => l.includes('retrying'))).toHaveLength(2);

    // A delivery that always fails is given up on after the retries, logged, and the process goes on.
    const always = collectAlwaysFailing();
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'tasks/t5/never.txt', Body: 'n' }));
    await always.idle();
    always();
    expect(logs.some((l) => l.includes('giving up') && l.includes('tasks/t5/never.txt') && l.includes('after 3 attempt(s)'))).toBe(true);
  });

  it('encodes keys as S3 notifications do', () => {
    expect(encodeS3EventKey('a/b c/d+e=f&g(1)é~.txt')).toBe('a/b+c/d%2Be%3Df%26g%281%29%C3%A9%7E.txt');
    expect(decodeS3EventKey(encodeS3EventKey('a/b c/d+e=f&g(1)é~.txt'))).toBe('a/b c/d+e=f&g(1)é~.txt');
  });
});

function collectAlwaysFailing(): S3EventForwarder {
  return forwardS3Events(s3rver, {
    bucket: BUCKET,
    prefix: 'tasks/t5/never',
    retries: 2,
    retryDelayMs: 10,
    log: (line) => logs.push(line),
    deliver: () => Promise.reject(new Error('always down')),
  });
}
