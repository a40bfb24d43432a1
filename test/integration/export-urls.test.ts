/**
 * Export URLs and upload forms that hold for their promised lifetime whatever credentials the
 * functions run with. In Lambda a function signs with its role's temporary credentials, which expire
 * long before 24 hours; here the export runs with temporary credentials that s3rver knows, which are then
 * revoked (as an expired session would be), and the URL is downloaded afterwards.
 *
 * In-process, against dynalite and s3rver: the export step runs through the runner, the task is shown
 * by the GET /v2/tasks/{id} handler and the URL is followed through the download handler (service
 * URLs) and over HTTP (storage URLs), redirect by redirect.
 */
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '#lib/kernel/config.js';
import { createS3Client, S3FileStore } from '#lib/adapters/file-store/s3-file-store.js';
import { createLogger } from '#lib/kernel/log.js';
import { exportUrl, importStaged } from '../support/operations.js';
import { outputKey, type Implementation } from '#lib/file-api/operations/framework/types.js';
import { planJob } from '#lib/file-api/tasks/plan.js';
import { runTask } from '#lib/file-api/tasks/runner.js';
import { Scheduler } from '#lib/file-api/tasks/scheduler.js';
import { TaskService } from '#lib/file-api/tasks/service.js';
import { TaskStore } from '#lib/file-api/records/store.js';
import type { TaskRecord } from '#lib/file-api/records/model.js';
import { startStateBackend } from '../support/dynalite.js';
import { useLocalEnv } from '../support/env.js';
import { call, type FakeRequest } from '../support/lambda.js';
import { RecordingQueue, TEST_CONFIG_ENV } from '../support/recording-queue.js';
import { startFilesBackend } from '../support/s3rver.js';

const require = createRequire(import.meta.url);
/** s3rver's key registry: it refuses presigned requests whose access key it does not know. */
const { DUMMY_ACCOUNT } = require('s3rver/lib/models/account.js') as {
  DUMMY_ACCOUNT: { createKeyPair(accessKeyId: string, secretAccessKey: string): void; revokeAccessKey(accessKeyId: string): void };
};

type Handler = Parameters<typeof call>[0];

let state: Awaited<ReturnType<typeof startStateBackend>>;
let files: Awaited<ReturnType<typeof startFilesBackend>>;
let store: TaskStore;
let service: TaskService;
let apiKey: string;
let handlers: { getTask: Handler; download: Handler | undefined };

/** The temporary credentials the export step ran with (an `ASIA…` key with a session token, as Lambda's). */
const temporary = {
  accessKeyId: `ASIA${randomBytes(8).toString('hex').toUpperCase()}`,
  secretAccessKey: randomBytes(30).toString('base64'),
  sessionToken: `IQoJb3JpZ2luX2Vj${randomBytes(48).toString('base64url')}`,
};
let exportTimeFiles: S3FileStore;
const BASE = 'http://localhost:4000';
const log = createLogger({}, { level: 'silent' });
const config = parseConfig({ ...TEST_CONFIG_ENV });

beforeAll(async () => {
  [state, files] = await Promise.all([startStateBackend(), startFilesBackend()]);
  // The functions' own (current) credentials: s3rver's S3RVER key, through the environment.
  useLocalEnv({ dynamodb: state.endpoint, s3: files.endpoint, table: state.table, bucket: files.bucket, UPLOAD_FORM_SECONDS: '1800' });
  DUMMY_ACCOUNT.createKeyPair(temporary.accessKeyId, temporary.secretAccessKey);
  exportTimeFiles = new S3FileStore(createS3Client({ region: 'us-east-1', endpoint: files.endpoint, credentials: temporary }), files.bucket);
  store = new TaskStore(state.store);
  service = new TaskService({ store, scheduler: new Scheduler({ store, queue: new RecordingQueue(), log }), files: exportTimeFiles, log });
  const { apiKeys } = await import('#lib/wiring/file-api.js');
  apiKey = (await apiKeys().create({ scopes: ['task.read', 'task.write'] })).key;
  handlers = { getTask: (await import('#functions/tasks/get.js')).handler, download: undefined };
});
afterAll(async () => {
  DUMMY_ACCOUNT.revokeAccessKey(temporary.accessKeyId);
  await Promise.all([state?.close(), files?.close()]);
});

