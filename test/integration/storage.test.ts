/**
 * The storage imports and exports and export/upload, run in-process by the task runner against real
 * local services: the service's own state (dynalite) and files (s3rver), a user's S3 bucket (another
 * s3rver with its own key pair, behind a recording front), Azurite, the Cloud Storage double and a
 * local HTTP receiver. The queue is a recording stand-in; the test delivers by hand.
 */
import { GetObjectCommand, GetObjectTaggingCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { BlobServiceClient, ContainerSASPermissions, generateBlobSASQueryParameters, StorageSharedKeyCredential } from '@azure/storage-blob';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '#lib/kernel/config.js';
import { readAll } from '../support/streams.js';
import { createLogger } from '#lib/kernel/log.js';
import { EXPORTS, IMPORTS } from '../support/operations.js';
import type { Implementation } from '#lib/file-api/operations/framework/types.js';
import type { Queue, QueueName } from '#lib/adapters/queue/port.js';
import type { TaskRecord } from '#lib/file-api/records/model.js';
import { planJob } from '#lib/file-api/tasks/plan.js';
import { runTask } from '#lib/file-api/tasks/runner.js';
import { Scheduler } from '#lib/file-api/tasks/scheduler.js';
import { TaskService } from '#lib/file-api/tasks/service.js';
import { TaskStore } from '#lib/file-api/records/store.js';
import { WebhookNotifier } from '#lib/file-api/webhooks/events.js';
import { WebhookStore } from '#lib/file-api/webhooks/store.js';
import { WEBHOOK_EVENTS } from '#lib/file-api/webhooks/model.js';
import { S3Storage } from '#lib/adapters/user-storage/s3-storage.js';
import { startAzurite, type Azurite } from '../support/azurite.js';
import { startStateBackend } from '../support/dynalite.js';
import { startGcsDouble, type GcsDouble } from '../support/gcs-double.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startFilesBackend } from '../support/s3rver.js';
import { startUserS3 } from '../support/user-s3.js';
import { TEST_CONFIG_ENV } from '../support/recording-queue.js';
import { testLinks } from '../support/links.js';

/** Every message sent in this file, step and webhook messages alike: what a dead-letter queue could end up keeping. */
const history: unknown[] = [];

class RecordingQueue implements Queue {
  sent: Array<{ queue: QueueName; message: any }> = [];
  async send(queue: QueueName, message: unknown) {
    history.push(message);
    this.sent.push({ queue, message });
  }
  async sendMany(queue: QueueName, messages: unknown[]) {
    for (const m of messages) await this.send(queue, m);
  }
  takeSteps() {
    const out = this.sent.filter((s) => s.queue !== 'webhooks');
    this.sent = this.sent.filter((s) => s.queue === 'webhooks');
    return out;
  }
}

let state: Awaited<ReturnType<typeof startStateBackend>>;
let files: Awaited<ReturnType<typeof startFilesBackend>>;
let userS3: Awaited<ReturnType<typeof startUserS3>>;
let azurite: Azurite;
let gcs: GcsDouble;
let receiver: Receiver;
let queue: RecordingQueue;
let store: TaskStore;
let service: TaskService;
let scheduler: Scheduler;
let config: ReturnType<typeof parseConfig>;
const jobIds: string[] = [];
const log = createLogger({}, { level: 'silent' });
const serviceAccount = (() => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { email: 'exporter@test-project.iam.gserviceaccount.com', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKey };
})();

const implementations: Record<string, Implementation> = { ...IMPORTS, ...EXPORTS };

beforeAll(async () => {
  [state, files, userS3, azurite, receiver] = await Promise.all([startStateBackend(), startFilesBackend(), startUserS3(), startAzurite(), startReceiver()]);
  gcs = await startGcsDouble({ clientEmail: serviceAccount.email, publicKey: serviceAccount.publicKey, buckets: ['gcs-bucket'] });
  config = parseConfig({
    ...TEST_CONFIG_ENV,
    ALLOW_LOOPBACK_FETCH: 'true',
    AZURE_BLOB_ENDPOINT: azurite.endpointTemplate,
    GCS_API_ENDPOINT: gcs.apiEndpoint,
    GCS_TOKEN_URL: gcs.tokenUrl,
  });
  const blobs = new BlobServiceClient(azurite.accountUrl, new StorageSharedKeyCredential(azurite.account, azurite.accountKey));
  await blobs.getContainerClient('exports').create();
  // Every event of user 1 is notified, so webhook messages (with their job and task bodies) are checked for secrets too.
  await new WebhookStore(state.store).create({ userId: 1, url: `${receiver.url}/events`, events: [...WEBHOOK_EVENTS], keyIds: [] });
});
afterAll(async () => {
  await Promise.all([state?.close(), files?.close(), userS3?.close(), azurite?.close(), gcs?.close(), receiver?.close()]);
});
beforeEach(() => {
  queue = new RecordingQueue();
  store = new TaskStore(state.store);
  const notifier = new WebhookNotifier({ webhooks: new WebhookStore(state.store), tasks: store, queue, links: testLinks(files.files), log });
  scheduler = new Scheduler({ store, queue, log, onJobEnded: (j) => notifier.jobEnded(j), onTaskEnded: (t) => notifier.taskEnded(t) });
  service = new TaskService({ store, scheduler, files: files.files, log, onJobCreated: (j, t) => notifier.jobCreated(j, t) });
});

