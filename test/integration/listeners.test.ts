/**
 * Who listens to a user's events, known without a query per event (lib/file-api/records/listeners.ts,
 * lib/file-api/tasks/event-batch.ts): the events of a piece of work go out after one read of the user's
 * mark, and an endpoint or subscription stored before an event is never missed. Wired as
 * lib/wiring/tasks.ts wires them, on dynalite, with the recording queue and a socket poster that keeps frames.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '#lib/kernel/log.js';
import type { ItemKey } from '#lib/adapters/state/port.js';
import { SocketConnections } from '#lib/file-api/events/connections.js';
import { EventPublisher } from '#lib/file-api/events/publisher.js';
import { INLINE_IMPLEMENTATIONS } from '#lib/file-api/operations/inline-runs.js';
import { Listeners, type Presence } from '#lib/file-api/records/listeners.js';
import { isSandbox, type JobRecord, type TaskRecord } from '#lib/file-api/records/model.js';
import { TaskStore } from '#lib/file-api/records/store.js';
import { EventBatches } from '#lib/file-api/tasks/event-batch.js';
import { inlineRuns } from '#lib/file-api/tasks/inline.js';
import { planJob } from '#lib/file-api/tasks/plan.js';
import { WebhookNotifier } from '#lib/file-api/webhooks/events.js';
import { WebhookStore } from '#lib/file-api/webhooks/store.js';
import { testLinks } from '../support/links.js';
import { observedState } from '../support/observed-state.js';
import { RecordingQueue } from '../support/recording-queue.js';
import { useTaskBackends, wireTasks } from '../support/task-harness.js';

const { state, files } = useTaskBackends();
const log = createLogger({}, { level: 'silent' });
let users = 500;

/** The task services with webhooks and socket events behind one look-up per held piece of work; calls counted. */
function setup() {
  const calls: Array<{ method: string; pk: string }> = [];
  const counted = observedState(state.store, (method, args) => {
    if (method === 'query') calls.push({ method, pk: String(args[0]) });
    if (method === 'get') calls.push({ method, pk: (args[0] as ItemKey).pk });
  });
  const queue = new RecordingQueue();
  const connections = new SocketConnections(counted);
  const frames: string[] = [];
  const listeners: Listeners = new Listeners(counted, async (userId, sandbox) => ({
    webhooks: (await hooks.all(userId, sandbox)).length,
    sockets: (await connections.subscribersOf(userId, sandbox)).length > 0,
  }));
  const hooks = new WebhookStore(counted, listeners);
  const events = new EventBatches({ presence: (u, s) => listeners.presence(u, s), log });
  const views = { tasks: new TaskStore(counted), links: testLinks(files.files), log, publicBaseUrl: 'http://public.test' };
  const notifier = new WebhookNotifier({ ...views, webhooks: hooks, queue });
  const publisher = new EventPublisher({
    ...views,
    connections,
    post: async (_id, frame) => (frames.push(frame), true),
    disconnect: async () => {},
    credentials: { verifyRef: async () => ({ userId: users - 1, keyId: 'k', scopes: ['task.read'], kind: 'api-key' as const, sandbox: false }) as never },
  });
  const notify = (owner: JobRecord | TaskRecord, send: (present: Presence) => Promise<unknown>) => events.raise({ userId: owner.userId, sandbox: isSandbox(owner) }, async (p) => void (await send(p)));
  const wiring = wireTasks(
    { state, files },
    {
      state: counted,
      log,
      scheduler: {
        onTaskEnded: (t) => notify(t, (p) => Promise.all([notifier.taskEnded(t, p), publisher.taskEnded(t, p)])),
        onJobEnded: (j) => notify(j, (p) => Promise.all([notifier.jobEnded(j, p), publisher.jobEnded(j, p)])),
        onJobUpdated: (j) => notify(j, (p) => publisher.jobUpdated(j, p)),
      },
      service: { onJobCreated: (j, t) => notify(j, (p) => Promise.all([notifier.jobCreated(j, t, p), publisher.jobCreated(j, t, p)])) },
    },
  );
  const runDeps = wiring.deps(INLINE_IMPLEMENTATIONS, { hold: (work) => events.hold(work), onTaskUpdated: (t) => notify(t, (p) => publisher.taskUpdated(t, p)) });
  const inline = inlineRuns(runDeps);
  /** A no-engine job created and run as POST /v2/jobs does. */
  const job = (userId: number) =>
    events.hold(() =>
      wiring.service.createJob(userId, planJob({ tasks: { raw: { operation: 'import/raw', file: 'x', filename: 'x.txt' }, out: { operation: 'export/url', input: 'raw' } } }), undefined, {}, inline),
    );
  return { calls, queue, frames, hooks, connections, listeners, job, wiring };
}

