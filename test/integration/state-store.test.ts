import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConditionFailedError, epochSeconds } from '#lib/adapters/state/port.js';
import { startStateBackend } from '../support/dynalite.js';

let backend: Awaited<ReturnType<typeof startStateBackend>>;
beforeAll(async () => {
  backend = await startStateBackend();
});
afterAll(() => backend.close());

describe('DynamoStateStore on dynalite', () => {
  it('puts, gets and refuses a second create of the same item', async () => {
    const { store } = backend;
    await store.put({ pk: 'a', sk: '1', n: 1 }, { condition: { exists: false } });
    await expect(store.put({ pk: 'a', sk: '1', n: 2 }, { condition: { exists: false } })).rejects.toBeInstanceOf(
      ConditionFailedError,
    );
    expect(await store.get({ pk: 'a', sk: '1' })).toMatchObject({ n: 1 });
  });

  it('updates conditionally: a stale status loses', async () => {
    const { store } = backend;
    await store.put({ pk: 'task', sk: 't', status: 'waiting' });
    const claimed = await store.update({ pk: 'task', sk: 't' }, { set: { status: 'processing' }, add: { attempts: 1 } }, {
      condition: { equals: { status: 'waiting' } },
    });
    expect(claimed).toMatchObject({ status: 'processing', attempts: 1 });
    await expect(
      store.update({ pk: 'task', sk: 't' }, { set: { status: 'processing' } }, { condition: { equals: { status: 'waiting' } } }),
    ).rejects.toBeInstanceOf(ConditionFailedError);
  });

  it('updates on a number at least a bound and on string-set membership, and takes members out', async () => {
    const { store } = backend;
    const key = { pk: 'balance', sk: 'user' };
    await store.put({ ...key, credits: 3 });
    const take = (id: string, n: number) =>
      store.update(key, { add: { credits: -n, holds: new Set([id]) } }, { condition: { atLeast: { credits: n }, lacks: { holds: id } } });
    expect(await take('a', 2)).toMatchObject({ credits: 1, holds: new Set(['a']) });
    // The same member again, or more than there is: refused, nothing changed.
    await expect(take('a', 1)).rejects.toBeInstanceOf(ConditionFailedError);
    await expect(take('b', 2)).rejects.toBeInstanceOf(ConditionFailedError);
    const giveBack = (id: string) => store.update(key, { add: { credits: 2 }, delete: { holds: new Set([id]) } }, { condition: { holds: { holds: id } } });
    await expect(giveBack('b')).rejects.toBeInstanceOf(ConditionFailedError);
    const after = await giveBack('a');
    expect(after.credits).toBe(3);
    // The emptied set is gone, and a member may be taken again.
    expect(after.holds).toBeUndefined();
    await expect(giveBack('a')).rejects.toBeInstanceOf(ConditionFailedError);
    expect(await take('a', 3)).toMatchObject({ credits: 0 });
  });

  it('hides expired items on get and query although the backend keeps them', async () => {
    const { store } = backend;
    await store.put({ pk: 'exp', sk: 'old', expiresAt: epochSeconds() - 10 });
    await store.put({ pk: 'exp', sk: 'new', expiresAt: epochSeconds() + 3600 });
    expect(await store.get({ pk: 'exp', sk: 'old' })).toBeUndefined();
    const page = await store.query('exp');
    expect(page.items.map((i) => i.sk)).toEqual(['new']);
  });

  it('pages through a query with an opaque cursor, newest first', async () => {
    const { store } = backend;
    for (let i = 0; i < 5; i++) await store.put({ pk: 'list', sk: `k${i}`, gsi1pk: 'all', gsi1sk: `k${i}` });
    const first = await store.query('all', { index: 'gsi1', limit: 3, descending: true });
    expect(first.items.map((i) => i.sk)).toEqual(['k4', 'k3', 'k2']);
    const second = await store.query('all', { index: 'gsi1', limit: 3, descending: true, cursor: first.cursor });
    expect(second.items.map((i) => i.sk)).toEqual(['k1', 'k0']);
  });

  it('writes many items in batches', async () => {
    const { store } = backend;
    await store.putMany(Array.from({ length: 60 }, (_, i) => ({ pk: 'many', sk: String(i).padStart(3, '0') })));
    let count = 0;
    let cursor: string | undefined;
    do {
      const page = await store.query('many', { cursor });
      count += page.items.length;
      cursor = page.cursor;
    } while (cursor);
    expect(count).toBe(60);
  });
});
