/**
 * Imports from and exports to the user's storage through the official `cloudconvert` SDK against the
 * whole platform (serverless-offline, queues, consumers), with real local services started here: a
 * user's S3 bucket (s3rver behind a front that checks SigV4 signatures with the test's key pair and
 * records each request), Azurite (an account with a random key), the Cloud Storage double (checks the
 * bearer token obtained with the service-account key) and an HTTP receiver for export/upload.
 *
 * The last test scans every API response the SDK received and the service's whole log output for
 * every secret these payloads carried.
 */
import { DynamoDBClient, ScanCommand, type ScanCommandOutput } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, GetObjectTaggingCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { BlobServiceClient, ContainerSASPermissions, generateBlobSASQueryParameters, StorageSharedKeyCredential } from '@azure/storage-blob';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAll } from '../support/streams.js';
import { LOCAL_CREDENTIALS } from '../../local/backends.js';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { startAzurite, type Azurite } from '../support/azurite.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { startGcsDouble, type GcsDouble } from '../support/gcs-double.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startUserS3 } from '../support/user-s3.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'storage-e2e-'));
const logFile = path.join(dataDir, 'service.log');
let logFd: number;
let platform: Emulator;
let cc: ReturnType<typeof cloudConvertClient>;
let userS3: Awaited<ReturnType<typeof startUserS3>>;
let azurite: Azurite;
let gcs: GcsDouble;
let receiver: Receiver;

const sessionToken = `FwoGZXIvYXdzE${randomBytes(24).toString('base64url')}`;
const serviceAccount = (() => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { email: 'converter@e2e-project.iam.gserviceaccount.com', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKey };
})();
const uploadToken = `upl_${randomBytes(18).toString('hex')}`;
const urlSignature = randomBytes(32).toString('hex');
const wrongSecret = `wrong-${randomBytes(20).toString('base64url')}`;

/** Every response body the SDK (and the test) received from the service. */
const responses: string[] = [];
const realFetch = globalThis.fetch;

beforeAll(async () => {
  [userS3, azurite, receiver] = await Promise.all([startUserS3('user-bucket', { sessionToken }), startAzurite(), startReceiver()]);
  gcs = await startGcsDouble({ clientEmail: serviceAccount.email, publicKey: serviceAccount.publicKey, buckets: ['e2e-bucket'] });
  const blobs = new BlobServiceClient(azurite.accountUrl, new StorageSharedKeyCredential(azurite.account, azurite.accountKey));
  await blobs.getContainerClient('converted').create();
  logFd = openSync(logFile, 'a');
  platform = await startEmulator({
    dataDir,
    // The functions' stdout and stderr go to a file the last test scans (a file descriptor is what spawn takes).
    output: logFd as unknown as 'inherit',
    env: {
      LOG_LEVEL: 'debug',
      ALLOW_LOOPBACK_FETCH: 'true',
      AZURE_BLOB_ENDPOINT: azurite.endpointTemplate,
      GCS_API_ENDPOINT: gcs.apiEndpoint,
      GCS_TOKEN_URL: gcs.tokenUrl,
    },
  });
  globalThis.fetch = async (input, init) => {
    const res = await realFetch(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url.startsWith(platform.baseUrl)) responses.push(`${res.status} ${JSON.stringify([...res.headers])} ${await res.clone().text()}`);
    return res;
  };
  cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  await platform?.stop();
  if (logFd !== undefined) closeSync(logFd);
  await Promise.all([userS3?.close(), azurite?.close(), gcs?.close(), receiver?.close()]);
  rmSync(dataDir, { recursive: true, force: true });
});

const s3Args = () => userS3.taskArgs({ session_token: sessionToken });
const azureSas = () =>
  generateBlobSASQueryParameters(
    { containerName: 'converted', permissions: ContainerSASPermissions.parse('racwl'), expiresOn: new Date(Date.now() + 3600_000) },
    new StorageSharedKeyCredential(azurite.account, azurite.accountKey),
  ).toString();
const gcsArgs = () => ({ project_id: 'e2e-project', bucket: 'e2e-bucket', client_email: serviceAccount.email, private_key: serviceAccount.privateKey });
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
const readS3 = async (Key: string) => (await readAll((await userS3.client.send(new GetObjectCommand({ Bucket: userS3.bucket, Key }))).Body as never)).toString();

