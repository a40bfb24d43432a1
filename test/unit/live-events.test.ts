/**
 * Live events (lib/file-api/events): the socket.io framing the SDK's client speaks, the channel names, who may
 * subscribe to what, the open packet's retries, and what the publisher sends (and does not do when
 * nobody listens).
 */
import { describe, expect, it, vi } from 'vitest';
import type { Credential } from '#lib/http/credentials.js';
import { hashKey } from '#lib/access/auth/keys.js';
import { parseChannel, taskChannels } from '#lib/file-api/events/channels.js';
import type { SubscriptionRecord } from '#lib/file-api/events/connections.js';
import { connectedFrame, eventFrame, MAX_FRAME_BYTES, openFrame, parseClientFrame } from '#lib/file-api/events/protocol.js';
import { EventPublisher } from '#lib/file-api/events/publisher.js';
import { hello, onFrame } from '#lib/file-api/events/socket-server.js';
import { authorizeSubscription } from '#lib/file-api/events/subscribe.js';
import { createLogger } from '#lib/kernel/log.js';
import type { JobRecord, TaskRecord } from '#lib/file-api/records/model.js';

const log = createLogger({}, { level: 'silent' } as never);

describe('socket.io framing', () => {
  it('reads the frames the socket.io client sends', () => {
    expect(parseClientFrame('40')).toEqual({ kind: 'connect', namespace: '/' });
    expect(parseClientFrame('40{"token":"x"}')).toEqual({ kind: 'connect', namespace: '/' });
    expect(parseClientFrame('40/admin,')).toEqual({ kind: 'connect', namespace: '/admin' });
    expect(parseClientFrame('3')).toEqual({ kind: 'pong' });
    expect(parseClientFrame('42["subscribe",{"channel":"private-job.a"}]')).toEqual({ kind: 'event', namespace: '/', name: 'subscribe', args: [{ channel: 'private-job.a' }] });
    // With an acknowledgement id, and on another namespace.
    expect(parseClientFrame('4212["unsubscribe",{"channel":"c"}]')).toMatchObject({ kind: 'event', name: 'unsubscribe', args: [{ channel: 'c' }] });
    expect(parseClientFrame('42/admin,["subscribe",{}]')).toMatchObject({ kind: 'event', namespace: '/admin', name: 'subscribe' });
  });

  it('ignores what it has no use for, malformed frames included', () => {
    for (const frame of ['', '1', '6', '41', '43[]', '451-["x",{"_placeholder":true,"num":0}]', '42{"not":"an array"}', '42[1,2]', '42["subscribe"', 'hello']) {
      expect(parseClientFrame(frame), frame).toEqual({ kind: 'ignored' });
    }
  });

  it('writes the open packet with the ping settings and the gateway frame limit, and events as arrays', () => {
    const open = openFrame('sid1', { pingInterval: 60_000, pingTimeout: 60_000, maxPayload: MAX_FRAME_BYTES });
    expect(open[0]).toBe('0');
    expect(JSON.parse(open.slice(1))).toEqual({ sid: 'sid1', upgrades: [], pingInterval: 60_000, pingTimeout: 60_000, maxPayload: 131072 });
    expect(connectedFrame('s')).toBe('40{"sid":"s"}');
    expect(eventFrame('subscription_error', 'private-job.x', 403)).toBe('42["subscription_error","private-job.x",403]');
  });
});

describe('channels', () => {
  it('knows the five channel kinds and nothing else', () => {
    expect(parseChannel('private-job.3f2a-b')).toEqual({ kind: 'job', jobId: '3f2a-b' });
    expect(parseChannel('private-job.3f2a.tasks')).toEqual({ kind: 'job-tasks', jobId: '3f2a' });
    expect(parseChannel('private-task.t1')).toEqual({ kind: 'task', taskId: 't1' });
    expect(parseChannel('private-user.12.jobs')).toEqual({ kind: 'user-jobs', userId: 12 });
    expect(parseChannel('private-user.12.tasks')).toEqual({ kind: 'user-tasks', userId: 12 });
    for (const name of ['private-job.', 'private-job.a.b', 'private-user.me.jobs', 'private-user.1.webhooks', 'job.a', 'private-task.a/../b', 'presence-job.a']) {
      expect(parseChannel(name), name).toBeUndefined();
    }
  });

  it("sends a task's events to its own channel, its job's tasks channel and its user's tasks channel", () => {
    expect(taskChannels({ id: 't', userId: 4, jobId: 'j' })).toEqual(['private-task.t', 'private-job.j.tasks', 'private-user.4.tasks']);
    expect(taskChannels({ id: 't', userId: 4, jobId: null })).toEqual(['private-task.t', 'private-user.4.tasks']);
  });
});

const job = (over: Partial<JobRecord> = {}) =>
  ({ pk: 'job#j1', sk: 'job', id: 'j1', userId: 1, tag: null, status: 'processing', createdAt: '2026-01-01T00:00:00Z', startedAt: null, endedAt: null, expiresAt: 0, taskIds: ['t1'], webhookUrl: null, ...over }) as JobRecord;
