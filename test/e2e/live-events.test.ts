/**
 * Live job and task events over socket.io, through the official SDK and socket.io's own client, against
 * the WebSocket API serverless-offline runs from serverless.yml (functions/events): the SDK's own
 * `subscribeEvent` flow with its `socket` pointed here, a user channel that hears every task of a job
 * created → updated → finished, another user's key that gets the refusal and nothing else, and a
 * connection kept open by the scheduled pings (set to every 2 s here; clients give up after 2 + 10 s,
 * which a loaded machine's late ping does not reach).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { io, type Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '#lib/access/auth/accounts.js';
import { ApiKeys } from '#lib/access/auth/keys.js';
import { SCOPES } from '#lib/access/auth/scopes.js';
import { SocketConnections } from '#lib/file-api/events/connections.js';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { e2eOutput } from '../support/platform-output.js';
import { platformState } from '../support/platform-state.js';
import { listen as listenTo, recorded as recordedIn, subscribe } from '../support/sockets.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'live-events-e2e-'));
let platform: Emulator;
let connections: SocketConnections;
let otherKey: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  platform = await startEmulator({
    dataDir,
    output: e2eOutput,
    // Info lines: what a failure prints (test/support/print-platform-output.ts) shows each event sent.
    env: { SOCKET_PING_SECONDS: '2', SOCKET_PING_TIMEOUT_SECONDS: '10' },
  });
  const state = platformState(platform);
  connections = new SocketConnections(state);
  const accounts = new Accounts(state, { username: 'local', email: 'local@example.com', credits: 'unlimited' });
  const { user } = await accounts.create({ email: 'other@example.com', username: 'Other', password: 'other-password-123456' });
  otherKey = (await new ApiKeys(state).create({ scopes: [...SCOPES], name: 'other user', userId: user.id })).key;
});

afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

afterAll(async () => {
  await platform?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A socket.io client as the SDK makes one, recording every event it hears. */
const listen = () => listenTo(platform.socketUrl, sockets);
const recorded = (userId: number, channel: string, count = 1) => recordedIn(connections, userId, channel, count);

type EventData = { job?: { id: string; status: string; tasks?: unknown[] }; task?: { id: string; status: string; name?: string; percent: number } };