/** Creates a job through the SDK and waits for it. */
async function run(tasks: Record<string, Record<string, unknown>>) {
  const created = await cc.jobs.create({ tasks } as never);
  const job = await cc.jobs.wait(created.id);
  return { job, byName: Object.fromEntries(job.tasks.map((t) => [t.name, t])) };
}

/** The bytes behind a job's export URLs, by file name. */
async function downloads(job: Awaited<ReturnType<typeof cc.jobs.wait>>) {
  const out: Record<string, string> = {};
  for (const f of cc.jobs.getExportUrls(job)) out[f.filename] = await (await realFetch(f.url!)).text();
  return out;
}

describe('export/s3 and import/s3 (S3-compatible)', () => {
  it('import/base64 → export/s3: the object holds the bytes with acl, metadata, content_type and tagging; %d numbers two files', async () => {
    const { job, byName } = await run({
      one: { operation: 'import/base64', file: b64('first file body'), filename: 'one.txt' },
      two: { operation: 'import/base64', file: b64('second file body'), filename: 'two.txt' },
      single: {
        operation: 'export/s3',
        input: 'one',
        ...s3Args(),
        key: 'exports/report.txt',
        acl: 'public-read',
        metadata: { department: 'finance', revision: '7' },
        content_type: 'text/x-finance-report',
        tagging: { retention: 'short', owner: 'e2e' },
      },
      several: { operation: 'export/s3', input: ['one', 'two'], ...s3Args(), key: 'out-%d.txt' },
    });
    expect(job.status).toBe('finished');
    expect(byName.single?.result?.files).toEqual([{ filename: 'one.txt', size: 15 }]);

    expect(await readS3('exports/report.txt')).toBe('first file body');
    const head = await userS3.client.send(new HeadObjectCommand({ Bucket: userS3.bucket, Key: 'exports/report.txt' }));
    expect(head.ContentType).toBe('text/x-finance-report');
    expect(head.Metadata).toEqual({ department: 'finance', revision: '7' });
    const tagging = await userS3.client.send(new GetObjectTaggingCommand({ Bucket: userS3.bucket, Key: 'exports/report.txt' }));
    expect([...(tagging.TagSet ?? [])].sort((a, b) => String(a.Key).localeCompare(String(b.Key)))).toEqual([
      { Key: 'owner', Value: 'e2e' },
      { Key: 'retention', Value: 'short' },
    ]);
    // s3rver keeps no ACLs: the canned ACL is checked on the signed request that created the object.
    const put = userS3.requests.find((r) => r.method === 'PUT' && r.path.startsWith(`/${userS3.bucket}/exports/report.txt`) && !r.path.includes('tagging'));
    expect(put).toMatchObject({ signed: true, headers: { 'x-amz-acl': 'public-read', 'x-amz-security-token': sessionToken } });

    expect(await readS3('out-1.txt')).toBe('first file body');
    expect(await readS3('out-2.txt')).toBe('second file body');
    expect((await userS3.client.send(new HeadObjectCommand({ Bucket: userS3.bucket, Key: 'out-2.txt' }))).ContentType).toBe('text/plain');
  });

  it('accepts the neutral name POST /v2/export/objstore, and imports objects back by key_prefix', async () => {
    const imported = await cc.tasks.create('import/base64', { file: b64('via alias'), filename: 'alias.txt' });
    const exported = await cc.tasks.create('export/objstore' as 'export/s3', { input: imported.id, ...s3Args(), key_prefix: 'alias/' });
    expect(exported.operation).toBe('export/objstore');
    expect((await cc.tasks.wait(exported.id)).status).toBe('finished');
    await userS3.client.send(new PutObjectCommand({ Bucket: userS3.bucket, Key: 'alias/nested/extra.txt', Body: 'extra' }));

    const { job, byName } = await run({
      back: { operation: 'import/s3', ...s3Args(), key_prefix: 'alias/' },
      out: { operation: 'export/url', input: 'back' },
    });
    expect(job.status).toBe('finished');
    expect(byName.back?.result?.files?.map((f: { filename: string }) => f.filename)).toEqual(['alias.txt', 'extra.txt']);
    expect(await downloads(job)).toEqual({ 'alias.txt': 'via alias', 'extra.txt': 'extra' });
  });

  it('fails with the storage error, without the secret, when the key is wrong', async () => {
    const { job, byName } = await run({
      one: { operation: 'import/raw', file: 'x', filename: 'x.txt' },
      out: { operation: 'export/s3', input: 'one', ...s3Args(), secret_access_key: wrongSecret, key: 'never.txt' },
    });
    expect(job.status).toBe('error');
    expect(byName.out).toMatchObject({ status: 'error', code: 'UPLOAD_FAILED' });
    expect(byName.out?.message).toMatch(/^S3 \(SignatureDoesNotMatch, HTTP 403\): /);
  });
});

