/**
 * Issue 25's socket acceptance, with socket.io's own client against the WebSocket API the platform
 * runs (functions/events): a socket subscribed with a key that is then revoked hears no event of a job
 * another key of the same user creates (and is told: `subscription_error` 401, then the namespace's
 * disconnect), while a fresh socket with a valid key hears them; a connection that never subscribes
 * is closed after SOCKET_SUBSCRIBE_SECONDS (a subscribed one is not); connections not subscribed
 * past SOCKET_PENDING_PER_ADDRESS are refused at the handshake.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeys } from '#lib/access/auth/keys.js';
import { SCOPES } from '#lib/access/auth/scopes.js';
import { CONNECTION_SHARDS, SocketConnections } from '#lib/file-api/events/connections.js';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { e2eOutput } from '../support/platform-output.js';
import { platformState } from '../support/platform-state.js';
import { listen, recorded, subscribe, type Listener } from '../support/sockets.js';

const SUBSCRIBE_SECONDS = 8;
const PENDING_CAP = 4;
const dataDir = mkdtempSync(path.join(tmpdir(), 'socket-credentials-e2e-'));
let platform: Emulator;
let connections: SocketConnections;
let keys: ApiKeys;
const sockets: Socket[] = [];

beforeAll(async () => {
  platform = await startEmulator({
    dataDir,
    output: e2eOutput,
    env: {
      SOCKET_PING_SECONDS: '2',
      SOCKET_PING_TIMEOUT_SECONDS: '10',
      SOCKET_SUBSCRIBE_SECONDS: String(SUBSCRIBE_SECONDS),
      SOCKET_PENDING_PER_ADDRESS: String(PENDING_CAP),
    },
  });
  const state = platformState(platform);
  connections = new SocketConnections(state);
  keys = new ApiKeys(state);
});

afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

afterAll(async () => {
  await platform?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const client = (options = {}) => listen(platform.socketUrl, sockets, options);
const connected = (l: Listener) => new Promise<void>((resolve) => (l.socket.connected ? resolve() : l.socket.once('connect', () => resolve())));
const disconnected = (l: Listener) => new Promise<string>((resolve) => l.socket.once('disconnect', (reason) => resolve(reason)));
const isJobOrTaskEvent = (event: string) => /^(job|task)\./.test(event);
const CHANNELS = ['private-user.1.jobs', 'private-user.1.tasks'];

describe('events follow the credential', () => {
  it('subscribe, revoke the key, create a job with another key of the same user: zero events on the revoked socket within 10 s, a fresh socket with a valid key hears them', async () => {
    const doomed = await keys.create({ scopes: [...SCOPES], name: 'to be revoked', userId: 1 });
    const revoked = client();
    for (const channel of CHANNELS) subscribe(revoked.socket, channel, doomed.key);
    for (const channel of CHANNELS) await recorded(connections, 1, channel);
    let told: string | undefined;
    revoked.socket.on('disconnect', (reason) => (told = reason));
    // As `npm run keys -- revoke <id>` does.
    await keys.revoke(doomed.record.keyId);
    const revokedAt = Date.now();

    const fresh = client();
    for (const channel of CHANNELS) subscribe(fresh.socket, channel, platform.apiKey);
    for (const channel of CHANNELS) await recorded(connections, 1, channel, 2);
    const cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
    const job = await cc.jobs.create({
      tasks: {
        raw: { operation: 'import/raw', file: 'not for the revoked', filename: 'secret.txt' },
        url: { operation: 'export/url', input: 'raw' },
      },
    } as never);
    await fresh.next((h) => h.event === 'job.finished' && (h.args[1] as { job: { id: string } }).job.id === job.id);
    expect(fresh.heard.filter((h) => h.event === 'task.finished')).toHaveLength(2);

    // The rest of the 10 s: nothing arrives.
    await new Promise((r) => setTimeout(r, Math.max(0, revokedAt + 10_000 - Date.now())));
    expect(revoked.heard.filter((h) => isJobOrTaskEvent(h.event))).toEqual([]);
    // It was told at the job's first event, and ended from the server's side.
    expect(revoked.heard.filter((h) => h.event === 'subscription_error').map((h) => h.args)).toEqual(expect.arrayContaining(CHANNELS.map((c) => [c, 401])));
    expect(told).toBe('io server disconnect');
    expect((await connections.subscribersOf(1, false)).filter((s) => s.keyId === doomed.record.keyId)).toEqual([]);
  }, 90_000);
});

describe('connections that do not subscribe', () => {
  it('are closed after the subscribe period, while a subscribed one stays open', async () => {
    const idle = client({ reconnection: false });
    const subscribed = client({ reconnection: false });
    await Promise.all([connected(idle), connected(subscribed)]);
    subscribe(subscribed.socket, 'private-user.1.jobs', platform.apiKey);
    await recorded(connections, 1, 'private-user.1.jobs');
    let subscribedDisconnects = 0;
    subscribed.socket.on('disconnect', () => subscribedDisconnects++);
    expect(await disconnected(idle)).toBe('io server disconnect');
    // Two more pings on the subscribed one after the idle one was closed: it is past the same period.
    for (let i = 0; i < 2; i++) await new Promise<void>((resolve) => subscribed.socket.io.once('ping', () => resolve()));
    expect(subscribedDisconnects).toBe(0);
    expect(subscribed.socket.connected).toBe(true);
    // The idle connection's record is gone.
    const open = (await Promise.all(Array.from({ length: CONNECTION_SHARDS }, (_, shard) => connections.page(shard)))).flatMap((p) => p.connections);
    expect(open.filter((c) => c.pending)).toEqual([]);
  }, 90_000);

  it('are refused at the handshake over the cap, and let in again once the idle ones are closed', async () => {
    const waiting = Array.from({ length: PENDING_CAP }, () => client({ reconnection: false }));
    await Promise.all(waiting.map(connected));
    const over = client({ reconnection: false });
    const refused = await new Promise<boolean>((resolve) => {
      over.socket.once('connect_error', () => resolve(true));
      over.socket.once('connect', () => resolve(false));
    });
    expect(refused).toBe(true);
    await Promise.all(waiting.map(disconnected));
    const later = client({ reconnection: false });
    await connected(later);
    expect(later.socket.connected).toBe(true);
  }, 90_000);
});