/** Creates the job and delivers its step messages until nothing is left; retryable failures are redelivered. */
async function runJob(tasks: Record<string, unknown>, cfg = config) {
  const { job } = await service.createJob(1, planJob({ tasks }));
  jobIds.push(job.id);
  for (let round = 0; round < 20; round++) {
    const messages = queue.takeSteps();
    if (!messages.length) break;
    for (const m of messages) {
      await runTask(m.message.taskId, {
        store,
        scheduler,
        files: files.files,
        config: cfg,
        log,
        implementations,
        requeue: async () => {},
      }).catch(() => queue.send(m.queue, m.message));
    }
  }
  const done = (await store.getJob(job.id))!;
  const byName = Object.fromEntries((await store.getTasks(done.taskIds)).map((t) => [t.name!, t])) as Record<string, TaskRecord>;
  return { job: done, tasks: byName };
}

const s3Args = () => userS3.taskArgs();
const base64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

describe('S3-compatible storage', () => {
  it('exports with acl, metadata, content type, cache control, disposition, encryption and tags', async () => {
    const { job, tasks } = await runJob({
      a: { operation: 'import/base64', file: base64('first file'), filename: 'a.txt' },
      out: {
        operation: 'export/s3',
        input: 'a',
        ...s3Args(),
        key: 'reports/first.txt',
        acl: 'public-read',
        metadata: { owner: 'team-a', version: 3 },
        content_type: 'text/x-report',
        cache_control: 'max-age=60',
        content_disposition: 'attachment; filename="first.txt"',
        server_side_encryption: 'AES256',
        tagging: { project: 'alpha', stage: 'test' },
      },
    });
    expect(tasks.out!.message).toBeNull();
    expect(job.status).toBe('finished');
    expect(tasks.out!.result).toEqual({ files: [{ filename: 'a.txt', size: 10 }] });
    const head = await userS3.client.send(new HeadObjectCommand({ Bucket: userS3.bucket, Key: 'reports/first.txt' }));
    expect(head).toMatchObject({
      ContentType: 'text/x-report',
      CacheControl: 'max-age=60',
      ContentDisposition: 'attachment; filename="first.txt"',
      Metadata: { owner: 'team-a', version: '3' },
    });
    const tags = await userS3.client.send(new GetObjectTaggingCommand({ Bucket: userS3.bucket, Key: 'reports/first.txt' }));
    expect(tags.TagSet).toEqual([{ Key: 'project', Value: 'alpha' }, { Key: 'stage', Value: 'test' }]);
    const put = userS3.requests.find((r) => r.method === 'PUT' && r.path.startsWith(`/${userS3.bucket}/reports/first.txt`) && !r.path.includes('tagging'));
    expect(put?.headers).toMatchObject({ 'x-amz-acl': 'public-read', 'x-amz-server-side-encryption': 'AES256' });
  });

  it('numbers several files through the key placeholder, or keeps their names under key_prefix', async () => {
    const { tasks } = await runJob({
      a: { operation: 'import/raw', file: 'one', filename: 'a.txt' },
      b: { operation: 'import/raw', file: 'two', filename: 'b.txt' },
      numbered: { operation: 'export/s3', input: ['a', 'b'], ...s3Args(), key: 'n/out-%03d.txt' },
      prefixed: { operation: 'export/objstore', input: ['a', 'b'], ...s3Args(), key_prefix: 'p/' },
      single: { operation: 'export/s3', input: ['a', 'b'], ...s3Args(), key: 'one-name.txt' },
    });
    expect(tasks.numbered!.status).toBe('finished');
    expect(tasks.prefixed).toMatchObject({ status: 'finished', operation: 'export/objstore' });
    const read = async (Key: string) => (await readAll((await userS3.client.send(new GetObjectCommand({ Bucket: userS3.bucket, Key }))).Body as never)).toString();
    expect([await read('n/out-001.txt'), await read('n/out-002.txt')]).toEqual(['one', 'two']);
    expect([await read('p/a.txt'), await read('p/b.txt')]).toEqual(['one', 'two']);
    // content type from the file name when the stored one says nothing
    expect((await userS3.client.send(new HeadObjectCommand({ Bucket: userS3.bucket, Key: 'p/a.txt' }))).ContentType).toBe('text/plain');
    expect(tasks.single).toMatchObject({ status: 'error', code: 'INVALID_DATA' });
    expect(tasks.single!.message).toMatch(/placeholder/);
  });

  it('streams a large file as a multipart upload and imports it back by key and by prefix', async () => {
    const big = Buffer.alloc(19 * 1024 * 1024 + 123);
    for (let i = 0; i < big.length; i += 4096) big.writeUInt32BE(i, i);
    const before = userS3.requests.length;
    const { tasks } = await runJob({
      big: { operation: 'import/base64', file: big.toString('base64'), filename: 'big.bin' },
      out: { operation: 'export/s3', input: 'big', ...s3Args(), key: 'in/deep/big.bin' },
    });
    expect(tasks.out!.status).toBe('finished');
    const parts = userS3.requests.slice(before).filter((r) => r.method === 'PUT' && /[?&]partNumber=/.test(r.path));
    expect(parts.length).toBe(3);
    await userS3.client.send(new PutObjectCommand({ Bucket: userS3.bucket, Key: 'in/small.txt', Body: 'small' }));

    const back = await runJob({
      byKey: { operation: 'import/s3', ...s3Args(), key: 'in/deep/big.bin', filename: 'again.bin' },
      byPrefix: { operation: 'import/s3', ...s3Args(), key_prefix: 'in/' },
      out: { operation: 'export/url', input: ['byKey', 'byPrefix'] },
    });
    expect(back.tasks.byKey!.result?.files).toEqual([{ filename: 'again.bin', size: big.length, md5: md5(big) }]);
    expect(back.tasks.byPrefix!.result?.files).toEqual([
      { filename: 'big.bin', dir: 'deep', size: big.length, md5: md5(big) },
      { filename: 'small.txt', size: 5, md5: md5(Buffer.from('small')) },
    ]);
  });

  it('reports the storage error with its code and without the secret key', async () => {
    const { tasks } = await runJob({
      a: { operation: 'import/raw', file: 'x', filename: 'x.txt' },
      wrongSecret: { operation: 'export/s3', input: 'a', ...s3Args(), secret_access_key: 'not-the-right-secret-0123456789', key: 'x.txt' },
      noBucket: { operation: 'export/s3', input: 'a', ...s3Args(), bucket: 'no-such-bucket', key: 'x.txt' },
      missing: { operation: 'import/s3', ...s3Args(), key: 'does/not/exist.txt' },
    });
    expect(tasks.wrongSecret).toMatchObject({ status: 'error', code: 'UPLOAD_FAILED' });
    expect(tasks.wrongSecret!.message).toMatch(/^S3 \(SignatureDoesNotMatch, HTTP 403\): /);
    expect(tasks.noBucket!.message).toMatch(/^S3 \(NoSuchBucket, HTTP 404\): The specified bucket does not exist/);
    expect(tasks.missing).toMatchObject({ status: 'error', code: 'DOWNLOAD_FAILED' });
    expect(tasks.missing!.message).toMatch(/NoSuchKey/);
    for (const t of Object.values(tasks)) {
      const text = JSON.stringify(t);
      expect(text).not.toContain('not-the-right-secret-0123456789');
      expect(text).not.toContain(userS3.credentials.secretAccessKey);
    }
  });

  it('refuses endpoints the address guard forbids', async () => {
    const strict = { ...config, ALLOW_LOOPBACK_FETCH: false };
    const { tasks } = await runJob(
      {
        a: { operation: 'import/raw', file: 'x', filename: 'x.txt' },
        loopback: { operation: 'export/s3', input: 'a', ...s3Args(), key: 'x.txt' },
        metadata: { operation: 'export/s3', input: 'a', ...s3Args(), endpoint: 'http://169.254.169.254/', key: 'x.txt' },
      },
      strict,
    );
    for (const t of [tasks.loopback!, tasks.metadata!]) {
      expect(t).toMatchObject({ status: 'error', code: 'UPLOAD_FAILED' });
      expect(t.message).toMatch(/Refusing to connect/);
    }
  });

  it('checks every connection the SDK opens, not only the endpoint up front', async () => {
    const policy = { allowLoopback: true };
    const storage = await S3Storage.open(
      { bucket: userS3.bucket, region: 'us-east-1', endpoint: userS3.endpoint, accessKeyId: userS3.credentials.accessKeyId, secretAccessKey: userS3.credentials.secretAccessKey },
      { policy },
    );
    // The endpoint passed; from now on the policy refuses loopback, as if the name had been rebound.
    policy.allowLoopback = false;
    const err = await storage.get('anything', new AbortController().signal).catch((e: unknown) => e);
    expect(storage.describe(err)).toMatchObject({ code: 'FORBIDDEN_ADDRESS', transient: false, message: expect.stringMatching(/Refusing to connect/) });
    storage.close();
  });
});

