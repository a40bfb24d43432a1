/**
 * Class 4 of issue 10: file names and object keys that come from input (upload form keys and file
 * names, Content-Disposition and URL paths, `filename` arguments, object names under a storage prefix)
 * never take a file outside its task's prefix, nor outside the local object store's data folder, and
 * `result.files[].filename` never carries `..`, separators or control characters to clients.
 *
 * The upload path runs on the local platform's pieces: s3rver in a data folder of the test's own, the
 * local S3 front, the object-created events of s3rver delivered to the upload-received function, which
 * reads the platform's configuration (dynalite, the front) as a cold start would.
 */
import { CopyObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '#lib/kernel/errors.js';
import { parseConfig } from '#lib/kernel/config.js';
import { createS3Client, S3FileStore } from '#lib/adapters/file-store/s3-file-store.js';
import { forwardS3Events, type S3EventForwarder } from '../../local/s3/events.js';
import { startS3Front, type S3Front } from '../../local/s3/front.js';
import { createLogger } from '#lib/kernel/log.js';
import { archive, exportUrl, importStaged, importUrl } from '../support/operations.js';
import { operationDefinition } from '#lib/file-api/operations/index.js';
import { EXPORTS, IMPORTS } from '../support/operations.js';
import { outputKey, TaskFailure, type Implementation } from '#lib/file-api/operations/framework/types.js';
import type { TaskRecord } from '#lib/file-api/records/model.js';
import { planJob } from '#lib/file-api/tasks/plan.js';
import { runTask } from '#lib/file-api/tasks/runner.js';
import { Scheduler } from '#lib/file-api/tasks/scheduler.js';
import { TaskService } from '#lib/file-api/tasks/service.js';
import { TaskStore } from '#lib/file-api/records/store.js';
import { startStateBackend } from '../support/dynalite.js';
import { useLocalEnv } from '../support/env.js';
import { RecordingQueue, TEST_CONFIG_ENV } from '../support/recording-queue.js';
import { readAll } from '../support/streams.js';
import { testLinks } from '../support/links.js';
import { startUserS3 } from '../support/user-s3.js';

const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const BUCKET = 'files';
const OTHER_BUCKET = 'other';

let root: string;
let bucketDir: string;
let s3rver: S3rver;
let front: S3Front;
let s3: S3Client;
let state: Awaited<ReturnType<typeof startStateBackend>>;
let userS3: Awaited<ReturnType<typeof startUserS3>>;
let origin: Server;
let originUrl: string;
let forwarder: S3EventForwarder;
let queue: RecordingQueue;
let store: TaskStore;
let scheduler: Scheduler;
let service: TaskService;
let baseline: Set<string>;
const log = createLogger({}, { level: 'silent' });
const config = parseConfig({ ...TEST_CONFIG_ENV, FILES_BUCKET: BUCKET, ALLOW_LOOPBACK_FETCH: 'true' });
const implementations: Record<string, Implementation> = {
  ...IMPORTS,
  ...EXPORTS,
  'import/raw': importStaged,
  'import/base64': importStaged,
  'import/url': importUrl,
  'export/url': exportUrl,
  archive,
};

/** Every file below `dir`, as absolute paths. */
async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(full)));
    else out.push(full);
  }
  return out;
}

/** Files that appeared since the start anywhere in the test's folder but inside the files bucket. */
async function filesOutsideBucket(): Promise<string[]> {
  return (await walk(root)).filter((f) => !baseline.has(f) && !f.startsWith(bucketDir + path.sep));
}

async function bucketKeys(prefix = ''): Promise<string[]> {
  const out = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return (out.Contents ?? []).map((o) => o.Key!);
}

const hasDotSegment = (key: string) => key.split(/[/\\]/).some((s) => s === '.' || s === '..');

