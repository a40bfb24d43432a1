/**
 * Processing regions through the official `cloudconvert` SDK (`new CloudConvert(key, false, region)`,
 * with the README's base override) and plain HTTP: a job runs in the region its base forces, else the
 * account's fixed region, else the caller's address's; it shows that region on every task, and its
 * files are only in that region's bucket (the test lists every bucket). Jobs of every region are
 * seen at every base.
 *
 * The caller's address: the test talks to the platform from 127.0.0.1 or ::1, which the platform's
 * REGION_ADDRESS_RANGES below map to us-east (the default region is eu-central), so the plain base
 * picking us-east shows the address table at work.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '#lib/access/auth/accounts.js';
import { ApiKeys } from '#lib/access/auth/keys.js';
import { SCOPES } from '#lib/access/auth/scopes.js';
import { createS3Client } from '#lib/adapters/file-store/s3-file-store.js';
import { LOCAL_CREDENTIALS } from '../../local/backends.js';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { DynamoStateStore } from '#lib/adapters/state/dynamodb.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { callApi } from '../support/file-api.js';
import { e2eOutput } from '../support/platform-output.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'regions-e2e-'));
let platform: Emulator;
let s3: ReturnType<typeof createS3Client>;
let second: { key: string; email: string };

beforeAll(async () => {
  platform = await startEmulator({
    dataDir,
    output: e2eOutput,
    env: { LOG_LEVEL: 'warn', REGION_ADDRESS_RANGES: '127.0.0.0/8=us-east,::1=us-east' },
  });
  s3 = createS3Client({ region: 'us-east-1', endpoint: platform.endpoints.s3, credentials: LOCAL_CREDENTIALS });
  const state = new DynamoStateStore(
    new DynamoDBClient({ region: 'us-east-1', endpoint: platform.endpoints.dynamodb, credentials: LOCAL_CREDENTIALS }),
    'api-platform-local-state',
  );
  const accounts = new Accounts(state, { username: 'local', email: 'local@example.com', credits: 'unlimited' });
  const { user } = await accounts.create({ email: 'fixed@example.com', username: 'Fixed', password: 'fixed-password-123456' });
  second = { key: (await new ApiKeys(state).create({ scopes: [...SCOPES], name: 'fixed region', userId: user.id })).key, email: user.email };
});

afterAll(async () => {
  await platform?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Every object key under `tasks/<id>/` and `uploads/<id>/` of these tasks, per bucket (region names, and `default` for FILES_BUCKET). */
async function whereFilesAre(taskIds: string[]): Promise<Record<string, string[]>> {
  const buckets = { ...platform.regionBuckets, default: platform.env.FILES_BUCKET! };
  const out: Record<string, string[]> = {};
  for (const [name, bucket] of Object.entries(buckets)) {
    out[name] = [];
    for (const id of taskIds) {
      for (const prefix of [`tasks/${id}/`, `uploads/${id}/`]) {
        const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
        out[name].push(...(listed.Contents ?? []).map((o) => o.Key!));
      }
    }
  }
  return out;
}

/** An account answer of ours (`PATCH`/`GET /v2/users/me`) or a 422. */
type AccountAnswer = { data?: { region?: string | null }; errors?: Record<string, string[]> };
const api = (key: string, method: string, route: string, body?: unknown) => callApi<AccountAnswer>(platform.baseUrl, key, method, route, body);

const rawToUrl = (text: string) =>
  ({
    tasks: {
      raw: { operation: 'import/raw', file: text, filename: 'note.txt' },
      url: { operation: 'export/url', input: 'raw' },
    },
  }) as never;

/** Runs a raw → export/url job with `cc` and waits for it (the SDK waits through the base's sync path). */
async function runJob(cc: ReturnType<typeof cloudConvertClient>, text: string) {
  const created = await cc.jobs.create(rawToUrl(text));
  const job = await cc.jobs.wait(created.id);
  expect(job.status).toBe('finished');
  return job;
}

/** `region` as the service shows it on jobs and tasks (the SDK's types do not list it). */
const regionOf = (item: object) => (item as { region?: unknown }).region;
const regionsOf = (job: { tasks: object[] }) => [...new Set(job.tasks.map(regionOf))];

/** Runs a raw → export/url job and checks that it ran in `region`: every task shows it, and the two tasks' files are in its bucket and no other. */
async function expectJobIn(cc: ReturnType<typeof cloudConvertClient>, text: string, region: string) {
  const job = await runJob(cc, text);
  expect(regionsOf(job)).toEqual([region]);
  const files = await whereFilesAre(job.tasks.map((t) => t.id));
  for (const [bucket, keys] of Object.entries(files)) expect(keys, bucket).toHaveLength(bucket === region ? 2 : 0);
  return job;
}