describe('live events over socket.io', () => {
  it("passes the SDK's own subscribeEvent test with its socket pointed here", async () => {
    const cloudConvert = cloudConvertClient(platform.apiKey, platform.baseUrl);
    // The one change to the SDK's flow: its socket host, which it hard-codes.
    (cloudConvert as unknown as { socket: Socket }).socket = io(platform.socketUrl, { transports: ['websocket'] });
    const job = await cloudConvert.jobs.create({
      tag: 'integration-test-socket',
      tasks: {
        'import-it': { operation: 'import/upload' },
        'export-it': { input: 'import-it', operation: 'export/url' },
      },
    });
    const uploadTask = job.tasks.filter((task) => task.name === 'import-it')[0]!;
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    setTimeout(() => {
      // As the SDK's test, a second later; and not before the subscription is recorded (no acknowledgement).
      void recorded(1, `private-job.${job.id}`).then(() => cloudConvert.tasks.upload(uploadTask, Readable.from([png]), 'input.png', png.length));
    }, 1000);
    const event = await new Promise<EventData>((resolve) => {
      void cloudConvert.jobs.subscribeEvent(job.id, 'finished', resolve as never);
    });
    expect(event.job!.status).toBe('finished');
    expect(event.job!.id).toBe(job.id);
    expect(event.job!.tasks).toHaveLength(2);
    await cloudConvert.jobs.delete(job.id);
    cloudConvert.closeSocket();
  }, 60_000);

  it('tells a private-user.<id>.tasks subscriber of every task of a job: created, updated (processing), then finished', async () => {
    const client = listen();
    subscribe(client.socket, 'private-user.1.tasks', platform.apiKey);
    subscribe(client.socket, 'private-user.1.jobs', platform.apiKey);
    await recorded(1, 'private-user.1.tasks');
    await recorded(1, 'private-user.1.jobs');
    const cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
    const job = await cc.jobs.create({
      tasks: {
        raw: { operation: 'import/raw', file: 'heard live', filename: 'live.txt' },
        url: { operation: 'export/url', input: 'raw' },
      },
    } as never);
    await client.next((h) => h.event === 'job.finished' && (h.args[1] as EventData).job?.id === job.id);
    for (const task of job.tasks) {
      const events = client.heard
        .filter((h) => h.args[0] === 'private-user.1.tasks' && (h.args[1] as EventData).task?.id === task.id)
        .map((h) => `${h.event}:${(h.args[1] as EventData).task!.status}`);
      expect(events[0], task.name).toBe('task.created:waiting');
      expect(events, task.name).toContain('task.updated:processing');
      expect(events.at(-1), task.name).toBe('task.finished:finished');
      expect(events.indexOf('task.updated:processing')).toBeLessThan(events.length - 1);
    }
    const jobEvents = client.heard.filter((h) => (h.args[1] as EventData).job?.id === job.id).map((h) => h.event);
    expect(jobEvents).toEqual(['job.created', 'job.updated', 'job.finished']);
    const finished = client.heard.find((h) => h.event === 'task.finished' && (h.args[1] as EventData).task?.name === 'url')!;
    expect((finished.args[1] as { task: { result: { files: Array<{ url: string }> } } }).task.result.files[0]!.url).toMatch(/^http:\/\/localhost:\d+\/v2\/files\//);
  }, 60_000);

  it("answers another user's subscription to someone else's channels with subscription_error only, and hears nothing of their job", async () => {
    const owner = listen();
    const intruder = listen();
    subscribe(owner.socket, 'private-user.1.tasks', platform.apiKey);
    await recorded(1, 'private-user.1.tasks');
    const cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
    const job = await cc.jobs.create({ tasks: { up: { operation: 'import/upload' }, url: { operation: 'export/url', input: 'up' } } });
    const upload = job.tasks.find((t) => t.name === 'up')!;
    const theirs = ['private-user.1.tasks', 'private-user.1.jobs', `private-job.${job.id}`, `private-job.${job.id}.tasks`, `private-task.${upload.id}`];
    for (const channel of theirs) subscribe(intruder.socket, channel, otherKey);
    for (const channel of theirs) await intruder.next((h) => h.event === 'subscription_error' && h.args[0] === channel);
    subscribe(owner.socket, `private-job.${job.id}`, platform.apiKey);
    await recorded(1, `private-job.${job.id}`);
    await cc.tasks.upload(upload, Readable.from([Buffer.from('mine')]), 'mine.txt', 4);
    await owner.next((h) => h.event === 'job.finished' && h.args[0] === `private-job.${job.id}`);
    // A last round trip on the intruder's connection: anything sent to it before is in by then.
    subscribe(intruder.socket, 'private-user.1.tasks', 'not-a-key');
    await intruder.next((h) => h.event === 'subscription_error' && h.args[1] === 401);
    expect(intruder.heard.map((h) => h.event)).toEqual(theirs.map(() => 'subscription_error').concat('subscription_error'));
    // Frames of one connection are handled concurrently (as by the gateway's $default invocations): in any order.
    const refusals = intruder.heard.slice(0, theirs.length).map((h) => h.args);
    expect(refusals).toEqual(expect.arrayContaining(theirs.map((c) => [c, 403])));
    expect(owner.heard.filter((h) => h.args[0] === 'private-user.1.tasks' && h.event === 'task.finished')).toHaveLength(2);
  }, 60_000);

  it('keeps a connection open across several pings', async () => {
    const client = listen();
    let pings = 0;
    let disconnects = 0;
    client.socket.io.on('ping', () => pings++);
    client.socket.on('disconnect', () => disconnects++);
    await new Promise<void>((resolve) => client.socket.on('connect', () => resolve()));
    // Each wait is longer than the client's patience (2 s interval + 10 s timeout) only if pings stop.
    while (pings < 4) await new Promise<void>((resolve) => client.socket.io.once('ping', () => resolve()));
    expect(disconnects).toBe(0);
    expect(client.socket.connected).toBe(true);
    // Still served: a subscription is answered.
    subscribe(client.socket, 'private-user.2.jobs', platform.apiKey);
    expect((await client.next((h) => h.event === 'subscription_error')).args).toEqual(['private-user.2.jobs', 403]);
  }, 60_000);
});