/** What a client could be tricked by in a file name: separators, dot names, control characters, also once URL-decoded. */
function expectSafeFilename(name: string | undefined) {
  expect(name).toBeTypeOf('string');
  // As given, URL-decoded, and as a client that normalizes Unicode (NFKC) would see it.
  const forms = [name!, name!.normalize('NFKC')];
  try {
    forms.push(decodeURIComponent(name!), decodeURIComponent(name!.normalize('NFKC')));
  } catch {
    // not percent-encoded
  }
  for (const form of forms) {
    // `/`, `\\` and what reads as them or becomes them in Windows' best-fit code pages.
    expect(form, JSON.stringify(name)).not.toMatch(/[/\\\u2044\u2215\u2216\u29f5\u29f8\u29f9\ufe68\uff0f\uff3c]/);
    // eslint-disable-next-line no-control-regex
    expect(form, JSON.stringify(name)).not.toMatch(/[\u0000-\u001f\u007f]/);
    expect(form.replace(/[\s\u200b-\u200d\ufeff]/g, ''), JSON.stringify(name)).not.toMatch(/^\.*$/);
  }
}

function expectSafeDir(dir: string | undefined) {
  if (dir === undefined) return;
  expect(dir.startsWith('/'), dir).toBe(false);
  expect(dir).not.toContain('\\');
  expect(hasDotSegment(dir), dir).toBe(false);
  expect(dir.split('/').includes(''), dir).toBe(false);
}

/** Every object of a finished task lies under its own prefix, with no dot segment. */
async function expectConfined(task: TaskRecord) {
  for (const file of task.result?.files ?? []) {
    expectSafeFilename(file.filename);
    expectSafeDir(file.dir);
    const key = outputKey(task.id, file.filename, file.dir);
    expect(key.startsWith(`tasks/${task.id}/`)).toBe(true);
    expect(await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }))).toBeTruthy();
  }
  for (const key of await bucketKeys()) expect(hasDotSegment(key), key).toBe(false);
  expect(await filesOutsideBucket()).toEqual([]);
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'path-traversal-'));
  bucketDir = path.join(root, 'data', 's3', BUCKET);
  s3rver = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: path.join(root, 'data', 's3'),
    configureBuckets: [{ name: BUCKET }, { name: OTHER_BUCKET }],
  });
  const { port } = await s3rver.run();
  front = await startS3Front({ target: `http://127.0.0.1:${port}`, credentials: CREDENTIALS });
  s3 = createS3Client({ region: 'us-east-1', endpoint: front.url, credentials: CREDENTIALS });
  [state, userS3] = await Promise.all([startStateBackend(), startUserS3()]);
  await s3.send(new PutObjectCommand({ Bucket: OTHER_BUCKET, Key: 'secret.txt', Body: 'another bucket' }));
  // An object in s3rver's own format one folder above the buckets: what a bucket named `..` would serve.
  const otherDir = path.join(root, 'data', 's3', OTHER_BUCKET);
  for (const name of await readdir(otherDir)) {
    if (name.startsWith('secret.txt._S3rver_')) {
      const suffix = name.slice('secret.txt'.length);
      const bytes = suffix === '._S3rver_object' ? 'outside the data folder' : await readFile(path.join(otherDir, name), 'utf8');
      await writeFile(path.join(root, 'data', `outside.txt${suffix}`), bytes);
    }
  }

  // The functions' configuration, as their cold start reads it: the state table and the front.
  useLocalEnv({ dynamodb: state.endpoint, table: state.table, s3: front.url, bucket: BUCKET });
  const { handler } = await import('#functions/tasks/upload-received.js');
  forwarder = forwardS3Events(s3rver, {
    bucket: BUCKET,
    prefix: 'uploads/',
    retries: 1,
    retryDelayMs: 10,
    log: () => {},
    deliver: (event) => handler(event as never),
  });

  origin = createServer((req, res) => {
    const dispositions: Record<string, string> = {
      '/cd/plain': 'attachment; filename="../../a.txt"',
      '/cd/star': "attachment; filename*=UTF-8''..%2F..%2Fa.txt",
      '/cd/dots': 'attachment; filename=".."',
      '/cd/windows': 'attachment; filename="..\\\\..\\\\win.txt"',
      '/cd/controls': "attachment; filename*=UTF-8''..%2Fev%07il%00.txt",
      '/cd/absolute': 'attachment; filename="/etc/passwd"',
      // Fullwidth dots and solidus (．．／．．／a.txt), division slashes (..∕..∕a.txt), a two-dot leader, dots and spaces.
      '/cd/fullwidth': "attachment; filename*=UTF-8''%EF%BC%8E%EF%BC%8E%EF%BC%8F%EF%BC%8E%EF%BC%8E%EF%BC%8Fa.txt",
      '/cd/division-slash': "attachment; filename*=UTF-8''..%E2%88%95..%E2%88%95a.txt",
      '/cd/leader': "attachment; filename*=UTF-8''%E2%80%A5",
      '/cd/dot-space': 'attachment; filename=". ."',
      '/cd/zero-width': "attachment; filename*=UTF-8''.%E2%80%8B.",
    };
    const disposition = dispositions[req.url ?? ''];
    res.writeHead(200, { 'content-type': 'text/plain', ...(disposition ? { 'content-disposition': disposition } : {}) });
    res.end(`body of ${req.url}`);
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', () => resolve()));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;

  queue = new RecordingQueue();
  store = new TaskStore(state.store);
  scheduler = new Scheduler({ store, queue, log });
  service = new TaskService({ store, scheduler, files: new S3FileStore(s3, BUCKET), log });
  baseline = new Set(await walk(root));
});

