/**
 * Unauthenticated sockets (issue 25, finding 6): a connection that has not subscribed is counted
 * against a cap per source address and in total, and the connect over either cap is refused; the
 * scheduled ping closes a connection that has not subscribed within the subscribe period (telling it
 * with socket.io's disconnect, then closing it at the gateway) and forgets its records; a subscribed
 * connection is not closed and no longer counts. Real state store (dynalite); the gateway's
 * management API is a recorder and the ping's clock is injected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionKey, SocketConnections } from '#lib/file-api/events/connections.js';
import { pingAll } from '#lib/file-api/events/socket-server.js';
import { createLogger } from '#lib/kernel/log.js';
import { startStateBackend } from '../support/dynalite.js';

const log = createLogger({}, { level: 'silent' } as never);

let backend: Awaited<ReturnType<typeof startStateBackend>>;
beforeAll(async () => {
  backend = await startStateBackend();
});
afterAll(() => backend?.close());

let n = 0;
/** Addresses of one test only (every test shares the table and the total count). */
const address = () => `192.0.2.${++n}`;
const owner = { userId: 4242, sandbox: false };
const credential = { kind: 'api-key' as const, hash: 'd'.repeat(64), keyId: 'dddddddddddddddd' };

function gateway() {
  const frames = new Map<string, string[]>();
  const closed: string[] = [];
  return {
    frames,
    closed,
    post: async (id: string, frame: string) => (frames.set(id, [...(frames.get(id) ?? []), frame]), !closed.includes(id)),
    disconnect: async (id: string) => void closed.push(id),
  };
}

/** The ping's round at `now`, with a subscribe period of 30 s; every credential still good. */
const ping = (connections: SocketConnections, g: ReturnType<typeof gateway>, now: number) =>
  pingAll({
    connections,
    post: g.post,
    disconnect: g.disconnect,
    credentials: { verifyRef: async () => ({ ...owner, keyId: credential.keyId, scopes: ['task.read'], kind: 'api-key' as const }) },
    log,
    subscribeSeconds: 30,
    now: () => now,
  });

const stored = async (id: string) => (await backend.store.get(connectionKey(id))) !== undefined;

describe('connections that have not subscribed', () => {
  it('are capped per source address: the connect over the cap is refused and nothing of it is stored', async () => {
    const connections = new SocketConnections(backend.store, { pendingPerAddress: 3, pendingTotal: 1000 });
    const ip = address();
    for (const id of ['cap-1', 'cap-2', 'cap-3']) expect(await connections.open(id, { address: ip }), id).toBe(true);
    expect(await connections.open('cap-4', { address: ip })).toBe(false);
    expect(await stored('cap-4')).toBe(false);
    // Another address is not held back by this one's.
    expect(await connections.open('cap-other', { address: address() })).toBe(true);
    // Concurrent connects are counted one by one: never more than the cap get in.
    const burst = address();
    const opened = await Promise.all(Array.from({ length: 12 }, (_, i) => connections.open(`burst-${i}`, { address: burst })));
    expect(opened.filter(Boolean)).toHaveLength(3);
  });

  it('are capped in total, whatever the address', async () => {
    const connections = new SocketConnections(backend.store, { pendingPerAddress: 100, pendingTotal: 1000 });
    const counted = new SocketConnections(backend.store, { pendingPerAddress: 100, pendingTotal: 0 });
    // With no room in total nothing new gets in, from any address.
    expect(await counted.open('total-1', { address: address() })).toBe(false);
    expect(await counted.open('total-2', { address: address() })).toBe(false);
    expect(await connections.open('total-3', { address: address() })).toBe(true);
  });

  it('make room again when they subscribe or close', async () => {
    const connections = new SocketConnections(backend.store, { pendingPerAddress: 2, pendingTotal: 1000 });
    const ip = address();
    expect(await connections.open('room-1', { address: ip })).toBe(true);
    expect(await connections.open('room-2', { address: ip })).toBe(true);
    expect(await connections.open('room-3', { address: ip })).toBe(false);
    expect(await connections.subscribe('room-1', owner, 'private-user.4242.jobs', credential)).toBe(true);
    // A second subscription of the same connection does not give room twice.
    expect(await connections.subscribe('room-1', owner, 'private-user.4242.tasks', credential)).toBe(true);
    expect(await connections.open('room-3', { address: ip })).toBe(true);
    expect(await connections.open('room-4', { address: ip })).toBe(false);
    await connections.close('room-2');
    // Closing the subscribed one gives no room (it was not counted any more).
    await connections.close('room-1');
    expect(await connections.open('room-4', { address: ip })).toBe(true);
    expect(await connections.open('room-5', { address: ip })).toBe(false);
  });

  it('are closed by the ping once the subscribe period is over, told first, their records removed', async () => {
    const connections = new SocketConnections(backend.store, { pendingPerAddress: 5, pendingTotal: 1000 });
    const ip = address();
    const start = Date.now();
    expect(await connections.open('idle-1', { address: ip, now: start })).toBe(true);
    expect(await connections.open('idle-2', { address: ip, now: start + 20_000 })).toBe(true);
    const g = gateway();
    await ping(connections, g, start + 29_000);
    expect(g.closed).not.toContain('idle-1');
    await ping(connections, g, start + 31_000);
    expect(g.closed).toContain('idle-1');
    expect(g.closed).not.toContain('idle-2');
    expect(g.frames.get('idle-1')?.at(-1)).toBe('41');
    expect(await stored('idle-1')).toBe(false);
    expect(await stored('idle-2')).toBe(true);
  });

  it('a subscribed connection is not closed by the subscribe period, however old', async () => {
    const connections = new SocketConnections(backend.store, { pendingPerAddress: 5, pendingTotal: 1000 });
    const start = Date.now();
    expect(await connections.open('subscribed-old', { address: address(), now: start })).toBe(true);
    expect(await connections.subscribe('subscribed-old', owner, 'private-user.4242.jobs', credential)).toBe(true);
    const g = gateway();
    await ping(connections, g, start + 3_600_000);
    expect(g.closed).not.toContain('subscribed-old');
    expect(g.frames.get('subscribed-old')).toEqual(['2']);
    expect(await stored('subscribed-old')).toBe(true);
  });

  it('a connection still opening (its $connect not returned: the gateway answers Gone) is not forgotten for a Gone', async () => {
    const connections = new SocketConnections(backend.store, { pendingPerAddress: 5, pendingTotal: 1000 });
    const start = Date.now();
    expect(await connections.open('opening', { address: address(), now: start })).toBe(true);
    const g = gateway();
    g.closed.push('opening');
    await ping(connections, g, start + 1_000);
    expect(await stored('opening')).toBe(true);
  });

  it('a connection the ping closed for idling gives its room back', async () => {
    const connections = new SocketConnections(backend.store, { pendingPerAddress: 1, pendingTotal: 1000 });
    const ip = address();
    const start = Date.now();
    expect(await connections.open('idle-room-1', { address: ip, now: start })).toBe(true);
    expect(await connections.open('idle-room-2', { address: ip, now: start })).toBe(false);
    const g = gateway();
    await ping(connections, g, start + 60_000);
    expect(g.closed).toContain('idle-room-1');
    expect(await connections.open('idle-room-2', { address: ip })).toBe(true);
  });
});
