/**
 * A user's jobs and tasks are listed newest first across the shards of their index key, page after
 * page with no item lost or given twice, records written before the sharding (under the one key of
 * before) included; the lists as the endpoints page them (page/per_page) are unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskStore } from '#lib/file-api/records/store.js';
import { collectPage } from '#lib/file-api/tasks/http.js';
import { userJobsIndex, userJobsShards, userTasksIndex, type JobRecord } from '#lib/file-api/records/model.js';
import { startStateBackend } from '../support/dynalite.js';

let backend: Awaited<ReturnType<typeof startStateBackend>>;
beforeAll(async () => {
  backend = await startStateBackend();
});
afterAll(() => backend.close());

const user = 77;
/** Jobs made over a minute, one a second: `legacy` ones under the key of before the sharding. */
async function makeJobs(count: number, legacy: (i: number) => boolean, sandbox = false): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `job-${sandbox ? 's' : 'l'}-${String(i).padStart(3, '0')}`;
    const createdAt = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
    const gsi1pk = legacy(i) ? `${sandbox ? 'sandbox-' : ''}jobs#${user}` : userJobsIndex(user, sandbox, id);
    await backend.store.put({ pk: `job#${id}`, sk: 'job', gsi1pk, gsi1sk: `${createdAt}#${id}`, id, userId: user, createdAt });
    ids.push(id);
  }
  return ids.reverse();
}

async function listAll(store: TaskStore, limit: number, sandbox = false): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listJobs(user, { limit, cursor }, sandbox);
    expect(page.items.length).toBeLessThanOrEqual(limit);
    seen.push(...page.items.map((j) => j.id));
    cursor = page.cursor;
  } while (cursor);
  return seen;
}

describe("a user's lists over the shards of the index", () => {
  it('spread a user’s records over several keys, the first being the key of before', () => {
    const keys = new Set(Array.from({ length: 64 }, (_, i) => userJobsIndex(user, false, `job-${i}`)));
    expect(keys.size).toBe(userJobsShards(user).length);
    expect(userJobsShards(user)[0]).toBe(`jobs#${user}`);
    expect(userTasksIndex(user, true, 'x').startsWith(`sandbox-tasks#${user}`)).toBe(true);
  });

  it('list newest first across shards, page after page, records of before included', async () => {
    const store = new TaskStore(backend.store);
    const newestFirst = await makeJobs(45, (i) => i % 7 === 0);
    for (const limit of [1, 4, 10, 100]) expect(await listAll(store, limit)).toEqual(newestFirst);
    // The sandbox's are listed apart.
    const sandbox = await makeJobs(5, (i) => i === 2, true);
    expect(await listAll(store, 3, true)).toEqual(sandbox);
    expect(await listAll(store, 100)).toEqual(newestFirst);
  });

  it('give the endpoints’ pages (page, per_page) as one key did', async () => {
    const store = new TaskStore(backend.store);
    const all = await listAll(store, 100);
    const pageOf = (page: number, perPage: number) =>
      collectPage<JobRecord>((cursor) => store.listJobs(user, { limit: 100, cursor }), () => true, page, perPage);
    expect((await pageOf(1, 10)).items.map((j) => j.id)).toEqual(all.slice(0, 10));
    expect((await pageOf(3, 20)).items.map((j) => j.id)).toEqual(all.slice(40, 45));
    expect((await pageOf(3, 20)).hasMore).toBe(false);
    expect((await pageOf(2, 20)).hasMore).toBe(true);
  });
});
