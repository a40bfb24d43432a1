/**
 * The job's status as its tasks start and end, with the state store counted (dynalite): a task's start
 * makes a waiting job `processing` with one conditional write and no read (announced once as
 * `job.updated`), and a child is queued without reading again the input that has just finished.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '#lib/kernel/log.js';
import type { Implementation } from '#lib/file-api/operations/framework/types.js';
import type { Item, ItemKey, StateStore } from '#lib/adapters/state/port.js';
import type { JobRecord } from '#lib/file-api/records/model.js';
import { planJob } from '#lib/file-api/tasks/plan.js';
import { runTask } from '#lib/file-api/tasks/runner.js';
import { TaskStore } from '#lib/file-api/records/store.js';
import { useTaskBackends, wireTasks } from '../support/task-harness.js';
import { exportUrl } from '../support/operations.js';
import { observedState } from '../support/observed-state.js';

const { state, files } = useTaskBackends();
const log = createLogger({}, { level: 'silent' });

/** The state store, recording the keys each kind of call touched. */
function counted(inner: StateStore): { store: StateStore; reads: string[]; writes: string[] } {
  const reads: string[] = [];
  const writes: string[] = [];
  const store = observedState(inner, (method, args) => {
    if (method === 'get') reads.push((args[0] as ItemKey).pk);
    if (method === 'getMany') reads.push(...(args[0] as ItemKey[]).map((k) => k.pk));
    if (method === 'update' || method === 'put') writes.push(((args[0] as Item).pk ?? '') as string);
  });
  return { store, reads, writes };
}

const done: Implementation = async () => ({ result: { files: [] }, credits: 0 });
const implementations = { 'import/raw': done, archive: done, 'export/url': done };

/** Task store, queue, scheduler and service over the counted state store; `drain` runs what is queued. */
function setup() {
  const counting = counted(state.store);
  const ended: JobRecord[] = [];
  const { store, queue, scheduler, service, deps: depsWith } = wireTasks({ state, files }, { state: counting.store, log, scheduler: { onJobEnded: async (job) => void ended.push(job) } });
  const deps = depsWith(implementations);
  /** Runs every queued task, as the step consumers would, until nothing is queued. */
  const drain = async () => {
    for (let next = queue.sent.shift(); next; next = queue.sent.shift()) await runTask((next.message as { taskId: string }).taskId, deps);
  };
  return { ...counting, store, queue, scheduler, service, deps, drain, ended };
}

describe('job status on the task path', () => {
  it('starts a waiting job with one conditional write and no read of the job or its tasks, announced once', async () => {
    const { store: countedState, reads, writes } = counted(state.store);
    const updated: JobRecord[] = [];
    const { service, deps: depsWith } = wireTasks({ state, files }, { state: countedState, log, scheduler: { onJobUpdated: async (job) => void updated.push(job) } });
    const plan = planJob({ tasks: { a: { operation: 'import/raw', file: 'a', filename: 'a.txt' }, b: { operation: 'import/raw', file: 'b', filename: 'b.txt' } } });
    const { job, tasks } = await service.createJob(1, plan);
    expect(job.status).toBe('waiting');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow: Implementation = async () => {
      await held;
      return { result: { files: [] }, credits: 0 };
    };
    const deps = depsWith({ 'import/raw': slow, 'export/url': exportUrl });
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
    const { queue, service, deps } = wireTasks({ state, files }, { state: countedState, log });
    const plan = planJob({
      tasks: { raw: { operation: 'import/raw', file: 'x', filename: 'x.txt' }, out: { operation: 'export/url', input: 'raw' } },
    });
    const { tasks } = await service.createJob(1, plan);
    const raw = tasks.find((t) => t.name === 'raw')!;
    const out = tasks.find((t) => t.name === 'out')!;
    reads.length = 0;
    await runTask(raw.id, deps({ 'import/raw': done }));
    expect(queue.sent.map((m) => (m.message as { taskId: string }).taskId)).toContain(out.id);
    // No read at the start (a waiting task is claimed at once), none for the child's inputs, none for the
    // job's refresh (the child is still to run, so the job cannot have ended).
    expect(reads.filter((pk) => pk === `task#${raw.id}`)).toHaveLength(0);
    expect(reads.filter((pk) => pk.startsWith('job#'))).toHaveLength(0);
  });

  it("writes no job start for a task whose input in the same job was run (that run made the job processing), but does for one whose input was not", async () => {
    const { store, service, deps, writes } = setup();
    const jobWrites = () => writes.filter((pk) => pk.startsWith('job#')).length;
    const look = new TaskStore(state.store);

    const ran = await service.createJob(1, planJob({ tasks: { raw: { operation: 'import/raw', file: 'x', filename: 'x.txt' }, out: { operation: 'export/url', input: 'raw' } } }));
    await runTask(ran.tasks.find((t) => t.name === 'raw')!.id, deps);
    expect((await look.getJob(ran.job.id))!.status).toBe('processing');
    writes.length = 0;
    await runTask(ran.tasks.find((t) => t.name === 'out')!.id, deps);
    // The job's end only: no start written for the export.
    expect(jobWrites()).toBe(1);
    expect((await look.getJob(ran.job.id))!.status).toBe('finished');

    // An upload's input ends without a run (its file arrived): the dependant's run starts the job itself.
    const uploaded = await service.createJob(1, planJob({ tasks: { up: { operation: 'import/upload' }, out: { operation: 'export/url', input: 'up' } } }));
    const up = uploaded.tasks.find((t) => t.name === 'up')!;
    await store.finishWaiting(up.id, { files: [] });
    expect((await look.getJob(uploaded.job.id))!.status).toBe('waiting');
    writes.length = 0;
    await runTask(uploaded.tasks.find((t) => t.name === 'out')!.id, deps);
    expect(jobWrites()).toBe(2);
    expect((await look.getJob(uploaded.job.id))!.status).toBe('finished');
  });
});

