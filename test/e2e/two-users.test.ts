/**
 * Two users of one installation, each with their own API key, through the official `cloudconvert`
 * SDK and plain HTTP: every route that names a job, task or webhook answers the other user 404
 * (as if it did not exist), every list leaves the other user's items out, and nothing the other user
 * tries changes them. User A is the built-in user 1 of `npm start`; user B an account made as
 * `npm run users -- create` makes one (user 2).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '#lib/access/auth/accounts.js';
import { ApiKeys } from '#lib/access/auth/keys.js';
import { SCOPES } from '#lib/access/auth/scopes.js';
import { LOCAL_CREDENTIALS } from '../../local/backends.js';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { DynamoStateStore } from '#lib/adapters/state/dynamodb.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { callApi } from '../support/file-api.js';
import { e2eOutput } from '../support/platform-output.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'two-users-e2e-'));
let platform: Emulator;
let a: { key: string; cc: ReturnType<typeof cloudConvertClient> };
let b: { key: string; cc: ReturnType<typeof cloudConvertClient> };

/** What user A owns: a finished job (import/raw → export/url), a waiting upload task, a webhook. */
let owned: { jobId: string; taskIds: string[]; exportTaskId: string; exportUrl: string; uploadTaskId: string; webhookId: string };

beforeAll(async () => {
  platform = await startEmulator({ dataDir, output: e2eOutput, env: { LOG_LEVEL: 'warn' } });
  const state = new DynamoStateStore(
    new DynamoDBClient({ region: 'us-east-1', endpoint: platform.endpoints.dynamodb, credentials: LOCAL_CREDENTIALS }),
    'api-platform-local-state',
  );
  // User B made as `npm run users -- create` makes an account, then given a key.
  const accounts = new Accounts(state, { username: 'local', email: 'local@example.com', credits: 'unlimited' });
  const { user } = await accounts.create({ email: 'b@example.com', username: 'B', password: 'b-password-123456' });
  const second = await new ApiKeys(state).create({ scopes: [...SCOPES], name: 'user two', userId: user.id });
  a = { key: platform.apiKey, cc: cloudConvertClient(platform.apiKey, platform.baseUrl) };
  b = { key: second.key, cc: cloudConvertClient(second.key, platform.baseUrl) };

  const job = await a.cc.jobs.wait(
    (
      await a.cc.jobs.create({
        tasks: {
          raw: { operation: 'import/raw', file: 'only for user one', filename: 'mine.txt' },
          url: { operation: 'export/url', input: 'raw' },
        },
      } as never)
    ).id,
  );
  expect(job.status).toBe('finished');
  const upload = await a.cc.tasks.create('import/upload', {});
  const hook = await api(a.key, 'POST', '/v2/webhooks', { url: 'https://example.com/hook', events: ['job.finished'] });
  expect(hook.status).toBe(201);
  owned = {
    jobId: job.id,
    taskIds: job.tasks.map((t) => t.id),
    exportTaskId: job.tasks.find((t) => t.name === 'url')!.id,
    exportUrl: a.cc.jobs.getExportUrls(job)[0]!.url!,
    uploadTaskId: upload.id,
    webhookId: (hook.body as { data: { id: string } }).data.id,
  };
});

