/**
 * The sandbox through the whole platform (serverless-offline, queues, consumers, dynalite) and the
 * official `cloudconvert` SDK built as `new CloudConvert(sandboxKey, true)`: whitelisted files are
 * imported and converted without touching the balance, other files end SANDBOX_FILE_NOT_ALLOWED (by
 * import/base64 and by import/upload), keys of one kind are refused at the other's base, and sandbox
 * records stay out of live answers.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Credits } from '#lib/file-api/account/credits.js';
import { dayOf, type UsageReport } from '#lib/file-api/account/usage.js';
import { ApiKeys } from '#lib/access/auth/keys.js';
import { SCOPES } from '#lib/access/auth/scopes.js';
import { Users } from '#lib/access/auth/users.js';
import { LOCAL_CREDENTIALS } from '../../local/backends.js';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { DynamoStateStore } from '#lib/adapters/state/dynamodb.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { e2eOutput } from '../support/platform-output.js';
import { commandOffered, requires } from '../support/requires.js';
import { SANDBOX_REFUSAL, TASK_WITH_DEPENDENCY } from '../fixtures/recorded-answers.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'sandbox-e2e-'));
let platform: Emulator;
let sandboxKey: string;
let sandbox: ReturnType<typeof cloudConvertClient>;
let live: ReturnType<typeof cloudConvertClient>;
let credits: Credits;
let allowedPng: Buffer;
let otherPng: Buffer;
const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

beforeAll(async () => {
  platform = await startEmulator({ dataDir, output: e2eOutput, env: { LOG_LEVEL: 'warn' } });
  const state = new DynamoStateStore(
    new DynamoDBClient({ region: 'us-east-1', endpoint: platform.endpoints.dynamodb, credentials: LOCAL_CREDENTIALS }),
    'api-platform-local-state',
  );
  // As `npm run keys -- create --sandbox` and `npm run users -- credits 1 5` do.
  sandboxKey = (await new ApiKeys(state).create({ scopes: [...SCOPES], name: 'sandbox', sandbox: true })).key;
  credits = new Credits({ state, users: new Users(state, { username: 'local', email: 'local@example.com', credits: 'unlimited' }) });
  await credits.setCredits(1, 5);
  sandbox = cloudConvertClient(sandboxKey, platform.baseUrl, { sandbox: true });
  live = cloudConvertClient(platform.apiKey, platform.baseUrl);
  allowedPng = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#3366cc' } }).png().toBuffer();
  otherPng = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#cc3366' } }).png().toBuffer();
}, 300_000);
afterAll(async () => {
  await platform?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A request of our own (the whitelist routes are not in the SDK). */