const task = (over: Partial<TaskRecord> = {}) =>
  ({
    pk: 'task#t1', sk: 'task', id: 't1', userId: 1, jobId: 'j1', name: 'raw', operation: 'import/raw', step: 'import', status: 'finished', message: null, code: null, percent: 100,
    credits: 0, engine: null, engineVersion: null, payload: {}, result: null, createdAt: '2026-01-01T00:00:00Z', startedAt: null, endedAt: null, expiresAt: 0, dependsOn: [],
    ignoreError: false, timeoutSeconds: 60, retryOf: null, copyOf: null, ...over,
  }) as TaskRecord;

describe('who may subscribe', () => {
  const keys: Record<string, Credential> = {
    'key-1': { userId: 1, keyId: 'k1', scopes: ['task.read'], kind: 'api-key', sandbox: false },
    'key-1-sandbox': { userId: 1, keyId: 'k1s', scopes: ['task.read'], kind: 'api-key', sandbox: true },
    'key-1-webhooks': { userId: 1, keyId: 'k1w', scopes: ['webhook.read'], kind: 'api-key', sandbox: false },
    'key-2': { userId: 2, keyId: 'k2', scopes: ['task.read', 'task.write'], kind: 'oauth', sandbox: false },
  };
  const deps = {
    credentials: { verify: async (bearer: string) => keys[bearer] },
    tasks: { getJob: async (id: string) => (id === 'j1' ? job() : undefined), getTask: async (id: string) => (id === 't1' ? task() : undefined) },
  };
  const ask = (channel: string, key?: string, header = 'Authorization') =>
    authorizeSubscription({ channel, auth: key === undefined ? undefined : { headers: { [header]: `Bearer ${key}` } } }, deps);

  it("lets the owner's key with task.read subscribe to each channel of their own", async () => {
    for (const channel of ['private-job.j1', 'private-job.j1.tasks', 'private-task.t1', 'private-user.1.jobs', 'private-user.1.tasks']) {
      expect(await ask(channel, 'key-1'), channel).toEqual({ ok: true, channel, owner: { userId: 1, sandbox: false }, credential: { kind: 'api-key', hash: hashKey('key-1'), keyId: 'k1' } });
    }
    expect((await ask('private-task.t1', 'key-1', 'authorization')).ok).toBe(true);
  });

  it('refuses without a valid credential with 401', async () => {
    expect(await ask('private-job.j1')).toEqual({ ok: false, channel: 'private-job.j1', status: 401 });
    expect(await ask('private-job.j1', 'wrong')).toEqual({ ok: false, channel: 'private-job.j1', status: 401 });
    expect(await authorizeSubscription('private-job.j1', deps)).toEqual({ ok: false, channel: '', status: 401 });
  });

  it("refuses another user's channels, unknown records and channels, the other sandbox mode and a key without task.read with 403", async () => {
    for (const [channel, key] of [
      ['private-job.j1', 'key-2'],
      ['private-task.t1', 'key-2'],
      ['private-user.1.tasks', 'key-2'],
      ['private-job.nope', 'key-1'],
      ['private-user.1.secrets', 'key-1'],
      ['private-job.j1', 'key-1-sandbox'],
      ['private-user.1.jobs', 'key-1-webhooks'],
    ] as const) {
      expect(await ask(channel, key), `${channel} with ${key}`).toEqual({ ok: false, channel, status: 403 });
    }
  });

  it('answers a refused subscription with subscription_error (channel, status) and records nothing', async () => {
    const posted: string[] = [];
    const connections = { subscribe: vi.fn(), unsubscribe: vi.fn() };
    await onFrame('c1', '42["subscribe",{"channel":"private-user.1.jobs","auth":{"headers":{"Authorization":"Bearer key-2"}}}]', {
      ...deps,
      connections: connections as never,
      post: async (_id, frame) => (posted.push(frame), true),
      log,
    });
    expect(posted).toEqual(['42["subscription_error","private-user.1.jobs",403]']);
    expect(connections.subscribe).not.toHaveBeenCalled();
  });
});

describe('the open packet', () => {
  it('is retried while the connection is not open yet, then given up', async () => {
    const waits: number[] = [];
    let tries = 0;
    const sent = await hello('c1', { pingSeconds: 60, pingTimeoutSeconds: 60 }, { post: async () => ++tries === 3, log, sleep: async (ms) => void waits.push(ms) });
    expect(sent).toBe(true);
    expect(waits).toEqual([50, 100]);
    const never = await hello('c1', { pingSeconds: 60, pingTimeoutSeconds: 60 }, { post: async () => false, log, sleep: async () => {} });
    expect(never).toBe(false);
  });
});