describe('listeners of a user', () => {
  it('costs one read of the mark and no query for all the events of a job nobody listens to', async () => {
    const { calls, queue, frames, job } = setup();
    const userId = users++;
    await job(userId);
    calls.length = 0;
    const { job: created } = await job(userId);
    expect(calls.filter((c) => c.method === 'query')).toEqual([]);
    expect(calls.filter((c) => c.pk.startsWith('listeners#'))).toHaveLength(1);
    expect(queue.sent.filter((m) => m.queue === 'webhooks')).toEqual([]);
    expect(frames).toEqual([]);
    expect(created.id).toBeTruthy();
  });

  it('sends every event to an endpoint stored after a job nobody heard, before the next', async () => {
    const { queue, hooks, job } = setup();
    const userId = users++;
    await job(userId);
    await hooks.create({ userId, url: 'https://hooks.test/a', events: ['job.created', 'task.finished', 'job.finished'], keyIds: [] });
    const { job: created } = await job(userId);
    const sent = queue.sent.filter((m) => m.queue === 'webhooks').map((m) => m.message.event as string);
    expect(sent).toEqual(['job.created', 'task.finished', 'task.finished', 'job.finished']);
    expect(queue.sent.find((m) => m.message.event === 'job.finished')!.message.body).toContain(created.id);
  });

  it('sends the events to a socket subscription stored after a job nobody heard, before the next', async () => {
    const { frames, connections, listeners, job } = setup();
    const userId = users++;
    await job(userId);
    await connections.open('c-listen');
    // As socket-server.ts subscribes: the mark first, then the subscription.
    await listeners.socketsOpen({ userId, sandbox: false });
    await connections.subscribe('c-listen', { userId, sandbox: false }, `private-user.${userId}.jobs`, { kind: 'api-key', hash: 'a'.repeat(64), keyId: 'k' });
    await job(userId);
    expect(frames.map((f) => JSON.parse(f.slice(2))[0])).toEqual(['job.created', 'job.updated', 'job.finished']);
  });

  it('finds endpoints stored before the mark was kept, counts from them, and stops looking once they are deleted', async () => {
    const { calls, queue, hooks, job } = setup();
    const userId = users++;
    // Stored without the mark (as before it existed).
    const old = await new WebhookStore(state.store).create({ userId, url: 'https://hooks.test/old', events: ['job.finished'], keyIds: [] });
    await job(userId);
    expect(queue.sent.filter((m) => m.queue === 'webhooks').map((m) => m.message.webhookId)).toEqual([old.id]);
    const added = await hooks.create({ userId, url: 'https://hooks.test/new', events: ['job.finished'], keyIds: [] });
    await hooks.delete(old.id);
    queue.sent.length = 0;
    await job(userId);
    expect(queue.sent.filter((m) => m.queue === 'webhooks').map((m) => m.message.webhookId)).toEqual([added.id]);
    await hooks.delete(added.id);
    calls.length = 0;
    queue.sent.length = 0;
    await job(userId);
    expect(queue.sent.filter((m) => m.queue === 'webhooks')).toEqual([]);
    expect(calls.filter((c) => c.method === 'query')).toEqual([]);
  });
});