async function call(method: string, url: string, key: string, body?: unknown) {
  const res = await fetch(`${platform.baseUrl}${url}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : undefined };
}

/** The SDK throws `Error(statusText, { cause: response })` on a non-2xx answer. */
async function refusal(err: unknown): Promise<{ status: number; body: { code?: string; message?: string } }> {
  const res = (err as { cause?: Response }).cause;
  if (!(res instanceof Response)) throw err;
  return { status: res.status, body: (await res.json()) as { code?: string; message?: string } };
}

const convertJob = (png: Buffer, tag: string) =>
  sandbox.jobs.create({
    tag,
    tasks: {
      'import-it': { operation: 'import/base64', file: png.toString('base64'), filename: 'dot.png' },
      'convert-it': { operation: 'convert', input: 'import-it', output_format: 'jpg' },
      'export-it': { operation: 'export/url', input: 'convert-it' },
    },
  });

describe('the sandbox through the cloudconvert SDK', () => {
  it('keeps a whitelist at /sandbox/v2 only: a live key there and a sandbox key at /v2 are 401', async () => {
    const added = await call('POST', '/sandbox/v2/users/me/sandbox/files', sandboxKey, { md5: md5(allowedPng).toUpperCase(), filename: 'dot.png' });
    expect(added).toMatchObject({ status: 201, body: { data: { md5: md5(allowedPng), filename: 'dot.png' } } });
    expect((await call('GET', '/sandbox/v2/users/me/sandbox/files', sandboxKey)).body).toMatchObject({ data: [{ md5: md5(allowedPng) }] });
    expect(await call('POST', '/sandbox/v2/users/me/sandbox/files', sandboxKey, { md5: 'not-an-md5' })).toMatchObject({
      status: 422,
      body: { errors: { md5: ['must be an MD5 checksum: 32 hexadecimal characters'] } },
    });
    // The route answers at the sandbox base only.
    expect((await call('GET', '/v2/users/me/sandbox/files', platform.apiKey)).status).toBe(404);

    const liveAtSandbox = await cloudConvertClient(platform.apiKey, platform.baseUrl, { sandbox: true }).users.me().catch((e: unknown) => e);
    expect(await refusal(liveAtSandbox)).toMatchObject({ status: 401, body: { code: 'UNAUTHENTICATED' } });
    const sandboxAtLive = await cloudConvertClient(sandboxKey, platform.baseUrl).users.me().catch((e: unknown) => e);
    expect(await refusal(sandboxAtLive)).toMatchObject({ status: 401, body: { code: 'UNAUTHENTICATED' } });
    expect((await sandbox.users.me()).id).toBe(1);
  });

  it('runs a job on a whitelisted file without using credits, even at a balance of 0, and waits through /sandbox/sync/v2', async () => {
    const job = await convertJob(allowedPng, 'allowed');
    expect((job as unknown as { links: { self: string } }).links.self).toBe(`${platform.baseUrl}/sandbox/v2/jobs/${job.id}`);
    const done = await sandbox.jobs.wait(job.id);
    expect(done.status).toBe('finished');
    const imported = done.tasks.find((t) => t.name === 'import-it')!;
    expect(imported.result?.files?.[0]).toMatchObject({ filename: 'dot.png', md5: md5(allowedPng) });
    const converted = await sandbox.tasks.wait(done.tasks.find((t) => t.name === 'convert-it')!.id);
    expect(converted).toMatchObject({ status: 'finished', credits: 0 });
    expect(done.tasks.find((t) => t.name === 'export-it')).toMatchObject({ status: 'finished', credits: 0, result: { files: [{ filename: 'dot.jpg' }] } });
    expect((await sandbox.users.me()).credits).toBe(5);

    // No 402 in the sandbox: a balance of 0 still runs jobs.
    await credits.setCredits(1, 0);
    const atZero = await sandbox.jobs.wait((await convertJob(allowedPng, 'at-zero')).id);
    expect(atZero.status).toBe('finished');
    await credits.setCredits(1, 5);

    // Nothing in the usage ledger.
    const today = dayOf(new Date());
    const usage = await call('GET', `/v2/users/me/usage?from=${today}&to=${today}`, platform.apiKey);
    expect((usage.body!.data as UsageReport).totals).toMatchObject({ credits: 0, tasks: 0 });
  }, 120_000);

  it('ends an import of a file not on the whitelist with SANDBOX_FILE_NOT_ALLOWED, naming its MD5 and the command', async () => {
    const done = await sandbox.jobs.wait((await convertJob(otherPng, 'refused')).id);
    expect(done.status).toBe('error');
    const imported = done.tasks.find((t) => t.name === 'import-it')!;
    expect(imported).toMatchObject({ status: 'error', code: 'SANDBOX_FILE_NOT_ALLOWED' });
    expect(imported.message).toContain(`dot.png (MD5 ${md5(otherPng)})`);
    expect(imported.message).toContain(`npm run -s sandbox -- allow ${md5(otherPng)}`);
    // As CloudConvert's recorded refusal: result.files keeps the file's name and MD5, nothing more.
    expect(Object.keys(imported.result!).sort()).toEqual([...SANDBOX_REFUSAL.resultFields].sort());
    expect(imported.result!.files!.map((f) => Object.keys(f).sort())).toEqual([[...SANDBOX_REFUSAL.fileFields].sort()]);
    expect(imported.result!.files![0]).toEqual({ filename: 'dot.png', md5: md5(otherPng) });
    expect(done.tasks.find((t) => t.name === 'convert-it')).toMatchObject({ status: 'error', code: 'INPUT_TASK_FAILED' });
    // include=payload reaches the task under depends_on_tasks, with the recorded fields (task.json).
    const converted = await sandbox.tasks.get(done.tasks.find((t) => t.name === 'convert-it')!.id, { include: 'payload' });
    expect(converted.payload).toMatchObject({ output_format: 'jpg' });
    const [nested] = converted.depends_on_tasks as unknown as Record<string, unknown>[];
    expect(Object.keys(nested!)).toEqual(expect.arrayContaining([...TASK_WITH_DEPENDENCY.nested]));
    expect(nested).toMatchObject({ name: 'import-it', code: 'SANDBOX_FILE_NOT_ALLOWED', payload: { filename: 'dot.png' }, result: { files: [{ md5: md5(otherPng) }] } });
    expect((await sandbox.users.me()).credits).toBe(5);
  }, 120_000);

  it('refuses work that makes or fetches its own content with 422 SANDBOX_OPERATION_NOT_ALLOWED naming the field', async () => {
    const page = await sandbox.jobs.create({ tasks: { page: { operation: 'capture-website', url: 'https://example.com/', output_format: 'png' } } }).catch((e: unknown) => e);
    expect(await refusal(page)).toMatchObject({ status: 422, body: { code: 'SANDBOX_OPERATION_NOT_ALLOWED', errors: { 'tasks.page.operation': [expect.stringContaining('sandbox')] } } });
    const stamp = await sandbox.tasks.create('watermark', { text: 'free' }).catch((e: unknown) => e);
    expect(await refusal(stamp)).toMatchObject({ status: 422, body: { code: 'SANDBOX_OPERATION_NOT_ALLOWED', errors: { input: [expect.any(String)] } } });
  });

  // Where command is offered at all (fully confined): elsewhere it is refused on its engine, sandbox or not.
  requires(commandOffered()).it('refuses a command that generates its input with 422 SANDBOX_OPERATION_NOT_ALLOWED naming its arguments', async () => {
    const generated = await call('POST', '/sandbox/v2/jobs', sandboxKey, {
      tasks: { gen: { operation: 'command', engine: 'ffmpeg', command: 'ffmpeg', arguments: '-f lavfi -i testsrc -t 60 /output/free.mp4' } },
    });
    expect(generated).toMatchObject({ status: 422, body: { code: 'SANDBOX_OPERATION_NOT_ALLOWED', errors: { 'tasks.gen.arguments': [expect.any(String)] } } });
  });

  it('refuses an upload of a file not on the whitelist, and takes it once whitelisted', async () => {
    const refused = await sandbox.tasks.create('import/upload', {});
    await sandbox.tasks.upload(refused, Readable.from([otherPng]), 'other.png', otherPng.length);
    const failed = await sandbox.tasks.wait(refused.id);
    expect(failed).toMatchObject({ status: 'error', code: 'SANDBOX_FILE_NOT_ALLOWED' });
    expect(failed.message).toContain(md5(otherPng));
    expect(failed.result).toEqual({ files: [{ filename: 'other.png', md5: md5(otherPng) }] });

    expect((await call('POST', '/sandbox/v2/users/me/sandbox/files', sandboxKey, { md5: md5(otherPng) })).status).toBe(201);
    const allowed = await sandbox.tasks.create('import/upload', {});
    await sandbox.tasks.upload(allowed, Readable.from([otherPng]), 'other.png', otherPng.length);
    const finished = await sandbox.tasks.wait(allowed.id);
    expect(finished).toMatchObject({ status: 'finished' });
    expect(finished.result?.files?.[0]).toMatchObject({ filename: 'other.png', md5: md5(otherPng) });
    expect((await call('DELETE', `/sandbox/v2/users/me/sandbox/files/${md5(otherPng)}`, sandboxKey)).status).toBe(204);
    expect((await call('DELETE', `/sandbox/v2/users/me/sandbox/files/${md5(otherPng)}`, sandboxKey)).status).toBe(404);
  }, 120_000);

  it('keeps sandbox jobs, tasks and webhooks apart from live ones', async () => {
    const [job] = await sandbox.jobs.all({ 'filter[tag]': 'allowed' });
    expect(job).toBeDefined();
    expect(await live.jobs.all({ 'filter[tag]': 'allowed' })).toEqual([]);
    expect((await refusal(await live.jobs.get(job!.id).catch((e: unknown) => e))).status).toBe(404);
    expect((await refusal(await live.jobs.delete(job!.id).catch((e: unknown) => e))).status).toBe(404);
    const liveTask = await live.tasks.create('import/base64', { file: allowedPng.toString('base64'), filename: 'live.png' });
    expect((await refusal(await sandbox.tasks.get(liveTask.id).catch((e: unknown) => e))).status).toBe(404);
    expect((await sandbox.tasks.all({ per_page: 100 })).map((t) => t.id)).not.toContain(liveTask.id);
    // A sandbox task cannot take a live task as input.
    const crossed = await sandbox.tasks.create('convert', { input: [liveTask.id], output_format: 'jpg' }).catch((e: unknown) => e);
    expect((await refusal(crossed)).status).toBe(422);

    const hook = await call('POST', '/sandbox/v2/webhooks', sandboxKey, { url: 'https://hooks.example.com/sandbox', events: ['job.finished'] });
    expect(hook.status).toBe(201);
    expect((await call('GET', '/v2/users/me/webhooks', platform.apiKey)).body!.data).toEqual([]);
    expect((await call('DELETE', `/v2/webhooks/${hook.body!.data.id}`, platform.apiKey)).status).toBe(404);
    expect((await call('GET', '/sandbox/v2/users/me/webhooks', sandboxKey)).body!.data).toHaveLength(1);
  });
});
