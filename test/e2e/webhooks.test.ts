/**
 * Webhooks against the whole platform: the settings API over HTTP (the Node SDK has no webhook
 * calls), jobs through the official `cloudconvert` SDK, deliveries through the webhooks queue to local
 * receivers, signatures checked with the SDK's `webhooks.verify`. Retries wait 1 s here
 * (WEBHOOK_RETRY_DELAYS_SECONDS).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeys } from '#lib/access/auth/keys.js';
import { LOCAL_CREDENTIALS } from '../../local/backends.js';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { DynamoStateStore } from '#lib/adapters/state/dynamodb.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { startReceiver, type ReceivedRequest, type Receiver } from '../support/receiver.js';
import { e2eOutput } from '../support/platform-output.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'webhooks-e2e-'));
let platform: Emulator;
let cc: ReturnType<typeof cloudConvertClient>;
let receiver: Receiver;
/** A second API key of the same user, and the SDK with it. */
let second: { key: string; keyId: string; cc: ReturnType<typeof cloudConvertClient> };
/** Key ids a webhook of user 1 may not name: another user's key, and a revoked key of user 1. */
let notMine: { otherUsers: string; revoked: string };

beforeAll(async () => {
  receiver = await startReceiver();
  platform = await startEmulator({
    dataDir,
    output: e2eOutput,
    env: { LOG_LEVEL: 'warn', ALLOW_LOOPBACK_FETCH: 'true', WEBHOOK_RETRY_DELAYS_SECONDS: '1,1,1' },
  });
  cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
  const state = new DynamoStateStore(
    new DynamoDBClient({ region: 'us-east-1', endpoint: platform.endpoints.dynamodb, credentials: LOCAL_CREDENTIALS }),
    'api-platform-local-state',
  );
  const { key, record } = await new ApiKeys(state).create({ scopes: ['task.read', 'task.write', 'webhook.read', 'webhook.write'], name: 'second' });
  second = { key, keyId: record.keyId, cc: cloudConvertClient(key, platform.baseUrl) };
  const keys = new ApiKeys(state);
  const otherUsers = (await keys.create({ scopes: ['task.read'], name: 'user 2', userId: 2 })).record.keyId;
  const revoked = (await keys.create({ scopes: ['task.read'], name: 'revoked' })).record.keyId;
  await keys.revokeOf(1, revoked);
  notMine = { otherUsers, revoked };
});
afterAll(async () => {
  await platform?.stop();
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Webhook {
  id: string;
  url: string;
  events: string[];
  api_key_ids: string[];
  disabled: boolean;
  failing: boolean;
  signing_secret: string;
}

async function api(method: string, route: string, body?: unknown, key = platform.apiKey) {
  const res = await fetch(`${platform.baseUrl}/v2/${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : undefined };
}

const createWebhook = async (hookPath: string, events: string[], extra: Record<string, unknown> = {}) => {
  const res = await api('POST', 'webhooks', { url: `${receiver.url}${hookPath}`, events, ...extra });
  expect(res.status).toBe(201);
  return res.body.data as Webhook;
};

const simpleJob = (client = cc, extra: Record<string, unknown> = {}) =>
  client.jobs.create({
    tasks: {
      raw: { operation: 'import/raw', file: 'webhook test', filename: 'hook.txt' },
      url: { operation: 'export/url', input: 'raw' },
    },
    ...extra,
  } as never);

const bodyOf = (r: ReceivedRequest) => JSON.parse(r.body.toString('utf8')) as { event: string; job?: any; task?: any };
const signatureOf = (r: ReceivedRequest) => String(r.headers['cloudconvert-signature'] ?? '');

describe('webhook settings', () => {
  it('creates, lists (with filter[url]) and deletes endpoints', async () => {
    const hook = await createWebhook('/settings', ['job.finished', 'task.failed']);
    expect(hook).toMatchObject({ url: `${receiver.url}/settings`, events: ['job.finished', 'task.failed'], api_key_ids: [], disabled: false, failing: false });
    expect(hook.signing_secret).toMatch(/^[\w-]{20,}$/);

    const all = await api('GET', 'users/me/webhooks');
    expect(all.status).toBe(200);
    expect(all.body.data.map((h: Webhook) => h.id)).toContain(hook.id);
    expect(all.body.meta).toMatchObject({ current_page: 1, per_page: 100 });
    const filtered = await api('GET', `users/me/webhooks?filter%5Burl%5D=${encodeURIComponent(`${receiver.url}/settings`)}`);
    expect(filtered.body.data).toHaveLength(1);

    expect((await api('DELETE', `webhooks/${hook.id}`)).status).toBe(204);
    expect((await api('DELETE', `webhooks/${hook.id}`)).status).toBe(404);
    expect((await api('GET', 'users/me/webhooks')).body.data.map((h: Webhook) => h.id)).not.toContain(hook.id);
  });

  it('rejects unknown events, internal addresses and unknown API keys with 422', async () => {
    const bad = await api('POST', 'webhooks', { url: 'http://169.254.169.254/latest', events: ['job.finished', 'job.exploded'], api_key_ids: ['0123456789abcdef'] });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(expect.arrayContaining(['events.1']));
    const internal = await api('POST', 'webhooks', { url: 'http://169.254.169.254/latest', events: ['job.finished'] });
    expect(internal.status).toBe(422);
    expect(internal.body.errors.url[0]).toMatch(/Refusing/);
    const unknownKey = await api('POST', 'webhooks', { url: `${receiver.url}/x`, events: ['job.finished'], api_key_ids: ['0123456789abcdef'] });
    expect(unknownKey.status).toBe(422);
    expect(unknownKey.body.errors.api_key_ids).toHaveLength(1);
    const notOwn = await api('POST', 'webhooks', { url: `${receiver.url}/x`, events: ['job.finished'], api_key_ids: [second.keyId, notMine.otherUsers, notMine.revoked] });
    expect(notOwn.status).toBe(422);
    expect(notOwn.body.errors.api_key_ids).toEqual([`There is no API key with id ${notMine.otherUsers}.`, `There is no API key with id ${notMine.revoked}.`]);
  });
});

describe('webhook deliveries', () => {
  it('POSTs job.finished signed with the signing secret, which webhooks.verify accepts', async () => {
    const hook = await createWebhook('/finished', ['job.created', 'job.finished']);
    const created = await simpleJob();
    const job = await cc.jobs.wait(created.id);
    const requests = await receiver.waitFor(2, '/finished');
    const finished = requests.find((r) => bodyOf(r).event === 'job.finished')!;
    expect(finished.method).toBe('POST');
    expect(finished.headers['content-type']).toBe('application/json');
    const payload = bodyOf(finished);
    expect(payload.job).toMatchObject({ id: job.id, status: 'finished', links: { self: `${platform.baseUrl}/v2/jobs/${job.id}` } });
    const exportTask = payload.job.tasks.find((t: { name: string }) => t.name === 'url');
    expect(exportTask.result.files[0]).toMatchObject({ filename: 'hook.txt', url: expect.stringMatching(/^http/) });
    expect(cc.webhooks.verify(finished.body.toString('utf8'), signatureOf(finished), hook.signing_secret)).toBe(true);
    expect(cc.webhooks.verify(finished.body.toString('utf8'), signatureOf(finished), 'another-secret')).toBe(false);

    const createdEvent = requests.find((r) => bodyOf(r).event === 'job.created')!;
    expect(bodyOf(createdEvent).job.id).toBe(job.id);
    expect(cc.webhooks.verify(createdEvent.body.toString('utf8'), signatureOf(createdEvent), hook.signing_secret)).toBe(true);
    await api('DELETE', `webhooks/${hook.id}`);
  });

  it('retries after 500 and 500 and is delivered on the third try, with the same signed body', async () => {
    receiver.script('/flaky', [500, 500, 200]);
    const hook = await createWebhook('/flaky', ['job.finished']);
    const job = await cc.jobs.wait((await simpleJob()).id);
    const tries = await receiver.waitFor(3, '/flaky', 30_000);
    expect(tries).toHaveLength(3);
    for (const t of tries) {
      expect(bodyOf(t)).toMatchObject({ event: 'job.finished', job: { id: job.id } });
      expect(cc.webhooks.verify(t.body.toString('utf8'), signatureOf(t), hook.signing_secret)).toBe(true);
    }
    expect(tries[1]!.body.equals(tries[0]!.body)).toBe(true);
    // Back-off: each retry waited its delay (1 s here).
    expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(900);
    expect(tries[2]!.at - tries[1]!.at).toBeGreaterThanOrEqual(900);
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.requests.filter((r) => r.path === '/flaky')).toHaveLength(3);
    const listed = (await api('GET', 'users/me/webhooks')).body.data.find((h: Webhook) => h.id === hook.id);
    expect(listed).toMatchObject({ failing: false, disabled: false });
    await api('DELETE', `webhooks/${hook.id}`);
  });

  it('disables an endpoint that answers 410 Gone', async () => {
    receiver.script('/gone', [410]);
    const hook = await createWebhook('/gone', ['job.finished']);
    await cc.jobs.wait((await simpleJob()).id);
    await receiver.waitFor(1, '/gone');
    let listed: Webhook | undefined;
    for (let i = 0; i < 50 && !listed?.disabled; i++) {
      await new Promise((r) => setTimeout(r, 100));
      listed = (await api('GET', 'users/me/webhooks')).body.data.find((h: Webhook) => h.id === hook.id);
    }
    expect(listed).toMatchObject({ disabled: true });
    // Nothing more is sent to it.
    const witness = await createWebhook('/witness', ['job.finished']);
    const job = await cc.jobs.wait((await simpleJob()).id);
    await receiver.waitFor(1, '/witness');
    expect(bodyOf((await receiver.waitFor(1, '/witness'))[0]!).job.id).toBe(job.id);
    expect(receiver.requests.filter((r) => r.path === '/gone')).toHaveLength(1);
    await api('DELETE', `webhooks/${hook.id}`);
    await api('DELETE', `webhooks/${witness.id}`);
  });

  it("sends job.finished and job.failed to a job's dynamic webhook_url, signed with the account's secret", async () => {
    const secret = (await api('GET', 'users/me/webhooks/signing-secret')).body.data.signing_secret as string;
    expect(secret).toMatch(/^[\w-]{20,}$/);
    const ok = await cc.jobs.wait((await simpleJob(cc, { webhook_url: `${receiver.url}/dynamic` })).id);
    const failed = await cc.jobs.wait(
      (
        await cc.jobs.create({
          tasks: { fetch: { operation: 'import/url', url: 'http://169.254.169.254/latest/meta-data/' } },
          webhook_url: `${receiver.url}/dynamic`,
        } as never)
      ).id,
    );
    expect(failed.status).toBe('error');
    const got = await receiver.waitFor(2, '/dynamic');
    const events = Object.fromEntries(got.map((r) => [bodyOf(r).event, r]));
    expect(bodyOf(events['job.finished']!).job.id).toBe(ok.id);
    expect(bodyOf(events['job.failed']!).job).toMatchObject({ id: failed.id, status: 'error' });
    for (const r of got) expect(cc.webhooks.verify(r.body.toString('utf8'), signatureOf(r), secret)).toBe(true);
  });

  it('delivers to an endpoint assigned to an API key only the events of that key, and task events', async () => {
    const keyHook = await createWebhook('/second-key', ['job.finished', 'task.finished'], { api_key_ids: [second.keyId] });
    expect(keyHook.api_key_ids).toEqual([second.keyId]);
    const everyKey = await createWebhook('/every-key', ['job.finished']);

    const byFirst = await cc.jobs.wait((await simpleJob(cc)).id);
    const bySecond = await second.cc.jobs.wait((await simpleJob(second.cc)).id);
    const every = await receiver.waitFor(2, '/every-key');
    expect(every.map((r) => bodyOf(r).job.id).sort()).toEqual([byFirst.id, bySecond.id].sort());

    // job.finished plus one task.finished per task, all of the second key's job.
    const assigned = await receiver.waitFor(3, '/second-key');
    await new Promise((r) => setTimeout(r, 1000));
    const bodies = receiver.requests.filter((r) => r.path === '/second-key').map(bodyOf);
    expect(bodies.map((b) => b.event).sort()).toEqual(['job.finished', 'task.finished', 'task.finished']);
    for (const b of bodies) expect(b.job?.id ?? b.task?.job_id).toBe(bySecond.id);
    expect(bodies.find((b) => b.event === 'task.finished')!.task).toMatchObject({ status: 'finished', job_id: bySecond.id });
    for (const r of assigned) expect(cc.webhooks.verify(r.body.toString('utf8'), signatureOf(r), keyHook.signing_secret)).toBe(true);
    await api('DELETE', `webhooks/${keyHook.id}`);
    await api('DELETE', `webhooks/${everyKey.id}`);
  });
});