/** Runs every task of a job in order with the export-time credentials; returns the tasks by name. */
async function runJob(tasks: Record<string, Record<string, unknown>>, implementations: Record<string, Implementation> = {}) {
  const { tasks: created } = await service.createJob(1, planJob({ tasks }));
  const scheduler = new Scheduler({ store, queue: new RecordingQueue(), log });
  for (const task of created) {
    await runTask(task.id, {
      store,
      scheduler,
      files: exportTimeFiles,
      config,
      log,
      implementations: { 'import/raw': importStaged, 'export/url': exportUrl, ...implementations },
      requeue: async () => {},
    });
  }
  return Object.fromEntries(created.map((t) => [t.name!, t])) as Record<string, TaskRecord>;
}

/** The task as GET /v2/tasks/{id} shows it. */
async function shown(id: string) {
  const res = await call(handlers.getTask, { path: `/v2/tasks/${id}`, pathParameters: { id }, headers: { authorization: `Bearer ${apiKey}` } });
  expect(res.status).toBe(200);
  return { task: res.json.data as { status: string; result: { files?: Array<{ filename: string; dir?: string; url: string }>; form?: { url: string; parameters: Record<string, string> } } }, text: res.text };
}

/** A request to the download function, built from a URL of the service (path parameters as the route gives them). */
async function downloadHandler() {
  handlers.download ??= (await import('#functions/files/download.js')).handler;
  return handlers.download;
}
async function callService(url: string, method = 'GET') {
  const u = new URL(url);
  const [, , , taskId, index, name] = u.pathname.split('/');
  const req: FakeRequest = {
    method,
    path: u.pathname,
    query: u.search.slice(1),
    pathParameters: { taskId: taskId ?? '', index: index ?? '', name: name ?? '' },
  };
  return call(await downloadHandler(), req);
}

/** Follows a URL as a client would (service URLs in-process, storage URLs over HTTP), redirects included. */
async function download(url: string, method = 'GET'): Promise<{ status: number; body: Buffer; headers: Headers; hops: string[] }> {
  const hops: string[] = [];
  let next = url;
  for (let i = 0; i < 5; i++) {
    hops.push(next);
    if (next.startsWith(`${BASE}/`)) {
      const res = await callService(next, method);
      if (res.status >= 300 && res.status < 400 && res.headers.location) {
        next = res.headers.location;
        continue;
      }
      return { status: res.status, body: Buffer.from(res.text), headers: new Headers(res.headers), hops };
    }
    const res = await fetch(next, { method, redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      next = new URL(location, next).href;
      continue;
    }
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()), headers: res.headers, hops };
  }
  throw new Error(`too many redirects from ${url}`);
}