afterAll(async () => {
  forwarder?.();
  await forwarder?.idle();
  s3?.destroy();
  await front?.close();
  await s3rver?.close();
  await Promise.all([state?.close(), userS3?.close(), new Promise((r) => origin?.close(r))]);
  await rm(root, { recursive: true, force: true });
});

/** Runs the queued tasks (and those they make ready) to their end. */
async function drain() {
  for (;;) {
    const batch = queue.sent.splice(0);
    if (!batch.length) return;
    for (const { message } of batch) {
      await runTask(message.taskId, {
        store,
        scheduler,
        files: new S3FileStore(s3, BUCKET),
        config,
        log,
        implementations,
        requeue: (task, delaySeconds) => queue.send(task.step, { taskId: task.id }, { delaySeconds }),
      });
    }
  }
}

async function runJob(tasks: Record<string, Record<string, unknown>>): Promise<Record<string, TaskRecord>> {
  const { tasks: created } = await service.createJob(1, planJob({ tasks }));
  await drain();
  const out: Record<string, TaskRecord> = {};
  for (const t of created) out[t.name!] = (await store.getTask(t.id))!;
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// import/upload through the local S3 front

interface Answer {
  status: number;
  body: string;
}

/** Posts an upload form as a browser would, with the file part's Content-Disposition given raw (bytes as they are). */
function postForm(url: string, fields: Record<string, string>, fileDisposition: string, content: Buffer): Promise<Answer> {
  const boundary = `----pt${randomUUID().replace(/-/g, '')}`;
  let head = '';
  for (const [name, value] of Object.entries(fields)) head += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  head += `--${boundary}\r\nContent-Disposition: ${fileDisposition}\r\nContent-Type: text/plain\r\n\r\n`;
  const body = Buffer.concat([Buffer.from(head, 'utf8'), content, Buffer.from(`\r\n--${boundary}--\r\n`)]);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function uploadTask() {
  const task = await service.createTask(1, operationDefinition('import/upload')!, { operation: 'import/upload' }, []);
  // Forms are signed when a task is shown, as GET /v2/tasks/{id} does.
  const form = (await testLinks(new S3FileStore(s3, BUCKET)).for([task], 'http://localhost')).form(task)!;
  return { task, form };
}

/** After an upload attempt: either the front refused it (400, or 403 for a key other than the form's; the task still waits) or the task finished with a safe name. */
async function expectUploadOutcome(taskId: string, answer: Answer, content: string) {
  await forwarder.idle();
  const task = (await store.getTask(taskId))!;
  if (answer.status >= 400) {
    expect([400, 403], answer.body).toContain(answer.status);
    expect(answer.body).toContain('<Error>');
    expect(task.status).toBe('waiting');
  } else {
    expect(task.status, JSON.stringify(task)).toBe('finished');
    expect(task.result?.files).toHaveLength(1);
    const [file] = task.result!.files!;
    expectSafeFilename(file!.filename);
    expect(file!.dir).toBeUndefined();
    const { body } = await new S3FileStore(s3, BUCKET).get(outputKey(task.id, file!.filename));
    expect((await readAll(body)).toString()).toBe(content);
  }
  await expectConfined(task);
  // Nothing of this upload is left outside the task's own prefixes.
  for (const key of await bucketKeys()) {
    if (key.includes(taskId)) expect(key.startsWith(`tasks/${taskId}/`) || key.startsWith(`uploads/${taskId}/`), key).toBe(true);
  }
}

describe('import/upload', () => {
  it.each([
    ['up to the test folder', (id: string) => `uploads/${id}/../../../../../evil.txt`],
    ['into another task\'s prefix', (id: string) => `uploads/${id}/../../tasks/${randomUUID()}/evil.txt`],
    ['into another bucket', (id: string) => `uploads/${id}/../../../${OTHER_BUCKET}/secret.txt`],
    ['with a dot segment', (id: string) => `uploads/${id}/./x/../evil.txt`],
  ])('keeps a form whose key climbs out of the prefix (%s) from writing outside it', async (_label, key) => {
    const { task, form } = await uploadTask();
    const answer = await postForm(form.url, { ...form.parameters, key: key(task.id) }, 'form-data; name="file"; filename="evil.txt"', Buffer.from('tampered key'));
    await expectUploadOutcome(task.id, answer, 'tampered key');
    const other = await s3.send(new GetObjectCommand({ Bucket: OTHER_BUCKET, Key: 'secret.txt' }));
    expect(await other.Body!.transformToString()).toBe('another bucket');
  });

  it.each([
    ['a relative path', 'form-data; name="file"; filename="../../evil.txt"'],
    ['a Windows path', 'form-data; name="file"; filename="..\\\\..\\\\evil.txt"'],
    ['percent-encoded dots', 'form-data; name="file"; filename="%2e%2e/"'],
    ['percent-encoded dots and slash', 'form-data; name="file"; filename="%2e%2e%2fevil.txt"'],
    ['two dots', 'form-data; name="file"; filename=".."'],
    ['an absolute path', 'form-data; name="file"; filename="/etc/x"'],
    ['a NUL byte', 'form-data; name="file"; filename="ev\u0000il.txt"'],
    ['control characters', 'form-data; name="file"; filename="e\u0001v\u0007i\u001bl\u007f.txt"'],
    ['encoded controls and separators', "form-data; name=\"file\"; filename*=UTF-8''..%2F..%2Fev%00il%0D%0A.txt"],
    ['bidi overrides', 'form-data; name="file"; filename="invoice\u202Efdp.exe"'],
  ])('stores an upload whose file name is %s under the task with a safe name', async (_label, disposition) => {
    const { task, form } = await uploadTask();
    const content = `upload ${randomUUID()}`;
    const answer = await postForm(form.url, form.parameters, disposition, Buffer.from(content));
    await expectUploadOutcome(task.id, answer, content);
    if (answer.status < 300) {
      const name = (await store.getTask(task.id))!.result!.files![0]!.filename;
      expect(name).not.toContain('\u202E');
    }
  });
});

/** What is stored under the task's upload prefix and its own prefix, with each object's content. */
async function storedFor(taskId: string): Promise<Record<string, string>> {
  await forwarder.idle();
  const out: Record<string, string> = {};
  for (const key of [...(await bucketKeys(`uploads/${taskId}/`)), ...(await bucketKeys(`tasks/${taskId}/`))]) {
    out[key] = await (await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))).Body!.transformToString();
  }
  return out;
}

