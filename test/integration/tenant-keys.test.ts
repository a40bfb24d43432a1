/**
 * One tenant at 500 jobs/s stays within DynamoDB's 1,000 writes/s per partition key (issue 28): jobs run
 * through the real task services on dynalite with billing, every write counted against the partition
 * keys it lands on: the item's `pk` and, since the user index projects every attribute, its `gsi1pk`
 * (an update of an item in the index writes the index too). A key family sharded N ways (`tasks#7`,
 * `tasks#7#3`…) takes 1/N of its family's writes, as the shard is a hash of the record's id.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '#lib/kernel/log.js';
import type { Item, ItemKey, StateStore, Update } from '#lib/adapters/state/port.js';
import { Credits } from '#lib/file-api/account/credits.js';
import { Users, userKey, type UserRecord } from '#lib/access/auth/users.js';
import { Usage, usageShards } from '#lib/file-api/account/usage.js';
import { TaskBilling } from '#lib/file-api/tasks/billing.js';
import { planJob } from '#lib/file-api/tasks/plan.js';
import { userJobsShards, userTasksShards } from '#lib/file-api/records/model.js';
import { unsharded } from '#lib/kernel/shards.js';
import { archive, exportUrl, importStaged } from '../support/operations.js';
import { useTaskBackends, wireTasks } from '../support/task-harness.js';

const log = createLogger({}, { level: 'silent' });
const backends = useTaskBackends();

/** The state store, counting each write against the partition keys it lands on (table and user index). */
function counting(inner: StateStore) {
  const writes = new Map<string, number>();
  const count = (item: Partial<Item> | undefined, key?: ItemKey) => {
    for (const pk of new Set([key?.pk ?? item?.pk, item?.gsi1pk].filter((k): k is string => typeof k === 'string'))) writes.set(pk, (writes.get(pk) ?? 0) + 1);
  };
  const store: StateStore = {
    get: (k, o) => inner.get(k, o),
    getMany: (k) => inner.getMany(k),
    query: (pk, o) => inner.query(pk, o),
    scan: (o) => inner.scan(o),
    put: async (item, o) => (await inner.put(item, o), count(item)),
    putMany: async (items) => (await inner.putMany(items), items.forEach((i) => count(i))),
    update: async <T extends Item>(key: ItemKey, update: Update, o?: Parameters<StateStore['update']>[2]) => {
      const after = await inner.update<T>(key, update, o);
      count(after, key);
      return after;
    },
    delete: async <T extends Item>(key: ItemKey, o?: Parameters<StateStore['delete']>[1]) => {
      const gone = await inner.delete<T>(key, o);
      count(gone, key);
      return gone;
    },
  };
  return { store, writes };
}

const JOBS = {
  'import → export': { raw: { operation: 'import/raw', file: 'abc', filename: 'a.txt' }, out: { operation: 'export/url', input: 'raw' } },
  'import → archive → export': {
    raw: { operation: 'import/raw', file: 'abc', filename: 'a.txt' },
    zip: { operation: 'archive', input: 'raw', output_format: 'zip' },
    out: { operation: 'export/url', input: 'zip' },
  },
};

describe('the per-tenant keys under one busy user', () => {
  it.each(Object.entries(JOBS).map(([shape, tasks], i) => ({ shape, tasks, user: 4242 + i })))('take at most 2 writes per job on any one partition key (500 jobs/s within 1,000 writes/s): $shape', async ({ tasks, user }) => {
    const { store: state, writes } = counting(backends.state.store);
    const users = new Users(state, { username: 'someone', email: 'someone@example.com', credits: 'unlimited' });
    const credits = new Credits({ state, users });
    const usage = new Usage(state, 30);
    // An unlimited account: a counted balance is one item per user that every task holds and releases
    // (lib/file-api/account/credits.ts), outside this count.
    const record: UserRecord = { ...userKey(user), id: user, username: 'busy', email: 'busy@example.com', credits: 0, createdAt: new Date().toISOString() };
    await backends.state.store.put(record);
    await credits.setCredits(user, 'unlimited');
    const w = wireTasks({ ...backends, state: { ...backends.state, store: state } }, {
      log,
      billing: (store) => new TaskBilling({ store, credits, usage, log, estimate: () => 1 }),
      service: { credits },
    });
    const jobs = 8;
    for (let i = 0; i < jobs; i++) {
      await w.service.createJob(user, planJob({ tasks }));
    }
    await w.drain({ 'import/raw': importStaged, archive, 'export/url': exportUrl });
    const listed = await w.store.listJobs(user, { limit: 100 });
    expect(listed.items.filter((j) => j.status === 'finished')).toHaveLength(jobs);

    // Per family of the user's keys: its writes per job, over its shards.
    const shardsOf = new Map([userTasksShards(user), userJobsShards(user), usageShards(user)].map((keys) => [keys[0]!, keys.length]));
    const families = new Map<string, { writes: number; shards: number }>();
    for (const [pk, n] of writes) {
      if (!pk.includes(String(user))) continue;
      const family = unsharded(pk);
      const f = families.get(family) ?? { writes: 0, shards: shardsOf.get(family) ?? 1 };
      f.writes += n;
      families.set(family, f);
    }
    const perKey = Object.fromEntries([...families].map(([family, f]) => [family, f.writes / jobs / f.shards]));
    console.log('writes per job per partition key of one user:', JSON.stringify(Object.fromEntries([...families].map(([k, f]) => [k, { perJob: f.writes / jobs, shards: f.shards }]))));
    expect(Object.keys(perKey)).toEqual(expect.arrayContaining([`tasks#${user}`, `jobs#${user}`, `usage#${user}`]));
    // The writes are spread: the user's tasks landed on more than one of its keys.
    expect(new Set([...writes.keys()].filter((k) => unsharded(k) === `tasks#${user}`)).size).toBeGreaterThan(1);
    for (const [family, n] of Object.entries(perKey)) expect(n, family).toBeLessThanOrEqual(2);
  }, 120_000);
});