describe('processing regions', () => {
  it('runs a job at the eu-central base in eu-central, its files only in the eu-central bucket', async () => {
    const cc = cloudConvertClient(platform.apiKey, platform.baseUrl, { region: 'eu-central' });
    const job = await expectJobIn(cc, 'kept in Frankfurt', 'eu-central');
    expect(regionOf(job)).toBe('eu-central');

    // The export URL serves the file from its region's bucket.
    const url = cc.jobs.getExportUrls(job)[0]!.url!;
    expect(await (await fetch(url)).text()).toBe('kept in Frankfurt');
  });

  it('runs an upload at the us-east base in us-east: the form sends the file to the us-east bucket, and it stays there', async () => {
    const cc = cloudConvertClient(platform.apiKey, platform.baseUrl, { region: 'us-east' });
    const task = await cc.tasks.create('import/upload', {});
    expect(regionOf(task)).toBe('us-east');
    await cc.tasks.upload(task, Readable.from([Buffer.from('sent to Virginia')]), 'upload.txt', 16);
    const done = await cc.tasks.wait(task.id);
    expect(done.status).toBe('finished');
    expect(regionOf(done)).toBe('us-east');

    const exported = await cc.tasks.wait((await cc.tasks.create('export/url', { input: [task.id] })).id);
    expect(regionOf(exported)).toBe('us-east');
    const files = await whereFilesAre([task.id, exported.id]);
    expect(files['us-east']!.sort()).toEqual([`tasks/${exported.id}/upload.txt`, `tasks/${task.id}/upload.txt`].sort());
    expect(files['eu-central']).toEqual([]);
    expect(files.default).toEqual([]);
    expect(await (await fetch(exported.result!.files![0]!.url!)).text()).toBe('sent to Virginia');
  });

  it('picks the region of the caller address at the plain base (127.0.0.1 and ::1 are mapped to us-east)', async () => {
    const cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
    await expectJobIn(cc, 'placed by address', 'us-east');
  });

  it('gives an account with a fixed region that region at the plain base, set with the users CLI or PATCH /v2/users/me', async () => {
    const run = promisify(execFile);
    const cli = await run(process.execPath, ['--import', 'tsx', 'scripts/users.ts', 'region', second.email, 'eu-central'], {
      env: { ...process.env, DATA_DIR: dataDir, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    expect(cli.stderr).toContain('region eu-central');
    expect((await api(second.key, 'GET', '/v2/users/me')).body?.data?.region).toBe('eu-central');

    const cc = cloudConvertClient(second.key, platform.baseUrl);
    await expectJobIn(cc, 'mine stays in eu-central', 'eu-central');
    const task = await cc.tasks.create('import/raw', { file: 'x', filename: 'x.txt' });
    expect(regionOf(task)).toBe('eu-central');

    // Refused with the field named; null clears it, and the address decides again.
    const wrong = await api(second.key, 'PATCH', '/v2/users/me', { region: 'mars' });
    expect(wrong.status).toBe(422);
    expect(wrong.body?.errors?.region?.[0]).toContain('eu-central, us-east');
    const moved = await api(second.key, 'PATCH', '/v2/users/me', { region: 'us-east' });
    expect(moved.status).toBe(200);
    expect(moved.body?.data?.region).toBe('us-east');
    expect(regionOf(await cc.tasks.create('import/raw', { file: 'y', filename: 'y.txt' }))).toBe('us-east');
    const cleared = await api(second.key, 'PATCH', '/v2/users/me', { region: null });
    expect(cleared.body?.data?.region).toBeNull();
  });

  it('shows jobs of every region at every base, and waits for them through any base', async () => {
    const eu = cloudConvertClient(platform.apiKey, platform.baseUrl, { region: 'eu-central' });
    const us = cloudConvertClient(platform.apiKey, platform.baseUrl, { region: 'us-east' });
    const plain = cloudConvertClient(platform.apiKey, platform.baseUrl);
    const euJob = await eu.jobs.create(rawToUrl('from eu'));
    const usJob = await us.jobs.create(rawToUrl('from us'));

    expect((await us.jobs.wait(euJob.id)).tasks.map(regionOf)).toEqual(['eu-central', 'eu-central']);
    expect((await eu.jobs.wait(usJob.id)).status).toBe('finished');
    expect(regionOf((await plain.jobs.get(euJob.id)).tasks[0]!)).toBe('eu-central');
    const euTask = euJob.tasks[0]!;
    expect(regionOf(await us.tasks.wait(euTask.id))).toBe('eu-central');

    for (const cc of [eu, us, plain]) {
      const jobIds = (await cc.jobs.all()).map((j) => j.id);
      expect(jobIds).toEqual(expect.arrayContaining([euJob.id, usJob.id]));
      const taskIds = (await cc.tasks.all()).map((t) => t.id);
      expect(taskIds).toEqual(expect.arrayContaining([euTask.id, usJob.tasks[0]!.id]));
    }
  });
});
