/**
 * A task's `percent` as a user of the `cloudconvert` SDK sees it on GET /v2/tasks/{id}, against the
 * whole platform: an import from a slow origin (a local server sending a large body at a bounded rate,
 * the one loopback host the service may reach) shows rising values between 0 and 100 while it runs,
 * and 100 once finished. And as a socket.io subscriber hears it: the `updated` events of a 200 MB
 * import carry the rising percent, and another user subscribing to the same channel hears nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '#lib/access/auth/accounts.js';
import { ApiKeys } from '#lib/access/auth/keys.js';
import { SCOPES } from '#lib/access/auth/scopes.js';
import { SocketConnections } from '#lib/file-api/events/connections.js';
import { LOCAL_CREDENTIALS } from '../../local/backends.js';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { DynamoStateStore } from '#lib/adapters/state/dynamodb.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { e2eOutput } from '../support/platform-output.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'task-progress-e2e-'));
let platform: Emulator;
let cc: ReturnType<typeof cloudConvertClient>;
let origin: Server;
let originUrl = '';
let connections: SocketConnections;
let otherKey: string;

/** The slow file: 6 MiB sent at about 1.5 MiB a second, so at least four seconds of download. */
const SIZE = 6 * 1024 * 1024;
const CHUNK = 64 * 1024;
const CHUNKS_PER_SECOND = 24;
/** The large one (/large.bin): 200 MB at about 40 MB a second (1 MiB every 25 ms), five seconds or more. */
const LARGE = 200 * 1000 * 1000;
const LARGE_CHUNK = 1024 * 1024;

beforeAll(async () => {
  origin = createServer((req, res) => {
    const large = req.url === '/large.bin';
    const size = large ? LARGE : SIZE;
    const chunk = large ? LARGE_CHUNK : CHUNK;
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(size) });
    let sent = 0;
    const timer = setInterval(
      () => {
        const n = Math.min(chunk, size - sent);
        res.write(Buffer.alloc(n, sent % 251));
        sent += n;
        if (sent >= size) {
          clearInterval(timer);
          res.end();
        }
      },
      large ? 25 : 1000 / CHUNKS_PER_SECOND,
    );
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', () => resolve()));
  const port = (origin.address() as AddressInfo).port;
  originUrl = `http://127.0.0.1:${port}/slow.bin`;
  platform = await startEmulator({
    dataDir,
    output: e2eOutput,
    env: { LOG_LEVEL: 'warn', FETCH_ALLOW_HOSTS: `127.0.0.1:${port}` },
  });
  cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
  const state = new DynamoStateStore(
    new DynamoDBClient({ region: 'us-east-1', endpoint: platform.endpoints.dynamodb, credentials: LOCAL_CREDENTIALS }),
    platform.env.STATE_TABLE!,
  );
  connections = new SocketConnections(state);
  const accounts = new Accounts(state, { username: 'local', email: 'local@example.com', credits: 'unlimited' });
  const { user } = await accounts.create({ email: 'second@example.com', username: 'Second', password: 'second-password-123456' });
  otherKey = (await new ApiKeys(state).create({ scopes: [...SCOPES], name: 'second user', userId: user.id })).key;
});
const sockets: Socket[] = [];
afterAll(async () => {
  for (const socket of sockets) socket.close();
  await platform?.stop();
  origin?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('task progress', () => {
  it('an import/url from a slow origin shows a rising percent between 0 and 100 while it runs, and 100 when finished', async () => {
    const job = await cc.jobs.create({ tasks: { fetch: { operation: 'import/url', url: originUrl } } });
    const taskId = job.tasks[0]!.id;
    const running: number[] = [];
    // The SDK's Task type has no `percent` (the API's task object has it: the spec, and the SDK's recorded responses).
    const read = async () => (await cc.tasks.get(taskId)) as Awaited<ReturnType<typeof cc.tasks.get>> & { percent: number };
    let task = await read();
    while (task.status === 'waiting' || task.status === 'processing') {
      if (task.status === 'processing') running.push(task.percent);
      await new Promise((resolve) => setTimeout(resolve, 200));
      task = await read();
    }
    expect(task).toMatchObject({ status: 'finished', percent: 100 });
    expect(task.result!.files![0]!.size).toBe(SIZE);
    // Never going down; at least two different values strictly between 0 and 100 on the way.
    expect(running).toEqual([...running].sort((a, b) => a - b));
    const between = [...new Set(running.filter((p) => p > 0 && p < 100))];
    expect(between.length).toBeGreaterThanOrEqual(2);
  });

  it('a 200 MB import/url → export/url job: a private-user.<id>.tasks subscriber hears created, updated with a rising percent, then finished; another user hears nothing', async () => {
    type Heard = { event: string; channel: unknown; task?: { id: string; status: string; percent: number } };
    const listen = () => {
      const socket = io(platform.socketUrl, { transports: ['websocket'] });
      sockets.push(socket);
      const heard: Heard[] = [];
      socket.onAny((event: string, channel: unknown, data?: { task?: Heard['task'] }) => heard.push({ event, channel, task: data?.task }));
      return { socket, heard };
    };
    const subscribe = (socket: Socket, key: string) =>
      socket.emit('subscribe', { channel: 'private-user.1.tasks', auth: { headers: { Authorization: `Bearer ${key}` } } });
    const owner = listen();
    const other = listen();
    subscribe(owner.socket, platform.apiKey);
    subscribe(other.socket, otherKey);
    // Subscriptions are not acknowledged: the owner's takes effect once recorded, the other's is refused.
    while (!(await connections.subscribersOf(1, false)).some((s) => s.channel === 'private-user.1.tasks'))
      await new Promise((r) => setTimeout(r, 50));
    while (!other.heard.length) await new Promise((r) => setTimeout(r, 50));
    expect(other.heard).toEqual([{ event: 'subscription_error', channel: 'private-user.1.tasks', task: undefined }]);

    const job = await cc.jobs.create({
      tasks: { fetch: { operation: 'import/url', url: originUrl.replace('/slow.bin', '/large.bin') }, out: { operation: 'export/url', input: 'fetch' } },
    });
    const done = await cc.jobs.wait(job.id);
    expect(done.status).toBe('finished');
    const out = done.tasks.find((t) => t.name === 'out')!;
    while (!owner.heard.some((h) => h.event === 'task.finished' && h.task?.id === out.id)) await new Promise((r) => setTimeout(r, 50));

    const fetchId = done.tasks.find((t) => t.name === 'fetch')!.id;
    const events = owner.heard.filter((h) => h.task?.id === fetchId);
    expect(events[0]).toMatchObject({ event: 'task.created', channel: 'private-user.1.tasks', task: { status: 'waiting' } });
    expect(events.at(-1)).toMatchObject({ event: 'task.finished', task: { status: 'finished', percent: 100 } });
    const updates = events.filter((h) => h.event === 'task.updated').map((h) => h.task!.percent);
    // The claim (0), then the progress writes: several, rising, below 100.
    const between = updates.filter((p) => p > 0);
    expect(between.length).toBeGreaterThanOrEqual(3);
    expect(updates).toEqual([...updates].sort((a, b) => a - b));
    expect(new Set(between).size).toBe(between.length);
    expect(Math.max(...between)).toBeLessThan(100);
    expect(events.map((h) => h.event).slice(1, -1).every((e) => e === 'task.updated')).toBe(true);
    expect(done.tasks.find((t) => t.name === 'fetch')!.result!.files![0]!.size).toBe(LARGE);
    // The other user heard only the refusal.
    expect(other.heard).toHaveLength(1);
  }, 180_000);
});
