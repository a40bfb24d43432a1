/**
 * The job's status as its tasks start and end, with the state store counted (dynalite): a task's start
 * makes a waiting job `processing` with one conditional write and no read (announced once as
 * `job.updated`), and a child is queued without reading again the input that has just finished.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '#lib/config.js';
import { createLogger } from '#lib/log.js';
import type { Implementation } from '#lib/operations/types.js';
import type { Item, ItemKey, StateStore } from '#lib/state/port.js';
import type { JobRecord } from '#lib/tasks/model.js';
import { planJob } from '#lib/tasks/plan.js';
import { runTask } from '#lib/tasks/runner.js';
import { Scheduler } from '#lib/tasks/scheduler.js';
import { TaskService } from '#lib/tasks/service.js';
import { TaskStore } from '#lib/tasks/store.js';
import { startStateBackend } from '../support/dynalite.js';
import { startFilesBackend } from '../support/s3rver.js';
import { RecordingQueue, TEST_CONFIG_ENV } from '../support/recording-queue.js';
import { exportUrl } from '../support/operations.js';

let state: Awaited<ReturnType<typeof startStateBackend>>;
let files: Awaited<ReturnType<typeof startFilesBackend>>;
const log = createLogger({}, { level: 'silent' });
const config = parseConfig({ ...TEST_CONFIG_ENV });

beforeAll(async () => {
  [state, files] = await Promise.all([startStateBackend(), startFilesBackend()]);
});
afterAll(async () => {
  await Promise.all([state?.close(), files?.close()]);
});

/** The state store, recording the keys each kind of call touched. */
function counted(inner: StateStore): { store: StateStore; reads: string[]; writes: string[] } {
  const reads: string[] = [];
  const writes: string[] = [];
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (prop === 'get') reads.push((args[0] as ItemKey).pk);
        if (prop === 'getMany') reads.push(...(args[0] as ItemKey[]).map((k) => k.pk));
        if (prop === 'update' || prop === 'put') writes.push(((args[0] as Item).pk ?? '') as string);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, reads, writes };
}

describe('job status on the task path', () => {
  it('starts a waiting job with one conditional write and no read of the job or its tasks, announced once', async () => {
    const { store: countedState, reads, writes } = counted(state.store);
    const store = new TaskStore(countedState);
    const queue = new RecordingQueue();
    const updated: JobRecord[] = [];
    const scheduler = new Scheduler({ store, queue, log, onJobUpdated: async (job) => void updated.push(job) });
    const service = new TaskService({ store, scheduler, files: files.files, log });
    const plan = planJob({ tasks: { a: { operation: 'import/raw', file: 'a', filename: 'a.txt' }, b: { operation: 'import/raw', file: 'b', filename: 'b.txt' } } });
    const { job, tasks } = await service.createJob(1, plan);
    expect(job.status).toBe('waiting');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow: Implementation = async () => {
      await held;
      return { result: { files: [] }, credits: 0 };
    };
    const deps = {
      store,
      scheduler,
      files: files.files,
      config,
      log,
      implementations: { 'import/raw': slow, 'export/url': exportUrl },
      requeue: async () => {},
    };
    reads.length = 0;
    writes.length = 0;
    const runs = tasks.map((t) => runTask(t.id, deps));
    const look = new TaskStore(state.store);
    while ((await look.getJob(job.id))?.status !== 'processing') await new Promise((r) => setTimeout(r, 20));
    // Both runs have claimed; the job was never read to start it.
    while (writes.filter((pk) => pk.startsWith('task#')).length < 2) await new Promise((r) => setTimeout(r, 20));
    expect(reads.filter((pk) => pk.startsWith('job#'))).toHaveLength(0);
    expect(writes.filter((pk) => pk.startsWith('job#')).length).toBeLessThanOrEqual(2);
    expect(updated.map((j) => j.status)).toEqual(['processing']);
    expect((await look.getJob(job.id))!.startedAt).toBeTruthy();
    release();
    await Promise.all(runs);
    expect((await look.getJob(job.id))!.status).toBe('finished');
    expect(updated).toHaveLength(1);
  });

  it('queues a child without reading again the input that has just finished', async () => {
    const { store: countedState, reads } = counted(state.store);
    const store = new TaskStore(countedState);
    const queue = new RecordingQueue();
    const scheduler = new Scheduler({ store, queue, log });
    const service = new TaskService({ store, scheduler, files: files.files, log });
    const plan = planJob({
      tasks: { raw: { operation: 'import/raw', file: 'x', filename: 'x.txt' }, out: { operation: 'export/url', input: 'raw' } },
    });
    const { tasks } = await service.createJob(1, plan);
    const raw = tasks.find((t) => t.name === 'raw')!;
    const out = tasks.find((t) => t.name === 'out')!;
    const done: Implementation = async () => ({ result: { files: [] }, credits: 0 });
    reads.length = 0;
    await runTask(raw.id, { store, scheduler, files: files.files, config, log, implementations: { 'import/raw': done }, requeue: async () => {} });
    expect(queue.sent.map((m) => (m.message as { taskId: string }).taskId)).toContain(out.id);
    // Its own read at the start and the job's refresh at the end; not a third for the child's inputs.
    expect(reads.filter((pk) => pk === `task#${raw.id}`)).toHaveLength(2);
  });
});