describe('Azure Blob Storage', () => {
  const sas = () =>
    generateBlobSASQueryParameters(
      { containerName: 'exports', permissions: ContainerSASPermissions.parse('racwl'), expiresOn: new Date(Date.now() + 3600_000) },
      new StorageSharedKeyCredential(azurite.account, azurite.accountKey),
    ).toString();

  it('exports with the account key and with a SAS token, and imports back by blob and by prefix', async () => {
    const { tasks } = await runJob({
      a: { operation: 'import/raw', file: 'alpha', filename: 'a.txt' },
      b: { operation: 'import/raw', file: 'beta', filename: 'b.txt' },
      withKey: {
        operation: 'export/azure/blob',
        input: 'a',
        storage_account: azurite.account,
        storage_access_key: azurite.accountKey,
        container: 'exports',
        blob: 'key/a.txt',
        metadata: { source: 'test' },
      },
      withSas: { operation: 'export/blobstore/blob', input: ['a', 'b'], storage_account: azurite.account, sas_token: `?${sas()}`, container: 'exports', blob_prefix: 'sas/' },
    });
    expect(tasks.withKey!.status).toBe('finished');
    expect(tasks.withSas!.status).toBe('finished');
    const container = new BlobServiceClient(azurite.accountUrl, new StorageSharedKeyCredential(azurite.account, azurite.accountKey)).getContainerClient('exports');
    const props = await container.getBlobClient('key/a.txt').getProperties();
    expect(props.metadata).toEqual({ source: 'test' });
    expect(props.contentType).toBe('text/plain');
    expect((await container.getBlobClient('sas/b.txt').downloadToBuffer()).toString()).toBe('beta');

    const back = await runJob({
      one: { operation: 'import/azure/blob', storage_account: azurite.account, storage_access_key: azurite.accountKey, container: 'exports', blob: 'key/a.txt' },
      all: { operation: 'import/azure/blob', storage_account: azurite.account, sas_token: sas(), container: 'exports', blob_prefix: 'sas/' },
    });
    expect(back.tasks.one!.result?.files).toEqual([{ filename: 'a.txt', size: 5, md5: md5(Buffer.from('alpha')) }]);
    expect(back.tasks.all!.result?.files?.map((f) => f.filename)).toEqual(['a.txt', 'b.txt']);
  });

  it('reports a wrong key as the service error, without the key', async () => {
    const wrongKey = Buffer.alloc(64, 7).toString('base64');
    const { tasks } = await runJob({
      a: { operation: 'import/raw', file: 'x', filename: 'x.txt' },
      out: { operation: 'export/azure/blob', input: 'a', storage_account: azurite.account, storage_access_key: wrongKey, container: 'exports' },
      noContainer: { operation: 'import/azure/blob', storage_account: azurite.account, storage_access_key: azurite.accountKey, container: 'nothing-here', blob: 'x' },
    });
    expect(tasks.out).toMatchObject({ status: 'error', code: 'UPLOAD_FAILED' });
    expect(tasks.out!.message).toMatch(/^Azure Blob Storage \(AuthorizationFailure, HTTP 403\)|^Azure Blob Storage \(\w+, HTTP 403\)/);
    expect(tasks.out!.message).not.toContain(wrongKey);
    expect(tasks.noContainer!.message).toMatch(/\(ContainerNotFound, HTTP 404\)/);
  });
});

