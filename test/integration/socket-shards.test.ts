/**
 * The socket connections spread over partition keys (issue 28): all connections shared one, which one
 * ping could not cover past ~50 k sockets; now each connection's record is on a shard of its id, the
 * ping reads the shards in parallel, and a connection recorded before the sharding (on the one key of
 * before) is still pinged, subscribes and closes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONNECTION_SHARDS, connectionKey, SocketConnections } from '#lib/file-api/events/connections.js';
import { pingAll } from '#lib/file-api/events/socket-server.js';
import { createLogger } from '#lib/kernel/log.js';
import { epochSeconds } from '#lib/adapters/state/port.js';
import { startStateBackend } from '../support/dynalite.js';

const log = createLogger({}, { level: 'silent' } as never);
let backend: Awaited<ReturnType<typeof startStateBackend>>;
beforeAll(async () => {
  backend = await startStateBackend();
});
afterAll(() => backend?.close());

const owner = { userId: 515, sandbox: false };
const credential = { kind: 'api-key' as const, hash: 'e'.repeat(64), keyId: 'eeeeeeeeeeeeeeee' };

async function listed(connections: SocketConnections): Promise<string[]> {
  const ids: string[] = [];
  for (let shard = 0; shard < CONNECTION_SHARDS; shard++) {
    let cursor: string | undefined;
    do {
      const page = await connections.page(shard, cursor);
      ids.push(...page.connections.map((c) => c.id));
      cursor = page.cursor;
    } while (cursor);
  }
  return ids.sort();
}

describe('socket connections over shards', () => {
  it('are kept on several keys, listed once each, and all pinged in one round', async () => {
    const connections = new SocketConnections(backend.store);
    const ids = Array.from({ length: 40 }, (_, i) => `conn-${String(i).padStart(2, '0')}=`);
    for (const id of ids) {
      await connections.open(id, { address: '198.51.100.1' });
      await connections.subscribe(id, owner, `jobs`, credential);
    }
    const keys = new Set((await backend.store.scan({ filter: { exists: true } })).items.filter((i) => String(i.pk).startsWith('socket#connections')).map((i) => i.pk));
    expect(keys.size).toBeGreaterThan(1);
    expect(await listed(connections)).toEqual(ids);

    const pinged: string[] = [];
    const counts = await pingAll({
      connections,
      post: async (id) => (pinged.push(id), true),
      disconnect: async () => {},
      credentials: { verifyRef: async () => ({ ...owner, keyId: credential.keyId, scopes: ['task.read'], kind: 'api-key' as const }) },
      log,
      subscribeSeconds: 30,
    });
    expect(counts.pinged).toBe(40);
    expect(pinged.sort()).toEqual(ids);
  });

  it('still find a connection recorded on the one key of before: listed, subscribed, closed with its subscriptions', async () => {
    const connections = new SocketConnections(backend.store);
    // An id whose own shard is not shard 0, recorded where every connection was before.
    const id = Array.from({ length: 50 }, (_, i) => `old-${i}=`).find((c) => connectionKey(c).pk !== 'socket#connections')!;
    await backend.store.put({ pk: 'socket#connections', sk: id, connectedAt: new Date().toISOString(), expiresAt: epochSeconds() + 3600 });
    expect(await listed(connections)).toContain(id);
    expect(await connections.subscribe(id, owner, 'jobs.old', credential)).toBe(true);
    expect((await connections.subscribersOf(owner.userId, false)).map((s) => s.connectionId)).toContain(id);
    await connections.close(id);
    expect(await backend.store.get({ pk: 'socket#connections', sk: id })).toBeUndefined();
    expect((await connections.subscribersOf(owner.userId, false)).map((s) => s.connectionId)).not.toContain(id);
  });
});