describe('export/azure/blob and import/azure/blob (Azurite)', () => {
  it('exports with the account key and with a SAS token, then imports both back', async () => {
    const { job } = await run({
      a: { operation: 'import/base64', file: b64('azure with key'), filename: 'key.txt' },
      b: { operation: 'import/base64', file: b64('azure with sas'), filename: 'sas.txt' },
      withKey: { operation: 'export/azure/blob', input: 'a', storage_account: azurite.account, storage_access_key: azurite.accountKey, container: 'converted', blob: 'k/key.txt', metadata: { origin: 'e2e' } },
      withSas: { operation: 'export/blobstore/blob', input: 'b', storage_account: azurite.account, sas_token: azureSas(), container: 'converted', blob_prefix: 's/' },
    });
    expect(job.status).toBe('finished');
    const container = new BlobServiceClient(azurite.accountUrl, new StorageSharedKeyCredential(azurite.account, azurite.accountKey)).getContainerClient('converted');
    expect((await container.getBlobClient('k/key.txt').downloadToBuffer()).toString()).toBe('azure with key');
    expect((await container.getBlobClient('k/key.txt').getProperties()).metadata).toEqual({ origin: 'e2e' });
    expect((await container.getBlobClient('s/sas.txt').downloadToBuffer()).toString()).toBe('azure with sas');

    const back = await run({
      byKey: { operation: 'import/azure/blob', storage_account: azurite.account, storage_access_key: azurite.accountKey, container: 'converted', blob: 'k/key.txt' },
      bySas: { operation: 'import/azure/blob', storage_account: azurite.account, sas_token: azureSas(), container: 'converted', blob_prefix: 's/' },
      out: { operation: 'export/url', input: ['byKey', 'bySas'] },
    });
    expect(back.job.status).toBe('finished');
    expect(await downloads(back.job)).toEqual({ 'key.txt': 'azure with key', 'sas.txt': 'azure with sas' });
  });
});

describe('export/google-cloud-storage and import/google-cloud-storage (protocol double)', () => {
  it('exports and imports back with a bearer token obtained with the service-account key', async () => {
    const before = gcs.requests.length;
    const { job } = await run({
      a: { operation: 'import/base64', file: b64('to the cloud'), filename: 'cloud.txt' },
      out: { operation: 'export/google-cloud-storage', input: 'a', ...gcsArgs(), file: 'in/cloud.txt' },
      alias: { operation: 'export/cloud-storage', input: 'a', ...gcsArgs(), file_prefix: 'copies/' },
    });
    expect(job.status).toBe('finished');
    expect(gcs.objects.get('e2e-bucket/in/cloud.txt')?.data.toString()).toBe('to the cloud');
    expect(gcs.objects.get('e2e-bucket/copies/cloud.txt')?.contentType).toBe('text/plain');

    const back = await run({
      get: { operation: 'import/google-cloud-storage', ...gcsArgs(), file: 'in/cloud.txt' },
      out: { operation: 'export/url', input: 'get' },
    });
    expect(back.job.status).toBe('finished');
    expect(await downloads(back.job)).toEqual({ 'cloud.txt': 'to the cloud' });
    const seen = gcs.requests.slice(before);
    expect(seen.length).toBeGreaterThanOrEqual(4);
    expect(seen.every((r) => r.authorized)).toBe(true);
    expect(gcs.exchanges.some((e) => e.ok && e.iss === serviceAccount.email)).toBe(true);
  });
});