const fileNamed = (name: string) => `form-data; name="file"; filename="${name}"`;

describe('import/upload: one form, one object (issue 25)', () => {
  it('signs a form for exactly one key, the file name travelling as the object\'s metadata', async () => {
    const { task, form } = await uploadTask();
    const policy = JSON.parse(Buffer.from(form.parameters.Policy ?? form.parameters.policy ?? '', 'base64').toString('utf8')) as { conditions: unknown[] };
    expect(policy.conditions).toContainEqual({ key: form.parameters.key });
    expect(form.parameters.key?.startsWith(`uploads/${task.id}/`)).toBe(true);
    expect(form.parameters.key).not.toContain('${filename}');
    expect(JSON.stringify(policy.conditions)).not.toContain('"starts-with","$key"');
  });

  it('keeps the uploaded file\'s own name, non-ASCII included', async () => {
    const { task, form } = await uploadTask();
    expect((await postForm(form.url, form.parameters, fileNamed('résumé 2026 – 東京.pdf'), Buffer.from('cv'))).status).toBeLessThan(300);
    await forwarder.idle();
    const finished = (await store.getTask(task.id))!;
    expect(finished.result?.files?.map((f) => f.filename)).toEqual(['résumé 2026 – 東京.pdf']);
    expect(await storedFor(task.id)).toEqual({ [outputKey(task.id, 'résumé 2026 – 東京.pdf')]: 'cv' });
  });

  it('stores nothing from a second upload with the same form, and leaves the finished upload as it was', async () => {
    const { task, form } = await uploadTask();
    expect((await postForm(form.url, form.parameters, fileNamed('first.txt'), Buffer.from('first'))).status).toBeLessThan(300);
    await forwarder.idle();
    const first = (await store.getTask(task.id))!;
    expect(first.status).toBe('finished');
    await postForm(form.url, form.parameters, fileNamed('second.txt'), Buffer.from('second'));
    await postForm(form.url, form.parameters, fileNamed('first.txt'), Buffer.from('replaced'));
    expect(await storedFor(task.id)).toEqual({ [outputKey(task.id, 'first.txt')]: 'first' });
    expect((await store.getTask(task.id))!.result).toEqual(first.result);
  });

  it.each([
    ['another name under the task\'s prefix', (id: string) => `uploads/${id}/other.txt`],
    ['a deeper key under the prefix', (id: string) => `uploads/${id}/sub/more.txt`],
    ['the prefix with ${filename}, as forms used to be', (id: string) => `uploads/${id}/\${filename}`],
  ])('refuses the form with a different key (%s) and stores nothing', async (_label, key) => {
    const { task, form } = await uploadTask();
    const answer = await postForm(form.url, { ...form.parameters, key: key(task.id) }, fileNamed('x.txt'), Buffer.from('x'));
    expect(answer.status, answer.body).toBe(403);
    expect(await storedFor(task.id)).toEqual({});
    expect((await store.getTask(task.id))!.status).toBe('waiting');
  });

  it('refuses a file larger than the form allows and stores nothing', async () => {
    const task = await service.createTask(1, operationDefinition('import/upload')!, { operation: 'import/upload' }, []);
    const form = (await testLinks(new S3FileStore(s3, BUCKET), { maxUploadBytes: 1024 }).for([task], 'http://localhost')).form(task)!;
    const answer = await postForm(form.url, form.parameters, fileNamed('big.bin'), Buffer.alloc(4096, 1));
    expect([answer.status, /EntityTooLarge/.test(answer.body)]).toEqual([400, true]);
    expect(await storedFor(task.id)).toEqual({});
    expect((await store.getTask(task.id))!.status).toBe('waiting');
  });
});

