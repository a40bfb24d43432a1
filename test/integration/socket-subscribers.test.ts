/**
 * The subscriptions lookup behind every live event (lib/events/connections.ts): lookups made at the
 * same moment share one query, and nothing is kept, so a subscription is heard by the next event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SocketConnections } from '#lib/events/connections.js';
import type { StateStore } from '#lib/state/port.js';
import { startStateBackend } from '../support/dynalite.js';
import { observedState } from '../support/observed-state.js';

let state: Awaited<ReturnType<typeof startStateBackend>>;
beforeAll(async () => {
  state = await startStateBackend();
});
afterAll(async () => {
  await state?.close();
});

/** The state store, counting its queries. */
function countingQueries(inner: StateStore) {
  const counter = { queries: 0 };
  const store = observedState(inner, (method) => {
    if (method === 'query') counter.queries++;
  });
  return { store, counter };
}

describe('subscribers of a user', () => {
  it('answers lookups made at the same moment with one query', async () => {
    const { store, counter } = countingQueries(state.store);
    const connections = new SocketConnections(store);
    await connections.open('c1');
    await connections.subscribe('c1', { userId: 7, sandbox: false }, 'private-user.7.tasks');
    counter.queries = 0;
    const [a, b, c] = await Promise.all([connections.subscribersOf(7, false), connections.subscribersOf(7, false), connections.subscribersOf(7, false)]);
    expect(counter.queries).toBe(1);
    for (const found of [a, b, c]) expect(found.map((s) => s.channel)).toEqual(['private-user.7.tasks']);
    // Another owner, or the same user's sandbox, is a lookup of its own.
    await Promise.all([connections.subscribersOf(7, false), connections.subscribersOf(8, false), connections.subscribersOf(7, true)]);
    expect(counter.queries).toBe(4);
  });

  it('keeps nothing: a subscription made after a lookup is seen by the next one', async () => {
    const connections = new SocketConnections(state.store);
    await connections.open('c2');
    expect(await connections.subscribersOf(9, false)).toEqual([]);
    await connections.subscribe('c2', { userId: 9, sandbox: false }, 'private-user.9.jobs');
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