describe('export URLs', () => {
  it('keep working once the credentials that ran the export have expired, where a storage URL signed with them fails', async () => {
    const t = await runJob({
      raw: { operation: 'import/raw', file: 'still here tomorrow', filename: 'report.txt' },
      out: { operation: 'export/url', input: 'raw' },
    });
    const { task } = await shown(t.out!.id);
    expect(task.status).toBe('finished');
    const url = task.result.files![0]!.url;
    // What the export used to hand out: storage presigned with the export function's credentials.
    const storageUrl = await exportTimeFiles.signedGetUrl(outputKey(t.out!.id, 'report.txt'), { expiresInSeconds: 24 * 3600, filename: 'report.txt' });
    expect((await download(storageUrl)).status).toBe(200);
    expect((await download(url)).body.toString()).toBe('still here tomorrow');

    // The session of the export-time credentials ends.
    DUMMY_ACCOUNT.revokeAccessKey(temporary.accessKeyId);
    try {
      expect((await download(storageUrl)).status).toBe(403);
      const later = await download(url);
      expect(later.status).toBe(200);
      expect(later.body.toString()).toBe('still here tomorrow');
      expect(later.headers.get('content-disposition')).toContain('attachment; filename="report.txt"');
      expect(later.hops).toHaveLength(2);
    } finally {
      DUMMY_ACCOUNT.createKeyPair(temporary.accessKeyId, temporary.secretAccessKey);
    }
  });

  it('point at the service with an expiry of at most 24 hours, and the stored task keeps no URL', async () => {
    const t = await runJob({
      raw: { operation: 'import/raw', file: 'x', filename: 'a file (1).txt' },
      out: { operation: 'export/url', input: 'raw' },
    });
    const { task } = await shown(t.out!.id);
    const url = new URL(task.result.files![0]!.url);
    expect(url.origin + url.pathname).toBe(`${BASE}/v2/files/${t.out!.id}/0/a_file__1_.txt`);
    expect([...url.searchParams.keys()]).toEqual(['expires', 'signature']);
    const expires = Number(url.searchParams.get('expires'));
    const now = Math.floor(Date.now() / 1000);
    expect(expires).toBeGreaterThan(now + 23 * 3600);
    expect(expires).toBeLessThanOrEqual(now + 24 * 3600);
    // The same URL every time the task is shown.
    expect((await shown(t.out!.id)).task.result.files![0]!.url).toBe(url.href);
    const stored = await state.store.get({ pk: `task#${t.out!.id}`, sk: 'task' });
    expect(JSON.stringify(stored)).not.toContain('http');
    // The file keeps its real name in the download.
    expect((await download(url.href)).headers.get('content-disposition')).toContain(`filename*=UTF-8''${encodeURIComponent('a file (1).txt')}`);
  });

  it('serve files kept in a dir, and inline when the export asks for it', async () => {
    const withDirs: Implementation = async (ctx) => ({
      result: {
        files: [
          await ctx.save('page.txt', 'first', { dir: 'one' }),
          await ctx.save('page.txt', 'second', { dir: 'two/deeper' }),
        ],
      },
    });
    const t = await runJob(
      {
        pages: { operation: 'import/raw', file: '-', filename: 'ignored.txt' },
        out: { operation: 'export/url', input: 'pages', inline: true },
      },
      { 'import/raw': withDirs },
    );
    const { task } = await shown(t.out!.id);
    expect(task.result.files!.map((f) => [f.dir, f.filename])).toEqual([
      ['one', 'page.txt'],
      ['two/deeper', 'page.txt'],
    ]);
    const [first, second] = await Promise.all(task.result.files!.map((f) => download(f.url)));
    expect(first!.body.toString()).toBe('first');
    expect(second!.body.toString()).toBe('second');
    expect(second!.headers.get('content-disposition')).toMatch(/^inline; filename="page.txt"/);
  });


  it('serve each file with the content type its name gives, stored untyped as an upload is', async () => {
    const untyped: Implementation = async (ctx) => ({
      result: { files: await Promise.all(['photo.png', 'paper.pdf', 'clip.mp4'].map((name) => ctx.save(name, `bytes of ${name}`))) },
    });
    const t = await runJob(
      { files: { operation: 'import/raw', file: '-', filename: 'ignored.txt' }, out: { operation: 'export/url', input: 'files' } },
      { 'import/raw': untyped },
    );
    const { task } = await shown(t.out!.id);
    const types = await Promise.all(task.result.files!.map(async (f) => (await download(f.url)).headers.get('content-type')));
    expect(types).toEqual(['image/png', 'application/pdf', 'video/mp4']);
  });

  it('serve a file named without an extension with the type its content shows, however it was stored', async () => {
    const png = await sharp({ create: { width: 4, height: 3, channels: 3, background: '#09c' } }).png().toBuffer();
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
    // A step that streams its file in as import/url does, with the type its source declared (nothing useful).
    const streamed: Implementation = async (ctx) => ({
      result: { files: [await ctx.save('scan', Readable.from([pdf.subarray(0, 3), pdf.subarray(3)]), { contentType: 'application/octet-stream' })] },
    });
    const t = await runJob(
      {
        photo: { operation: 'import/base64', file: png.toString('base64'), filename: 'photo' },
        scan: { operation: 'import/url', url: 'https://example.com/scan' },
        out: { operation: 'export/url', input: ['photo', 'scan'] },
      },
      { 'import/base64': importStaged, 'import/url': streamed },
    );
    const { task } = await shown(t.out!.id);
    const got = await Promise.all(task.result.files!.map(async (f) => download(f.url)));
    expect(got.map((d) => [d.headers.get('content-type'), d.body.length])).toEqual([
      ['image/png', png.length],
      ['application/pdf', pdf.length],
    ]);
  });

  it('never serve what a browser would run inline (HTML, SVG, XML), whatever the export asks; other types stay inline', async () => {
    const t = await runJob({
      page: { operation: 'import/raw', file: '<html><script>alert(document.domain)</script></html>', filename: 'page.html' },
      svg: { operation: 'import/raw', file: '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', filename: 'drawing.svg' },
      nameless: { operation: 'import/raw', file: '<!DOCTYPE html><script>alert(1)</script>', filename: 'index' },
      text: { operation: 'import/raw', file: 'plain words', filename: 'notes.txt' },
      out: { operation: 'export/url', input: ['page', 'svg', 'nameless', 'text'], inline: true },
    });
    const { task } = await shown(t.out!.id);
    const got = await Promise.all(task.result.files!.map(async (f) => download(f.url)));
    expect(got.map((d) => [d.headers.get('content-type'), d.headers.get('content-disposition')?.split(';')[0]])).toEqual([
      ['text/html', 'attachment'],
      ['image/svg+xml', 'attachment'],
      ['text/html', 'attachment'],
      ['text/plain', 'inline'],
    ]);
  });

  it('serve each of two inputs that bring the same name, the later one numbered, neither overwritten', async () => {
    const t = await runJob({
      a: { operation: 'import/raw', file: 'optimized copy', filename: 'report.pdf' },
      b: { operation: 'import/raw', file: 'retitled copy', filename: 'report.pdf' },
      c: { operation: 'import/raw', file: 'third copy', filename: 'report.pdf' },
      out: { operation: 'export/url', input: ['a', 'b', 'c'] },
    });
    const { task } = await shown(t.out!.id);
    expect(task.result.files!.map((f) => f.filename)).toEqual(['report.pdf', 'report-1.pdf', 'report-2.pdf']);
    const bodies = await Promise.all(task.result.files!.map(async (f) => (await download(f.url)).body.toString()));
    expect(bodies).toEqual(['optimized copy', 'retitled copy', 'third copy']);
  });
  it('answer HEAD with a redirect that HEAD can follow', async () => {
    const t = await runJob({
      raw: { operation: 'import/raw', file: '12345', filename: 'five.txt' },
      out: { operation: 'export/url', input: 'raw' },
    });
    const url = (await shown(t.out!.id)).task.result.files![0]!.url;
    const head = await download(url, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('5');
    expect(head.hops).toHaveLength(2);
    // S3 checks the method a URL was presigned for: a HEAD gets a URL signed for HEAD, not the GET one
    // (s3rver does not check V4 signatures, so compare the two redirects of one second).
    for (let attempt = 0; ; attempt++) {
      const [get, headed] = await Promise.all([callService(url, 'GET'), callService(url, 'HEAD')]);
      const [g, h] = [new URL(get.headers.location!), new URL(headed.headers.location!)];
      if (g.searchParams.get('X-Amz-Date') !== h.searchParams.get('X-Amz-Date') && attempt < 5) continue;
      expect(h.searchParams.get('X-Amz-Date')).toBe(g.searchParams.get('X-Amz-Date'));
      expect(h.searchParams.get('X-Amz-Signature')).not.toBe(g.searchParams.get('X-Amz-Signature'));
      expect(h.pathname + h.searchParams.get('response-content-disposition')).toBe(g.pathname + g.searchParams.get('response-content-disposition'));
      break;
    }
  });

  it('are where GET /v2/jobs/{id}?redirect=true sends a finished job', async () => {
    const t = await runJob({
      raw: { operation: 'import/raw', file: 'via the job', filename: 'j.txt' },
      out: { operation: 'export/url', input: 'raw' },
    });
    const jobId = t.out!.jobId!;
    const { handler } = await import('#functions/jobs/get.js');
    const res = await call(handler, { path: `/v2/jobs/${jobId}`, query: 'redirect=true', pathParameters: { id: jobId }, headers: { authorization: `Bearer ${apiKey}` } });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe((await shown(t.out!.id)).task.result.files![0]!.url);
    expect((await download(res.headers.location!)).body.toString()).toBe('via the job');
  });

  describe('refuse', () => {
    let task: TaskRecord;
    let other: TaskRecord;
    let url: URL;
    beforeAll(async () => {
      const t = await runJob({
        raw: { operation: 'import/raw', file: 'secret stuff', filename: 'f.txt' },
        out: { operation: 'export/url', input: 'raw' },
        again: { operation: 'export/url', input: 'raw' },
      });
      task = t.out!;
      other = t.again!;
      url = new URL((await shown(task.id)).task.result.files![0]!.url);
    });
    const signer = async () => (await import('#lib/wiring/download-urls.js')).downloadUrls();
    const fileApiError = (res: Awaited<ReturnType<typeof callService>>, status: number, code: string) => {
      expect(res.status).toBe(status);
      expect(res.json).toMatchObject({ code, message: expect.any(String) });
      expect(res.headers.location).toBeUndefined();
    };

    it('a tampered signature with 403', async () => {
      const bad = new URL(url);
      const sig = bad.searchParams.get('signature')!;
      bad.searchParams.set('signature', `${sig.slice(0, -1)}${sig.endsWith('0') ? '1' : '0'}`);
      fileApiError(await callService(bad.href), 403, 'FORBIDDEN');
      bad.searchParams.delete('signature');
      fileApiError(await callService(bad.href), 403, 'FORBIDDEN');
    });

    it('a changed expiry with 403', async () => {
      const longer = new URL(url);
      longer.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
      fileApiError(await callService(longer.href), 403, 'FORBIDDEN');
    });

    it('an expired URL with 403, although its signature is right', async () => {
      const past = Math.floor(Date.now() / 1000) - 1;
      const expired = (await signer()).signedUrl(BASE, url.pathname, past);
      const res = await callService(expired);
      fileApiError(res, 403, 'FORBIDDEN');
      expect(res.json.message).toMatch(/expired/i);
    });

    it('the URL of one task used with another task id with 403', async () => {
      const swapped = new URL(url);
      swapped.pathname = url.pathname.replace(task.id, other.id);
      fileApiError(await callService(swapped.href), 403, 'FORBIDDEN');
    });

    it('a file the task does not have with 404', async () => {
      const expires = Number(url.searchParams.get('expires'));
      const s = await signer();
      fileApiError(await callService(s.signedUrl(BASE, `/v2/files/${task.id}/1/f.txt`, expires)), 404, 'NOT_FOUND');
      fileApiError(await callService(s.signedUrl(BASE, `/v2/files/${task.id}/0/g.txt`, expires)), 404, 'NOT_FOUND');
    });

    it('a task that is not a finished export with 404', async () => {
      const raw = (await store.getTask(task.dependsOn[0]!))!;
      const s = await signer();
      fileApiError(await callService(s.signedUrl(BASE, `/v2/files/${raw.id}/0/f.txt`, Number(url.searchParams.get('expires')))), 404, 'NOT_FOUND');
    });

    it('the URLs of a deleted task with 404', async () => {
      expect((await download(url.href)).status).toBe(200);
      await service.deleteTask((await store.getTask(task.id))!);
      fileApiError(await callService(url.href), 404, 'NOT_FOUND');
    });
  });

  it('never show the signing secret', async () => {
    const t = await runJob({
      raw: { operation: 'import/raw', file: 'x', filename: 'x.txt' },
      out: { operation: 'export/url', input: 'raw' },
    });
    const { text } = await shown(t.out!.id);
    const item = await state.store.get<{ pk: string; sk: string; value: string }>({ pk: 'secret#download-urls', sk: 'secret' });
    expect(item?.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const url = JSON.parse(text).data.result.files[0].url as string;
    const answers = [text, (await callService(url)).text, (await callService(`${url}0`)).text, (await callService(url, 'HEAD')).text, url];
    for (const answer of answers) {
      expect(answer).not.toContain(item!.value);
      expect(answer).not.toContain(Buffer.from(item!.value, 'base64url').toString('hex'));
    }
  });
});

describe('upload forms', () => {
  const policyOf = (form: { parameters: Record<string, string> }) =>
    JSON.parse(Buffer.from(form.parameters.Policy ?? form.parameters.policy ?? '', 'base64').toString('utf8')) as { expiration: string };

  it('are signed each time the task is shown, for UPLOAD_FORM_SECONDS, and not stored', async () => {
    const { tasks } = await service.createJob(1, planJob({ tasks: { up: { operation: 'import/upload' } } }));
    const id = tasks[0]!.id;
    const stored = await state.store.get({ pk: `task#${id}`, sk: 'task' });
    expect(JSON.stringify(stored)).not.toMatch(/X-Amz-Signature|Policy|form/i);

    const first = (await shown(id)).task.result.form!;
    expect(first.url).toBe(`${files.endpoint}/${files.bucket}`);
    expect(first.parameters.key).toBe(`uploads/${id}/file`);
    // Signed with the showing function's credentials, valid for 30 minutes (the setting above).
    expect(first.parameters['X-Amz-Credential']).toMatch(/^S3RVER\//);
    const expiration = Date.parse(policyOf(first).expiration);
    expect(expiration - Date.now()).toBeGreaterThan(29 * 60_000);
    expect(expiration - Date.now()).toBeLessThanOrEqual(30 * 60_000);

    await new Promise((r) => setTimeout(r, 1100));
    const second = (await shown(id)).task.result.form!;
    expect(Date.parse(policyOf(second).expiration)).toBeGreaterThan(expiration);
  });

  it('never outlive their task', async () => {
    const { tasks } = await service.createJob(1, planJob({ tasks: { up: { operation: 'import/upload' } } }));
    const id = tasks[0]!.id;
    // Ten minutes of the task's life are left.
    const endsAt = Math.floor(Date.now() / 1000) + 600;
    await state.store.update({ pk: `task#${id}`, sk: 'task' }, { set: { expiresAt: endsAt } });
    const form = (await shown(id)).task.result.form!;
    expect(Date.parse(policyOf(form).expiration)).toBeLessThanOrEqual(endsAt * 1000);
    expect(Date.parse(policyOf(form).expiration)).toBeGreaterThan(Date.now() + 9 * 60_000);
  });
});

describe('the signing key', () => {
  it('is made once: concurrent first uses agree, and the read-only download function finds it', async () => {
    const { loadSigningKey, SIGNING_KEY_ITEM } = await import('#lib/adapters/file-store/download-urls.js');
    const fresh = await startStateBackend();
    try {
      expect(await loadSigningKey(fresh.store, { create: false })).toBeUndefined();
      const keys = await Promise.all(Array.from({ length: 8 }, () => loadSigningKey(fresh.store, { create: true })));
      expect(new Set(keys.map((k) => k!.toString('hex'))).size).toBe(1);
      expect(keys[0]).toHaveLength(32);
      expect((await loadSigningKey(fresh.store, { create: false }))!.equals(keys[0]!)).toBe(true);
      expect(await fresh.store.get(SIGNING_KEY_ITEM)).toMatchObject({ value: keys[0]!.toString('base64url') });
    } finally {
      await fresh.close();
    }
  });

  it('is URL_SIGNING_SECRET when that is set, and nothing is written', async () => {
    const { loadSigningKey, SIGNING_KEY_ITEM } = await import('#lib/adapters/file-store/download-urls.js');
    const fresh = await startStateBackend();
    try {
      const configured = randomBytes(32).toString('base64');
      expect((await loadSigningKey(fresh.store, { configured, create: true }))!.toString('utf8')).toBe(configured);
      expect(await fresh.store.get(SIGNING_KEY_ITEM)).toBeUndefined();
    } finally {
      await fresh.close();
    }
  });
});