// ---------------------------------------------------------------------------------------------------------
// import/url

describe('import/url', () => {
  it.each([
    ['Content-Disposition filename="../../a.txt"', '/cd/plain'],
    ["Content-Disposition filename*=UTF-8''..%2F..%2Fa.txt", '/cd/star'],
    ['Content-Disposition filename=".."', '/cd/dots'],
    ['Content-Disposition with backslashes', '/cd/windows'],
    ['Content-Disposition with encoded control characters', '/cd/controls'],
    ['Content-Disposition with an absolute path', '/cd/absolute'],
    ['Content-Disposition with fullwidth dots and solidus', '/cd/fullwidth'],
    ['Content-Disposition with division slashes', '/cd/division-slash'],
    ['Content-Disposition of a two-dot leader', '/cd/leader'],
    ['Content-Disposition of dots and a space', '/cd/dot-space'],
    ['Content-Disposition of dots around a zero-width space', '/cd/zero-width'],
    ['a URL path ending in %2e%2e', '/files/%2e%2e'],
    ['a URL path ending in ..%2F..%2Fb.txt', '/files/..%2F..%2Fb.txt'],
    ['a URL path ending in an encoded NUL', '/files/a%00b.txt'],
  ])('names the file safely from %s', async (_label, urlPath) => {
    const { task } = await runJob({ task: { operation: 'import/url', url: `${originUrl}${urlPath}` } });
    expect(task!.status, JSON.stringify(task)).toBe('finished');
    await expectConfined(task!);
    const file = task!.result!.files![0]!;
    const { body } = await new S3FileStore(s3, BUCKET).get(outputKey(task!.id, file.filename));
    // (WHATWG URL parsing resolves a `%2e%2e` segment before the request is sent.)
    expect((await readAll(body)).toString()).toBe(`body of ${new URL(`${originUrl}${urlPath}`).pathname}`);
  });
});

