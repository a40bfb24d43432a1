/**
 * The wait endpoints' own budget (issue 28): at most WAIT_BUDGET waits hold at once; a wait beyond it
 * answers at once with the current state, as a wait that timed out does (the SDKs wait again), never an
 * error. Holds are counted in time windows that expire, so a function that dies mid-wait gives its
 * place back when its window ends; a wait on a job that has ended takes no place.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeys } from '#lib/access/auth/keys.js';
import type { StateStore } from '#lib/adapters/state/port.js';
import { WaitBudget } from '#lib/file-api/tasks/wait-budget.js';
import { jobKey, type JobRecord } from '#lib/file-api/records/model.js';
import { startStateBackend } from '../support/dynalite.js';
import { useLocalEnv } from '../support/env.js';
import { call } from '../support/lambda.js';
import type * as JobWait from '#functions/jobs/wait.js';

let backend: Awaited<ReturnType<typeof startStateBackend>>;
let waitHandler: typeof JobWait.handler;
let key: string;
beforeAll(async () => {
  backend = await startStateBackend();
  useLocalEnv({ dynamodb: backend.endpoint, table: backend.table, WAIT_BUDGET: '1' });
  waitHandler = (await import('#functions/jobs/wait.js')).handler;
  key = (await new ApiKeys(backend.store).create({ scopes: ['task.read'] })).key;
}, 60_000);
afterAll(() => backend.close());

const WINDOW = 30;
// Windows ahead of now, so that no count read back has expired.
const base = Math.floor(Date.now() / 1000 / WINDOW) + 1000;
const at = (windowIndex: number, second = 0) => ((base + windowIndex) * WINDOW + second) * 1000;

describe('the wait budget', () => {
  it('holds at most its budget at once, and takes again once a place is given back', async () => {
    const budget = new WaitBudget(backend.store, { budget: 1, windowSeconds: WINDOW });
    const first = await budget.take(at(100, 3));
    expect(first).toBeDefined();
    expect(await budget.take(at(100, 4))).toBeUndefined();
    await first!.release();
    expect(await budget.take(at(100, 5))).toBeDefined();
  });

  it('counts a hold in the next window too once the wait polls there, and gives back both', async () => {
    const budget = new WaitBudget(backend.store, { budget: 1, windowSeconds: WINDOW });
    const hold = await budget.take(at(200, 29));
    await hold!.carry(at(200, 29.5));
    await hold!.carry(at(201, 0.5));
    await hold!.carry(at(201, 1.5));
    expect(await budget.take(at(201, 10))).toBeUndefined();
    await hold!.release();
    await hold!.release();
    expect(await budget.take(at(201, 11))).toBeDefined();
    const count = async (w: number) => (await backend.store.get<{ pk: string; sk: string; count: number }>({ pk: budget.keys()[0]!, sk: String(base + w) }))?.count;
    expect(await count(200)).toBe(0);
  });

  it('gives back the place of a wait that never released it (its function died) when its window ends', async () => {
    const budget = new WaitBudget(backend.store, { budget: 1, windowSeconds: WINDOW });
    expect(await budget.take(at(300, 1))).toBeDefined();
    expect(await budget.take(at(300, 29))).toBeUndefined();
    expect(await budget.take(at(301, 0))).toBeDefined();
  });

  it('answers for spent, without asking the store, for a second after it found the budget spent', async () => {
    let calls = 0;
    const store = backend.store;
    const counted: StateStore = {
      get: (k, o) => store.get(k, o),
      getMany: (k) => store.getMany(k),
      query: (pk, o) => store.query(pk, o),
      scan: (o) => store.scan(o),
      put: (i, o) => store.put(i, o),
      putMany: (i) => store.putMany(i),
      delete: (k, o) => store.delete(k, o),
      update: (k, u, o) => (calls++, store.update(k, u, o)),
    };
    const budget = new WaitBudget(counted, { budget: 1, windowSeconds: WINDOW });
    const other = new WaitBudget(backend.store, { budget: 1, windowSeconds: WINDOW });
    const hold = await other.take(at(500, 1));
    expect(await budget.take(at(500, 2))).toBeUndefined();
    expect(calls).toBe(1);
    await hold!.release();
    expect(await budget.take(at(500, 2.5))).toBeUndefined();
    expect(calls).toBe(1);
    expect(await budget.take(at(500, 3.1))).toBeDefined();
    expect(calls).toBe(2);
  });

  it('spreads its count over shards, each holding its share, and tries the others when the first is full', async () => {
    let next = 0;
    const budget = new WaitBudget(backend.store, { budget: 5, windowSeconds: WINDOW, shards: 4, pick: () => next++ % 4 });
    const holds = [];
    for (let i = 0; i < 5; i++) holds.push(await budget.take(at(400, 1)));
    expect(holds.every((h) => h !== undefined)).toBe(true);
    expect(await budget.take(at(400, 2))).toBeUndefined();
    const counted = await Promise.all(budget.keys().map(async (pk) => (await backend.store.get<{ pk: string; sk: string; count: number }>({ pk, sk: String(base + 400) }))?.count ?? 0));
    expect(counted.reduce((a, b) => a + b, 0)).toBe(5);
    expect(counted.filter((n) => n > 0).length).toBeGreaterThan(1);
  });
});

describe('GET /v2/jobs/{id}/wait with a budget of 1', () => {
  const putJob = async (id: string, ended: boolean) => {
    const now = new Date().toISOString();
    const job: JobRecord = { ...jobKey(id), id, userId: 1, tag: null, status: ended ? 'finished' : 'waiting', createdAt: now, startedAt: null, endedAt: ended ? now : null, expiresAt: Math.floor(Date.now() / 1000) + 3600, taskIds: [], webhookUrl: null };
    await backend.store.put(job);
  };
  const wait = (id: string) => call(waitHandler, { method: 'GET', path: `/v2/jobs/${id}/wait`, headers: { authorization: `Bearer ${key}` }, pathParameters: { id } });

  const ids = { held: randomUUID(), other: randomUUID(), ended: randomUUID() };

  it('answers a second concurrent wait at once with the current state, and the first when its job ends', async () => {
    await putJob(ids.held, false);
    await putJob(ids.other, false);
    let firstDone = false;
    const first = wait(ids.held).then((r) => ((firstDone = true), r));
    // The first wait holds the one place once its count is written.
    const budget = new WaitBudget(backend.store, { budget: 1, windowSeconds: 30 });
    const held = async () => (await backend.store.get<{ pk: string; sk: string; count: number }>({ pk: budget.keys()[0]!, sk: String(Math.floor(Date.now() / 30_000)) }))?.count === 1;
    while (!(await held())) await new Promise((r) => setTimeout(r, 20));

    const second = await wait(ids.other);
    expect(second.status).toBe(200);
    expect(second.json.data).toMatchObject({ id: ids.other, status: 'waiting' });
    expect(firstDone).toBe(false);

    await backend.store.update(jobKey(ids.held), { set: { status: 'finished', endedAt: new Date().toISOString() } });
    const answered = await first;
    expect(answered.status).toBe(200);
    expect(answered.json.data).toMatchObject({ id: ids.held, status: 'finished' });
  }, 40_000);

  it('answers a wait on an ended job with the job, taking no place', async () => {
    await putJob(ids.ended, true);
    const scanned = async () => (await backend.store.scan({ filter: { exists: true } })).items.filter((i) => String(i.pk).startsWith('waits')).length;
    const before = await scanned();
    expect((await wait(ids.ended)).json.data).toMatchObject({ id: ids.ended, status: 'finished' });
    expect(await scanned()).toBe(before);
  });
});