describe('Google Cloud Storage', () => {
  const gcsArgs = (privateKey = serviceAccount.privateKey) => ({
    project_id: 'test-project',
    bucket: 'gcs-bucket',
    client_email: serviceAccount.email,
    private_key: privateKey,
  });

  it('exports and imports with a bearer token obtained with the service-account key', async () => {
    const before = gcs.requests.length;
    const { tasks } = await runJob({
      a: { operation: 'import/raw', file: 'gamma', filename: 'g.txt' },
      out: { operation: 'export/google-cloud-storage', input: 'a', ...gcsArgs(), file: 'dir/g.txt' },
    });
    expect(tasks.out!.message).toBeNull();
    expect(gcs.objects.get('gcs-bucket/dir/g.txt')).toMatchObject({ contentType: 'text/plain', data: Buffer.from('gamma') });
    const back = await runJob({
      one: { operation: 'import/google-cloud-storage', ...gcsArgs(), file: 'dir/g.txt' },
      all: { operation: 'import/google-cloud-storage', ...gcsArgs(), file_prefix: 'dir/' },
    });
    expect(back.tasks.one!.result?.files).toEqual([{ filename: 'g.txt', size: 5, md5: md5(Buffer.from('gamma')) }]);
    expect(back.tasks.all!.result?.files?.map((f) => f.filename)).toEqual(['g.txt']);
    const used = gcs.requests.slice(before);
    expect(used.length).toBeGreaterThan(2);
    expect(used.every((r) => r.authorized)).toBe(true);
    expect(gcs.exchanges.filter((e) => e.ok).length).toBeGreaterThan(0);
  });

  it('fails with the token endpoint error when the key is not the service account', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const { tasks } = await runJob({
      a: { operation: 'import/raw', file: 'x', filename: 'x.txt' },
      out: { operation: 'export/cloud-storage', input: 'a', ...gcsArgs(other) },
    });
    expect(tasks.out).toMatchObject({ status: 'error', code: 'UPLOAD_FAILED' });
    expect(tasks.out!.message).toMatch(/^Google Cloud Storage .*invalid_grant: Invalid JWT Signature/);
    expect(gcs.exchanges.at(-1)).toMatchObject({ ok: false, reason: 'Invalid JWT Signature.' });
    expect(gcs.objects.has('gcs-bucket/x.txt')).toBe(false);
  });
});

