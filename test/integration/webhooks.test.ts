/**
 * Webhook notification and delivery in-process: the state store is dynalite, the endpoints a real
 * local HTTP receiver, the queue a recording stand-in (retries show up as delayed messages).
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '#lib/kernel/log.js';
import { planJob } from '#lib/file-api/tasks/plan.js';
import { Scheduler } from '#lib/file-api/tasks/scheduler.js';
import { TaskService } from '#lib/file-api/tasks/service.js';
import { TaskStore } from '#lib/file-api/records/store.js';
import { deliverWebhook, type DeliveryDeps } from '#lib/file-api/webhooks/deliver.js';
import { WebhookNotifier, type WebhookMessage } from '#lib/file-api/webhooks/events.js';
import { signBody } from '#lib/file-api/webhooks/sign.js';
import { WebhookStore } from '#lib/file-api/webhooks/store.js';
import { startStateBackend } from '../support/dynalite.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startFilesBackend } from '../support/s3rver.js';
import { RecordingQueue } from '../support/recording-queue.js';
import { testLinks } from '../support/links.js';


const log = createLogger({}, { level: 'silent' });
let state: Awaited<ReturnType<typeof startStateBackend>>;
let files: Awaited<ReturnType<typeof startFilesBackend>>;
let receiver: Receiver;
let webhooks: WebhookStore;
let queue: RecordingQueue;
let deps: DeliveryDeps;

beforeAll(async () => {
  [state, files, receiver] = await Promise.all([startStateBackend(), startFilesBackend(), startReceiver()]);
  webhooks = new WebhookStore(state.store);
});
afterAll(async () => {
  await Promise.all([state?.close(), files?.close(), receiver?.close()]);
});
beforeEach(() => {
  queue = new RecordingQueue();
  deps = { webhooks, queue, log, policy: { allowLoopback: true }, retryDelaysSeconds: [5, 20, 60], timeoutMs: 5000 };
});

let userSeq = 100;
const newUser = () => userSeq++;

describe('notification', () => {
  it('fans job events out to the subscribed endpoints of the key that created the job, and to webhook_url', async () => {
    const userId = newUser();
    const store = new TaskStore(state.store);
    const notifier = new WebhookNotifier({ webhooks, tasks: store, queue, links: testLinks(files.files), log, publicBaseUrl: 'http://public.test' });
    const scheduler = new Scheduler({ store, queue, log, onJobEnded: (j) => notifier.jobEnded(j), onTaskEnded: (t) => notifier.taskEnded(t) });
    const service = new TaskService({
      store,
      scheduler,
      files: files.files,
      log,
      onJobCreated: (j, t) => notifier.jobCreated(j, t),
      onTaskCreated: (t) => notifier.taskCreated(t),
    });
    const all = await webhooks.create({ userId, url: `${receiver.url}/all`, events: ['job.created', 'job.failed', 'task.created', 'task.failed'], keyIds: [] });
    const keyA = await webhooks.create({ userId, url: `${receiver.url}/a`, events: ['job.failed'], keyIds: ['aaaaaaaaaaaaaaaa'] });
    await webhooks.create({ userId, url: `${receiver.url}/b`, events: ['job.failed'], keyIds: ['bbbbbbbbbbbbbbbb'] });
    await webhooks.create({ userId: newUser(), url: `${receiver.url}/other-user`, events: ['job.failed', 'job.created'], keyIds: [] });

    const { job, tasks } = await service.createJob(
      userId,
      // The receiver is on loopback: the same test switch as the delivery's policy.
      planJob({ tasks: { up: { operation: 'import/upload' } }, webhook_url: `${receiver.url}/dynamic` }, { allowLoopback: true }),
      undefined,
      { keyId: 'aaaaaaaaaaaaaaaa', baseUrl: 'http://api.test' },
    );
    const created = queue.take('webhooks').map((s) => s.message as WebhookMessage);
    expect(created.map((m) => [m.event, m.webhookId])).toEqual([
      ['job.created', all.id],
      ['task.created', all.id],
    ]);
    expect(JSON.parse(created[0]!.body!)).toMatchObject({ event: 'job.created', job: { id: job.id, links: { self: `http://api.test/v2/jobs/${job.id}` } } });
    expect(JSON.parse(created[1]!.body!)).toMatchObject({ event: 'task.created', task: { id: tasks[0]!.id, name: 'up' } });
    // The waiting upload task's form is signed for the message, as for any answer.
    expect(JSON.parse(created[1]!.body!).task.result.form.parameters).toMatchObject({ key: `uploads/${tasks[0]!.id}/file` });

    await service.cancel(tasks[0]!);
    const ended = queue.take('webhooks').map((s) => s.message as WebhookMessage);
    expect(ended.map((m) => [m.event, m.webhookId ?? m.url]).sort()).toEqual(
      [
        ['task.failed', all.id],
        ['job.failed', all.id],
        ['job.failed', keyA.id],
        ['job.failed', `${receiver.url}/dynamic`],
      ].sort(),
    );
    const failedBody = JSON.parse(ended.find((m) => m.event === 'job.failed')!.body!);
    expect(failedBody.job).toMatchObject({ id: job.id, status: 'error', tasks: [{ id: tasks[0]!.id, code: 'CANCELLED' }] });
    // One body per event, shared by every endpoint: the same bytes are signed for each.
    expect(new Set(ended.filter((m) => m.event === 'job.failed').map((m) => m.body)).size).toBe(1);
  });

  it('sends a body too large for a queue message through the files bucket, and delivers the same bytes', async () => {
    const userId = newUser();
    const store = new TaskStore(state.store);
    const notifier = new WebhookNotifier({ webhooks, tasks: store, queue, links: testLinks(files.files), log, files: files.files });
    const service = new TaskService({ store, scheduler: new Scheduler({ store, queue, log }), files: files.files, log, onJobCreated: (j, t) => notifier.jobCreated(j, t) });
    const hook = await webhooks.create({ userId, url: `${receiver.url}/big`, events: ['job.created'], keyIds: [] });
    // 200 tasks with long names: the job body is beyond what one SQS message holds.
    const tasks = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`${'t'.repeat(800)}${i}`, { operation: 'import/upload' }]));
    await service.createJob(userId, planJob({ tasks }));
    const [sent] = queue.take('webhooks').filter((s) => (s.message as WebhookMessage).event === 'job.created').map((s) => s.message as WebhookMessage);
    expect(sent!.body).toBeUndefined();
    expect(sent!.bodyKey).toMatch(/^webhooks\/[0-9a-f]{64}\.json$/);
    expect(Buffer.byteLength(JSON.stringify(sent))).toBeLessThan(1024);

    expect(await deliverWebhook({ ...sent!, webhookId: hook.id }, { ...deps, files: files.files })).toBe('delivered');
    const [req] = receiver.requests.filter((r) => r.path === '/big');
    expect(req!.body.length).toBeGreaterThan(128 * 1024);
    expect(JSON.parse(req!.body.toString())).toMatchObject({ event: 'job.created', job: { tasks: expect.any(Array) } });
    expect(req!.headers['cloudconvert-signature']).toBe(signBody(req!.body.toString(), hook.signingSecret));
  });

  it('queues nothing when nothing subscribes', async () => {
    const userId = newUser();
    const store = new TaskStore(state.store);
    const notifier = new WebhookNotifier({ webhooks, tasks: store, queue, links: testLinks(files.files), log });
    const service = new TaskService({ store, scheduler: new Scheduler({ store, queue, log }), files: files.files, log, onJobCreated: (j, t) => notifier.jobCreated(j, t) });
    await service.createJob(userId, planJob({ tasks: { up: { operation: 'import/upload' } } }));
    expect(queue.take('webhooks')).toEqual([]);
  });
});

describe('delivery', () => {
  const message = (over: Partial<WebhookMessage>): WebhookMessage => ({
    userId: 1,
    event: 'job.finished',
    body: JSON.stringify({ event: 'job.finished', job: { id: 'j' } }),
    attempt: 1,
    ...over,
  });

  it('POSTs the body signed with the endpoint secret; a success clears failing', async () => {
    const hook = await webhooks.create({ userId: 1, url: `${receiver.url}/ok`, events: ['job.finished'], keyIds: [] });
    await webhooks.mark(hook.id, { failing: true });
    const m = message({ webhookId: hook.id });
    expect(await deliverWebhook(m, deps)).toBe('delivered');
    const [req] = receiver.requests.filter((r) => r.path === '/ok');
    expect(req).toMatchObject({ method: 'POST', headers: { 'content-type': 'application/json', 'cloudconvert-signature': signBody(m.body!, hook.signingSecret) } });
    expect(req!.body.toString()).toBe(m.body);
    expect((await webhooks.get(hook.id))?.failing).toBe(false);
  });

  it('retries a 5xx with the next back-off delay, then marks the endpoint failing', async () => {
    receiver.script('/down', [503]);
    const hook = await webhooks.create({ userId: 1, url: `${receiver.url}/down`, events: ['job.finished'], keyIds: [] });
    let m = message({ webhookId: hook.id });
    const delays: Array<number | undefined> = [];
    for (;;) {
      const outcome = await deliverWebhook(m, deps);
      if (outcome !== 'retrying') {
        expect(outcome).toBe('failed');
        break;
      }
      const [next] = queue.take('webhooks');
      delays.push(next!.delaySeconds);
      m = next!.message;
    }
    expect(delays).toEqual([5, 20, 60]);
    expect(m.attempt).toBe(4);
    expect(receiver.requests.filter((r) => r.path === '/down')).toHaveLength(4);
    expect(await webhooks.get(hook.id)).toMatchObject({ failing: true, disabled: false });
  });

  it('retries network errors, but not refused addresses or other answers', async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const { port } = s.address() as { port: number };
        s.close(() => resolve(port));
      });
    });
    expect(await deliverWebhook(message({ url: `http://127.0.0.1:${closed}/hook` }), deps)).toBe('retrying');
    expect(queue.take('webhooks')[0]).toMatchObject({ delaySeconds: 5, message: { attempt: 2 } });

    const internal = await webhooks.create({ userId: 1, url: 'http://127.0.0.1:9/never', events: ['job.finished'], keyIds: [] });
    expect(await deliverWebhook(message({ webhookId: internal.id }), { ...deps, policy: {} })).toBe('failed');
    expect(queue.take('webhooks')).toEqual([]);

    receiver.script('/missing', [404]);
    const missing = await webhooks.create({ userId: 1, url: `${receiver.url}/missing`, events: ['job.finished'], keyIds: [] });
    expect(await deliverWebhook(message({ webhookId: missing.id }), deps)).toBe('failed');
    expect((await webhooks.get(missing.id))?.failing).toBe(true);
  });

  it('disables an endpoint that answers 410 and skips disabled and deleted ones', async () => {
    receiver.script('/gone', [410]);
    const hook = await webhooks.create({ userId: 1, url: `${receiver.url}/gone`, events: ['job.finished'], keyIds: [] });
    expect(await deliverWebhook(message({ webhookId: hook.id }), deps)).toBe('disabled');
    expect((await webhooks.get(hook.id))?.disabled).toBe(true);
    expect(await deliverWebhook(message({ webhookId: hook.id }), deps)).toBe('skipped');
    await webhooks.delete(hook.id);
    expect(await deliverWebhook(message({ webhookId: hook.id }), deps)).toBe('skipped');
    expect(receiver.requests.filter((r) => r.path === '/gone')).toHaveLength(1);
  });

  it("signs a job's webhook_url delivery with the user's account secret", async () => {
    const m = message({ userId: 77, url: `${receiver.url}/dynamic-77` });
    expect(await deliverWebhook(m, deps)).toBe('delivered');
    const secret = await webhooks.accountSecret(77);
    expect(await webhooks.accountSecret(77)).toBe(secret);
    const [req] = receiver.requests.filter((r) => r.path === '/dynamic-77');
    expect(req?.headers['cloudconvert-signature']).toBe(signBody(m.body!, secret));
  });
});
