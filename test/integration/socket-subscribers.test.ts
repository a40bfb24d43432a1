/**
 * The subscriptions lookup behind every live event (lib/file-api/events/connections.ts): nothing is kept, so a
 * subscription is heard by the next event, and a failed lookup does not answer the next one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SocketConnections } from '#lib/file-api/events/connections.js';
import { startStateBackend } from '../support/dynalite.js';

let state: Awaited<ReturnType<typeof startStateBackend>>;
beforeAll(async () => {
  state = await startStateBackend();
});
afterAll(async () => {
  await state?.close();
});

describe('subscribers of a user', () => {
  it('keeps nothing: a subscription made after a lookup is seen by the next one', async () => {
    const connections = new SocketConnections(state.store);
    await connections.open('c2');
    expect(await connections.subscribersOf(9, false)).toEqual([]);
    await connections.subscribe('c2', { userId: 9, sandbox: false }, 'private-user.9.jobs', { kind: 'api-key', hash: 'a'.repeat(64), keyId: 'aaaaaaaaaaaaaaaa' });
    expect((await connections.subscribersOf(9, false)).map((s) => s.connectionId)).toEqual(['c2']);
    await connections.close('c2');
    expect(await connections.subscribersOf(9, false)).toEqual([]);
  });

  it('a failed lookup is not kept either', async () => {
    let fail = true;
    const flaky = new Proxy(state.store, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop === 'query' && fail) return async () => Promise.reject(new Error('table unreachable'));
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const connections = new SocketConnections(flaky);
    await expect(connections.subscribersOf(10, false)).rejects.toThrow('table unreachable');
    fail = false;
    expect(await connections.subscribersOf(10, false)).toEqual([]);
  });
});