describe('export/upload', () => {
  it('PUTs each file with its headers; a non-2xx answer is UPLOAD_FAILED', async () => {
    receiver.script('/denied', [403]);
    const { tasks } = await runJob({
      a: { operation: 'import/raw', file: 'upload me', filename: 'u.txt' },
      ok: { operation: 'export/upload', input: 'a', url: `${receiver.url}/put-here?X-Amz-Signature=abc123def456`, headers: { 'x-custom': 'yes', Authorization: 'Bearer t0ps3cr3t-token' } },
      denied: { operation: 'export/upload', input: 'a', url: `${receiver.url}/denied` },
    });
    expect(tasks.ok!.status).toBe('finished');
    const [put] = receiver.requests.filter((r) => r.path.startsWith('/put-here'));
    expect(put).toMatchObject({ method: 'PUT', headers: { 'x-custom': 'yes', authorization: 'Bearer t0ps3cr3t-token', 'content-type': 'text/plain', 'content-length': '9' } });
    expect(put!.body.toString()).toBe('upload me');
    expect(tasks.denied).toMatchObject({ status: 'error', code: 'UPLOAD_FAILED', message: 'The upload URL answered HTTP 403 Forbidden.' });
  });
});

describe('secrets', () => {
  it('are in no queue message (step and webhook messages alike) and not kept in task records once the tasks ended', async () => {
    const secrets = [
      userS3.credentials.secretAccessKey,
      userS3.credentials.accessKeyId,
      'not-the-right-secret-0123456789',
      azurite.accountKey,
      Buffer.alloc(64, 7).toString('base64'),
      ...serviceAccount.privateKey.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----')),
      't0ps3cr3t-token',
      'abc123def456',
    ];
    expect(history.length).toBeGreaterThan(50);
    expect(history.some((m) => JSON.stringify(m).includes('"event":"job.finished"'))).toBe(true);
    const stored: unknown[] = [];
    for (const id of jobIds) {
      const job = (await store.getJob(id))!;
      stored.push(job, ...(await store.getTasks(job.taskIds)));
    }
    const messages = JSON.stringify(history);
    const records = JSON.stringify(stored);
    for (const secret of secrets) {
      expect(messages.includes(secret), `${secret.slice(0, 6)}… in a queue message`).toBe(false);
      expect(records.includes(secret), `${secret.slice(0, 6)}… in a stored record`).toBe(false);
    }
    expect(records).toContain('[hidden]');
  });
});