// ---------------------------------------------------------------------------------------------------------
// import/raw and import/base64

describe('import/raw and import/base64', () => {
  it.each([
    '../x', '..', '.', '/etc/x', '..\\x', 'a\u0000b.txt', 'a\u0007b.txt', 'line\nbreak.txt', 'invoice\u202Efdp.exe', ' ',
    // Unicode forms of dots and separators, dots with spaces or invisible characters between them.
    '\uff0e\uff0e', '\uff0e\uff0e\uff0fx', '..\u2215x', '..\u2044x', '..\u29f8x', '..\uff3cx', '\u2025', '\u2026', '. .', '.. ', '.\u200b.', '\uff05\uff12\uff45\uff05\uff12\uff45',
  ])(
    'refuses the filename %j with 422 INVALID_DATA and stores nothing',
    async (filename) => {
      for (const operation of ['import/base64', 'import/raw']) {
        const file = operation === 'import/base64' ? Buffer.from('x').toString('base64') : 'x';
        let error: unknown;
        try {
          planJob({ tasks: { t: { operation, file, filename } } });
        } catch (err) {
          error = err;
        }
        expect(error, `${operation} ${JSON.stringify(filename)}`).toBeInstanceOf(ApiError);
        // INVALID_ARGUMENT is the file API's 422 INVALID_DATA.
        expect((error as ApiError).reason).toBe('INVALID_ARGUMENT');
        expect(Object.keys((error as ApiError).fields ?? {})).toContain('tasks.t.filename');
      }
    },
  );

  it('stores a staged file only under its task, whatever reaches the service', async () => {
    // The service normalizes even what validation let through (a caller that skipped it).
    const task = await service.createTask(1, operationDefinition('import/raw')!, { operation: 'import/raw', file: 'raw content', filename: '../../../../../raw.txt' }, []);
    await drain();
    const done = (await store.getTask(task.id))!;
    expect(done.status).toBe('finished');
    expect(done.result!.files![0]!.filename).toBe('raw.txt');
    await expectConfined(done);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Storage prefix imports and the exports built from their names

describe('import/s3 with key_prefix and export/s3 of what it imported', () => {
  it('keeps . and .. object-name segments out of file names, folders and exported keys', async () => {
    const objects = ['p/../q.txt', 'p/a/../../b.txt', 'p/./c.txt', 'p/..', 'p/sub/ok.txt', 'p/a\\..\\..\\w.txt', 'p/%2e%2e/e.txt'];
    for (const key of objects) await userS3.client.send(new PutObjectCommand({ Bucket: userS3.bucket, Key: key, Body: `object ${key}` }));
    const listed = await userS3.client.send(new ListObjectsV2Command({ Bucket: userS3.bucket, Prefix: 'p/' }));
    expect((listed.Contents ?? []).map((o) => o.Key).sort()).toEqual([...objects].sort());

    const { in: imported, out: exported } = await runJob({
      in: { operation: 'import/s3', ...userS3.taskArgs({ key_prefix: 'p/' }) },
      out: { operation: 'export/s3', input: 'in', ...userS3.taskArgs({ key_prefix: 'out/' }) },
    });
    expect(imported!.status, JSON.stringify(imported)).toBe('finished');
    expect(imported!.result!.files).toHaveLength(objects.length);
    await expectConfined(imported!);
    // Every object's content arrived, under a name of its own.
    const contents = await Promise.all(
      imported!.result!.files!.map(async (f) => (await readAll((await new S3FileStore(s3, BUCKET).get(outputKey(imported!.id, f.filename, f.dir))).body)).toString()),
    );
    expect(contents.sort()).toEqual(objects.map((k) => `object ${k}`).sort());

    expect(exported!.status, JSON.stringify(exported)).toBe('finished');
    const written = await userS3.client.send(new ListObjectsV2Command({ Bucket: userS3.bucket, Prefix: 'out/' }));
    const keys = (written.Contents ?? []).map((o) => o.Key!);
    expect(keys).toHaveLength(objects.length);
    for (const key of keys) {
      expect(key.startsWith('out/'), key).toBe(true);
      expect(hasDotSegment(key), key).toBe(false);
      expect(key).not.toContain('//');
    }
  });

  it('names a single imported object safely from its key or filename', async () => {
    await userS3.client.send(new PutObjectCommand({ Bucket: userS3.bucket, Key: 'single/..%2F..', Body: 'dots' }));
    const { a, b } = await runJob({
      a: { operation: 'import/s3', ...userS3.taskArgs({ key: 'single/..%2F..' }) },
      b: { operation: 'import/s3', ...userS3.taskArgs({ key: 'single/..%2F..', filename: 'named.txt' }) },
    });
    for (const t of [a!, b!]) {
      expect(t.status, JSON.stringify(t)).toBe('finished');
      await expectConfined(t);
    }
    expect(b!.result!.files![0]!.filename).toBe('named.txt');
  });
});

describe('object names and prefixes in the user\'s storage', () => {
  const s3 = { bucket: 'mine', region: 'us-east-1', access_key_id: 'AKIAEXAMPLE', secret_access_key: 'secret-example' };
  const azure = { storage_account: 'acct', storage_access_key: 'a2V5', container: 'mine' };
  const gcs = { project_id: 'my-project', bucket: 'mine', client_email: 'svc@my-project.iam.gserviceaccount.com', private_key: '-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----' };
  const swift = { auth_url: 'https://keystone.example.com/v3', username: 'u', password: 'p', region: 'r', container: 'mine' };

  // Azure's and Swift's clients resolve dot segments of a URL path: `../victim/x` in container `mine` is blob `x` of container `victim`.
  it.each([
    ['export/s3', 'key', { ...s3, key: '../victim/x.txt' }],
    ['export/s3', 'key', { ...s3, key: 'a/./b.txt' }],
    ['export/s3', 'key_prefix', { ...s3, key_prefix: 'out/../../victim/' }],
    ['export/s3', 'key_prefix', { ...s3, key_prefix: '%2e%2e/' }],
    ['export/s3', 'key', { ...s3, key: 'a\u0000b.txt' }],
    ['export/s3', 'bucket', { ...s3, bucket: '..', key: 'x.txt' }],
    ['import/s3', 'key', { ...s3, key: 'a/../../victim/x.txt' }],
    ['export/azure/blob', 'blob', { ...azure, blob: '../victim/x.txt' }],
    ['export/azure/blob', 'blob_prefix', { ...azure, blob_prefix: '../victim/' }],
    ['import/azure/blob', 'blob', { ...azure, blob: '../victim/x.txt' }],
    ['export/google-cloud-storage', 'file', { ...gcs, file: 'a/../../x.txt' }],
    ['export/google-cloud-storage', 'file_prefix', { ...gcs, file_prefix: './' }],
    ['export/openstack', 'file', { ...swift, file: '../../x.txt' }],
    ['export/openstack', 'container', { ...swift, container: '..', file: 'x.txt' }],
    ['import/openstack', 'file_prefix', { ...swift, file_prefix: 'a/\n/' }],
  ])('%s refuses %s climbing out of its bucket or container with 422 naming it', (operation, field, args) => {
    const tasks: Record<string, Record<string, unknown>> = operation.startsWith('export/')
      ? { in: { operation: 'import/raw', file: 'x', filename: 'x.txt' }, t: { operation, input: 'in', ...args } }
      : { t: { operation, ...args } };
    let error: unknown;
    try {
      planJob({ tasks });
    } catch (err) {
      error = err;
    }
    expect(error, JSON.stringify(args)).toBeInstanceOf(ApiError);
    expect(Object.keys((error as ApiError).fields ?? {})).toEqual([`tasks.t.${field}`]);
  });

  it('keeps accepting names and prefixes with dots inside segments, and a prefix ending in a partial dot name', () => {
    const plan = planJob({
      tasks: {
        in: { operation: 'import/raw', file: 'x', filename: 'x.txt' },
        a: { operation: 'export/s3', input: 'in', ...s3, key: 'reports/v1.2/..hidden.txt' },
        b: { operation: 'export/s3', input: 'in', ...s3, key_prefix: 'logs/.' },
        c: { operation: 'export/azure/blob', input: 'in', ...azure, blob: 'a/.../b.txt' },
      },
    });
    expect(plan.tasks).toHaveLength(4);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Output keys

describe('output keys', () => {
  it.each([
    ['../x', undefined],
    ['..', undefined],
    ['x', '..'],
    ['x', 'a/../..'],
    ['x', '/abs'],
    ['a/b', undefined],
    ['a\\b', undefined],
    ['', undefined],
    ['a\u0000b', undefined],
  ])('refuses to build a key for %j in %j with an internal error', (filename, dir) => {
    let error: unknown;
    try {
      outputKey(randomUUID(), filename, dir);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(TaskFailure);
    expect((error as TaskFailure).code).toBe('INTERNAL_ERROR');
  });

  it('builds the key of a safe name under the task prefix', () => {
    const id = randomUUID();
    expect(outputKey(id, 'a b.txt')).toBe(`tasks/${id}/a b.txt`);
    expect(outputKey(id, 'a.txt', 'x/y')).toBe(`tasks/${id}/x/y/a.txt`);
  });
});

// ---------------------------------------------------------------------------------------------------------
// The local S3 front keeps every request inside the data folder

describe('the local S3 front', () => {
  const refused = async (send: () => Promise<unknown>) => {
    const err = await send().then(
      () => undefined,
      (e: unknown) => e as { $metadata?: { httpStatusCode?: number }; name?: string },
    );
    expect(err, 'the request was accepted').toBeDefined();
    expect(err!.$metadata?.httpStatusCode).toBe(400);
  };

  it.each([
    ['up to the test folder', 'x/../../../../evil-put.txt'],
    ['into another bucket', `../${OTHER_BUCKET}/secret.txt`],
    ['with a leading dot segment', './evil.txt'],
    ['ending in ..', 'tasks/..'],
  ])('refuses a signed PUT whose key climbs out (%s) with 400', async (_label, key) => {
    await refused(() => s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: 'put through the front' })));
    const other = await s3.send(new GetObjectCommand({ Bucket: OTHER_BUCKET, Key: 'secret.txt' }));
    expect(await other.Body!.transformToString()).toBe('another bucket');
    expect(await filesOutsideBucket()).toEqual([]);
  });

  it('refuses a copy whose source climbs into another bucket, and a GET doing the same', async () => {
    await refused(() => s3.send(new CopyObjectCommand({ Bucket: BUCKET, Key: 'stolen.txt', CopySource: `${BUCKET}/../${OTHER_BUCKET}/secret.txt` })));
    await refused(() => s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: `../${OTHER_BUCKET}/secret.txt` })));
    expect(await bucketKeys()).not.toContain('stolen.txt');
  });

  it('refuses a multi-object delete naming a key that climbs out, and deletes nothing', async () => {
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'keep/me.txt', Body: 'kept' }));
    const answer = await s3
      .send(new DeleteObjectsCommand({ Bucket: BUCKET, Delete: { Objects: [{ Key: 'keep/me.txt' }, { Key: `../${OTHER_BUCKET}/secret.txt` }] } }))
      .then(
        (out) => ({ status: 200, errors: out.Errors ?? [] }),
        (e: { $metadata?: { httpStatusCode?: number } }) => ({ status: e.$metadata?.httpStatusCode, errors: [] }),
      );
    expect(answer.status).toBe(400);
    const other = await s3.send(new GetObjectCommand({ Bucket: OTHER_BUCKET, Key: 'secret.txt' }));
    expect(await other.Body!.transformToString()).toBe('another bucket');
    expect(await bucketKeys('keep/')).toEqual(['keep/me.txt']);
  });

  it('treats a request whose Host names a virtual-hosted bucket as path-style (no bucket from the Host header)', async () => {
    // s3rver takes the bucket from any Host that is not an address or localhost; `..` would be its parent folder.
    const client = createS3Client({ region: 'us-east-1', endpoint: front.url, credentials: CREDENTIALS });
    client.middlewareStack.add(
      (next) => (args) => {
        const req = args.request as { headers: Record<string, string>; path: string };
        req.headers.host = '..';
        req.path = '/outside.txt';
        return next(args);
      },
      { step: 'build', name: 'hostTrick' },
    );
    const answer = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'unused' })).then(
      async (out) => ({ status: 200, body: await out.Body!.transformToString() }),
      (e: { $metadata?: { httpStatusCode?: number } }) => ({ status: e.$metadata?.httpStatusCode, body: '' }),
    );
    client.destroy();
    expect(answer.body).not.toContain('outside the data folder');
    expect(answer.status).toBeGreaterThanOrEqual(400);
  });
});