describe('publishing', () => {
  const credential = { kind: 'api-key' as const, hash: hashKey('key-1') };
  const sub = (channel: string, connectionId: string) => ({ pk: 'p', sk: `${channel}|${connectionId}`, channel, connectionId, expiresAt: 0, credential }) as SubscriptionRecord;
  function publisher(subs: SubscriptionRecord[], post: (id: string, frame: string) => Promise<boolean> = async () => true) {
    const deps = {
      connections: { subscribersOf: vi.fn(async () => subs), close: vi.fn(async () => {}), drop: vi.fn(async () => []) },
      post: vi.fn(post),
      disconnect: vi.fn(async () => {}),
      credentials: { verifyRef: vi.fn(async () => ({ userId: 1, keyId: 'k1', scopes: ['task.read'], kind: 'api-key' as const, sandbox: false })) },
      tasks: { getJob: vi.fn(async () => job()), getTasks: vi.fn(async () => [task()]) },
      links: { for: vi.fn(async () => ({ fileUrl: () => undefined, form: () => undefined })) },
      log,
      publicBaseUrl: 'https://api.example.com',
    };
    return { deps, events: new EventPublisher(deps) };
  }

  it('costs one query and nothing else when nobody listens to the channels of the event', async () => {
    const { deps, events } = publisher([sub('private-job.other', 'c1')]);
    await events.jobEnded(job({ status: 'finished' }));
    await events.taskUpdated(task());
    expect(deps.connections.subscribersOf).toHaveBeenCalledTimes(2);
    expect(deps.tasks.getTasks).not.toHaveBeenCalled();
    expect(deps.links.for).not.toHaveBeenCalled();
    expect(deps.post).not.toHaveBeenCalled();
    expect(deps.credentials.verifyRef).not.toHaveBeenCalled();
  });

  it('holds an event back from a subscription whose credential could not be checked, and cuts nothing', async () => {
    const { deps, events } = publisher([sub('private-job.j1', 'c1')]);
    deps.credentials.verifyRef.mockRejectedValueOnce(new Error('table unreachable')).mockRejectedValueOnce(new Error('table unreachable'));
    await events.jobUpdated(job());
    expect(deps.post).not.toHaveBeenCalled();
    expect(deps.connections.drop).not.toHaveBeenCalled();
    // The failure is not kept: the next event checks again and is sent.
    await events.jobUpdated(job());
    expect(deps.post).toHaveBeenCalledTimes(1);
  });

  it("sends each subscribed channel the event with the API's view of the task", async () => {
    const { deps, events } = publisher([sub('private-user.1.tasks', 'c1'), sub('private-task.t1', 'c2'), sub('private-job.j1', 'c3')]);
    await events.taskEnded(task({ status: 'error', code: 'INVALID_DATA', message: 'bad' }));
    const frames = deps.post.mock.calls.map(([id, frame]) => [id, JSON.parse(frame.slice(2))]);
    expect(frames.map(([id, [event, channel]]) => [id, event, channel])).toEqual([
      ['c1', 'task.failed', 'private-user.1.tasks'],
      ['c2', 'task.failed', 'private-task.t1'],
    ]);
    expect(frames[0]![1][2].task).toMatchObject({ id: 't1', status: 'error', code: 'INVALID_DATA', job_id: 'j1', links: { self: 'https://api.example.com/v2/tasks/t1' } });
    expect(deps.connections.subscribersOf).toHaveBeenCalledWith(1, false);
  });

  it('sends a job too large for a gateway frame as a small object with its link', async () => {
    const big = task({ result: { files: [{ filename: 'x'.repeat(MAX_FRAME_BYTES), size: 1 }] } as never });
    const { deps, events } = publisher([sub('private-job.j1', 'c1')]);
    deps.tasks.getTasks.mockResolvedValue([big]);
    await events.jobEnded(job({ status: 'finished', endedAt: '2026-01-01T00:01:00Z' }));
    const frame = deps.post.mock.calls[0]![1];
    expect(Buffer.byteLength(frame)).toBeLessThanOrEqual(MAX_FRAME_BYTES);
    expect(JSON.parse(frame.slice(2))).toEqual([
      'job.finished',
      'private-job.j1',
      { job: { id: 'j1', status: 'finished', created_at: '2026-01-01T00:00:00+00:00', started_at: null, ended_at: '2026-01-01T00:01:00+00:00', links: { self: 'https://api.example.com/v2/jobs/j1' } } },
    ]);
  });

  it('forgets connections the gateway says are gone and never throws', async () => {
    const { deps, events } = publisher([sub('private-job.j1', 'gone'), sub('private-job.j1', 'broken')], async (id) => {
      if (id === 'broken') throw new Error('network');
      return false;
    });
    await expect(events.jobUpdated(job())).resolves.toBeUndefined();
    expect(deps.connections.close).toHaveBeenCalledWith('gone');
    expect(deps.connections.close).not.toHaveBeenCalledWith('broken');
    deps.connections.subscribersOf.mockRejectedValue(new Error('table unreachable'));
    await expect(events.jobUpdated(job())).resolves.toBeUndefined();
  });
});