afterAll(async () => {
  await platform?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const api = (key: string, method: string, route: string, body?: unknown) => callApi(platform.baseUrl, key, method, route, body);

const ids = (body: unknown) => ((body as { data: Array<{ id: string }> }).data ?? []).map((x) => x.id);

describe('two users', () => {
  it('each sees their own account', async () => {
    expect((await a.cc.users.me()).id).toBe(1);
    expect((await b.cc.users.me()).id).toBe(2);
  });

  it('every route naming a job of the other user answers 404, and the job stays as it was', async () => {
    const { jobId } = owned;
    const routes: Array<[string, string]> = [
      ['GET', `/v2/jobs/${jobId}`],
      ['GET', `/v2/jobs/${jobId}/wait`],
      ['GET', `/sync/v2/jobs/${jobId}`],
      ['DELETE', `/v2/jobs/${jobId}`],
    ];
    for (const [method, route] of routes) {
      const res = await api(b.key, method, route);
      expect(res.status, `${method} ${route}`).toBe(404);
      expect(JSON.stringify(res.body), `${method} ${route}`).not.toContain('mine.txt');
    }
    await expect(b.cc.jobs.get(jobId)).rejects.toThrow();
    // Still there, whole, for its owner.
    const job = await a.cc.jobs.get(jobId);
    expect(job).toMatchObject({ id: jobId, status: 'finished' });
    expect(job.tasks).toHaveLength(2);
  });

  it('every route naming a task of the other user answers 404, and the tasks stay as they were', async () => {
    for (const taskId of [...owned.taskIds, owned.uploadTaskId]) {
      const routes: Array<[string, string]> = [
        ['GET', `/v2/tasks/${taskId}`],
        ['GET', `/v2/tasks/${taskId}/wait`],
        ['GET', `/sync/v2/tasks/${taskId}`],
        ['POST', `/v2/tasks/${taskId}/cancel`],
        ['POST', `/v2/tasks/${taskId}/retry`],
        ['DELETE', `/v2/tasks/${taskId}`],
      ];
      for (const [method, route] of routes) {
        expect((await api(b.key, method, route)).status, `${method} ${route}`).toBe(404);
      }
    }
    await expect(b.cc.tasks.get(owned.exportTaskId)).rejects.toThrow();
    expect((await a.cc.tasks.get(owned.uploadTaskId)).status).toBe('waiting');
    const exported = await a.cc.tasks.get(owned.exportTaskId);
    expect(exported.status).toBe('finished');
    expect(exported.result?.files?.[0]?.filename).toBe('mine.txt');
  });

  it('cannot use the other user’s task as an input: the input is unknown (422), nothing is created', async () => {
    const before = ids((await api(b.key, 'GET', '/v2/tasks')).body);
    const res = await api(b.key, 'POST', '/v2/export/url', { input: owned.taskIds[0] });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toMatch(/input/);
    const job = await api(b.key, 'POST', '/v2/jobs', { tasks: { out: { operation: 'export/url', input: [owned.taskIds[0]] } } });
    expect(job.status).toBe(422);
    expect(ids((await api(b.key, 'GET', '/v2/tasks')).body)).toEqual(before);
  });

  it('lists leave out the other user’s jobs, tasks and webhooks, also when filtered by the other user’s job', async () => {
    const bJob = await b.cc.jobs.create({ tasks: { raw: { operation: 'import/raw', file: 'two', filename: 'two.txt' } } } as never);
    const jobsB = ids((await api(b.key, 'GET', '/v2/jobs')).body);
    expect(jobsB).toContain(bJob.id);
    expect(jobsB).not.toContain(owned.jobId);
    expect(ids((await api(a.key, 'GET', '/v2/jobs')).body)).not.toContain(bJob.id);

    const tasksB = ids((await api(b.key, 'GET', '/v2/tasks')).body);
    for (const id of [...owned.taskIds, owned.uploadTaskId]) expect(tasksB).not.toContain(id);
    expect(ids((await api(b.key, 'GET', `/v2/tasks?filter%5Bjob_id%5D=${owned.jobId}`)).body)).toEqual([]);

    expect(ids((await api(b.key, 'GET', '/v2/users/me/webhooks')).body)).not.toContain(owned.webhookId);
    expect(ids((await api(a.key, 'GET', '/v2/users/me/webhooks')).body)).toContain(owned.webhookId);
  });

  it('cannot delete the other user’s webhook, and each has their own signing secret', async () => {
    expect((await api(b.key, 'DELETE', `/v2/webhooks/${owned.webhookId}`)).status).toBe(404);
    expect(ids((await api(a.key, 'GET', '/v2/users/me/webhooks')).body)).toContain(owned.webhookId);
    const secretA = await api(a.key, 'GET', '/v2/users/me/webhooks/signing-secret');
    const secretB = await api(b.key, 'GET', '/v2/users/me/webhooks/signing-secret');
    expect(secretA.status).toBe(200);
    expect(secretB.status).toBe(200);
    expect(JSON.stringify(secretA.body)).not.toBe(JSON.stringify(secretB.body));
  });

  it('the other user’s export URL is not given out by any route; the URL itself is the credential', async () => {
    // Every route that shows the URL answered user B 404 above; the URL, like CloudConvert's, opens
    // for whoever holds it (a browser, no key) until it expires or the task is deleted.
    const res = await fetch(owned.exportUrl, { redirect: 'manual' });
    expect(res.status).toBe(302);
    for (const route of ['/v2/jobs', '/v2/tasks']) {
      expect(JSON.stringify((await api(b.key, 'GET', `${route}?include=result`)).body)).not.toContain(owned.exportUrl.split('?')[0]);
    }
  });
});