describe('export/upload', () => {
  it('PUTs the bytes and the headers to a local HTTP server; a 403 fails the task with UPLOAD_FAILED', async () => {
    receiver.script('/refused', [403]);
    const { job, byName } = await run({
      a: { operation: 'import/base64', file: b64('put these bytes'), filename: 'put.txt' },
      up: {
        operation: 'export/upload',
        input: 'a',
        url: `${receiver.url}/bucket/put.txt?X-Amz-Signature=${urlSignature}`,
        headers: { 'Content-Type': 'text/x-put', 'x-upload-note': 'from e2e', Authorization: `Bearer ${uploadToken}` },
      },
      refused: { operation: 'export/upload', input: 'a', url: `${receiver.url}/refused`, ignore_error: true },
    });
    const [put] = receiver.requests.filter((r) => r.path.startsWith('/bucket/put.txt'));
    expect(put?.method).toBe('PUT');
    expect(put?.body.toString()).toBe('put these bytes');
    expect(put?.headers).toMatchObject({ 'content-type': 'text/x-put', 'x-upload-note': 'from e2e', authorization: `Bearer ${uploadToken}`, 'content-length': '15' });
    expect(byName.up?.status).toBe('finished');
    expect(byName.refused).toMatchObject({ status: 'error', code: 'UPLOAD_FAILED' });
    expect(job.status).toBe('finished');
  });
});

describe('secrets', () => {
  it('appear in no API response, no line of the service logs, no queued message and no record of an ended task', async () => {
    // Read every task back with its payload, and the jobs with their tasks, as a client might.
    for (const task of await cc.tasks.all({ per_page: 100 } as never)) await cc.tasks.get(task.id, { include: 'payload' } as never);
    await cc.jobs.all({ include: 'tasks', per_page: 100 } as never);
    const payloadView = await cc.tasks.all({ 'filter[operation]': 'export/s3', include: 'payload' } as never);
    expect(JSON.stringify(payloadView)).toContain('[hidden]');

    const pemLines = serviceAccount.privateKey.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----'));
    const sas = azureSas();
    const secrets: Record<string, string> = {
      'S3 access key id': userS3.credentials.accessKeyId,
      'S3 secret access key': userS3.credentials.secretAccessKey,
      'S3 session token': sessionToken,
      'a wrong S3 secret': wrongSecret,
      'Azure account key': azurite.accountKey,
      'Azure SAS signature': new URLSearchParams(sas).get('sig')!,
      'GCS private key (first line)': pemLines[0]!,
      'GCS private key (last line)': pemLines.at(-1)!,
      'upload Authorization token': uploadToken,
      'upload URL signature': urlSignature,
    };
    await new Promise((r) => setTimeout(r, 500)); // let the last log lines reach the file
    const logs = readFileSync(logFile, 'utf8');
    if (process.env.KEEP_LOG) (await import('node:fs')).copyFileSync(logFile, process.env.KEEP_LOG);
    expect(logs.length).toBeGreaterThan(1000);
    expect(responses.length).toBeGreaterThan(20);
    const seen = responses.join('\n');
    // The state table as it is now (every job has ended) and the queues' persisted messages, dead-letter queues included.
    const ddb = new DynamoDBClient({ region: 'us-east-1', endpoint: platform.endpoints.dynamodb, credentials: LOCAL_CREDENTIALS });
    const items: unknown[] = [];
    let start: ScanCommandOutput['LastEvaluatedKey'];
    do {
      const page = await ddb.send(new ScanCommand({ TableName: 'api-platform-local-state', ExclusiveStartKey: start }));
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    const stored = JSON.stringify(items);
    expect(stored).toContain('export/s3');
    const queued = existsSync(path.join(dataDir, 'sqs.json')) ? readFileSync(path.join(dataDir, 'sqs.json'), 'utf8') : '';
    for (const [what, value] of Object.entries(secrets)) {
      expect(seen.includes(value), `${what} in an API response`).toBe(false);
      expect(logs.includes(value), `${what} in the logs`).toBe(false);
      expect(logs.includes(JSON.stringify(value).slice(1, -1)), `${what} (escaped) in the logs`).toBe(false);
      expect(stored.includes(value), `${what} in the state table`).toBe(false);
      expect(queued.includes(value), `${what} in a queued message`).toBe(false);
    }
  });
});