/**
 * The job is read and recomputed only when a task's end may have ended it: the job still ends, once,
 * with the right status, however its tasks end.
 */
describe('the job ends when its last task ends, without a refresh per task', () => {
  it('reads the job once for a job of four tasks (two inputs, a merge, an export) and ends it finished', async () => {
    const t = setup();
    const { job } = await t.service.createJob(
      1,
      planJob({
        tasks: {
          a: { operation: 'import/raw', file: 'a', filename: 'a.txt' },
          b: { operation: 'import/raw', file: 'b', filename: 'b.txt' },
          zip: { operation: 'archive', input: ['a', 'b'], output_format: 'zip' },
          out: { operation: 'export/url', input: 'zip' },
        },
      }),
    );
    t.reads.length = 0;
    await t.drain();
    const after = (await new TaskStore(state.store).getJob(job.id))!;
    expect(after.status).toBe('finished');
    expect(after.endedAt).toBeTruthy();
    expect(t.ended.map((j) => j.id)).toEqual([job.id]);
    expect(t.reads.filter((pk) => pk === `job#${job.id}`)).toHaveLength(1);
  });

  it("ends a job whose last task's only dependant is a standalone task outside the job", async () => {
    const t = setup();
    const { job, tasks } = await t.service.createJob(1, planJob({ tasks: { raw: { operation: 'import/raw', file: 'x', filename: 'x.txt' } } }));
    const definition = (await import('#lib/file-api/operations/index.js')).operationDefinition('export/url')!;
    const standalone = await t.service.createTask(1, definition, { operation: 'export/url' }, [tasks[0]!.id]);
    expect(standalone.status).toBe('waiting');
    await t.drain();
    const look = new TaskStore(state.store);
    expect((await look.getJob(job.id))!.status).toBe('finished');
    expect((await look.getTask(standalone.id))!.status).toBe('finished');
    expect(t.ended.map((j) => j.id)).toEqual([job.id]);
  });

  it('ends the job in error when the dependant is cancelled while its input runs', async () => {
    const t = setup();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    t.deps.implementations = { ...implementations, 'import/raw': async () => (await held, { result: { files: [] }, credits: 0 }) };
    const { job, tasks } = await t.service.createJob(
      1,
      planJob({ tasks: { raw: { operation: 'import/raw', file: 'x', filename: 'x.txt' }, out: { operation: 'export/url', input: 'raw' } } }),
    );
    const raw = tasks.find((x) => x.name === 'raw')!;
    const out = tasks.find((x) => x.name === 'out')!;
    t.queue.sent.length = 0;
    const run = runTask(raw.id, t.deps);
    const look = new TaskStore(state.store);
    while ((await look.getTask(raw.id))?.status !== 'processing') await new Promise((r) => setTimeout(r, 20));
    await t.service.cancel((await look.getTask(out.id))!);
    expect((await look.getJob(job.id))!.status).toBe('processing');
    release();
    await run;
    const after = (await look.getJob(job.id))!;
    expect(after.status).toBe('error');
    expect(after.endedAt).toBeTruthy();
    expect(t.ended.map((j) => j.id)).toEqual([job.id]);
  });

  it('ends the job in error when the dependant is cancelled after it was queued', async () => {
    const t = setup();
    const { job, tasks } = await t.service.createJob(
      1,
      planJob({ tasks: { raw: { operation: 'import/raw', file: 'x', filename: 'x.txt' }, out: { operation: 'export/url', input: 'raw' } } }),
    );
    const raw = tasks.find((x) => x.name === 'raw')!;
    const out = tasks.find((x) => x.name === 'out')!;
    t.queue.sent.length = 0;
    await runTask(raw.id, t.deps);
    const look = new TaskStore(state.store);
    expect((await look.getTask(out.id))!.queuedAt).toBeTruthy();
    expect((await look.getJob(job.id))!.status).toBe('processing');
    await t.service.cancel((await look.getTask(out.id))!);
    // The cancelled task's message still arrives: it finds the task ended and changes nothing.
    await t.drain();
    const after = (await look.getJob(job.id))!;
    expect(after.status).toBe('error');
    expect((await look.getTask(out.id))!.code).toBe('CANCELLED');
    expect(t.ended.map((j) => j.id)).toEqual([job.id]);
  });
});
