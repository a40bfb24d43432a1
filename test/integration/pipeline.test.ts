/**
 * The pipeline's guarantees under at-least-once delivery, with the real state store (dynalite) and
 * object storage (s3rver): duplicate deliveries, parents finishing together, a crashed consumer,
 * cancellation and timeouts. The queue is a recording stand-in: these tests deliver by hand.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '#lib/kernel/log.js';
import { archive, exportUrl, importStaged, untilAborted } from '../support/operations.js';
import { TaskFailure, type Implementation } from '#lib/file-api/operations/framework/types.js';
import { planJob } from '#lib/file-api/tasks/plan.js';
import { runTask, type RunnerDeps } from '#lib/file-api/tasks/runner.js';
import type { Scheduler } from '#lib/file-api/tasks/scheduler.js';
import { TaskService } from '#lib/file-api/tasks/service.js';
import type { TaskStore } from '#lib/file-api/records/store.js';
import { sweep } from '#lib/file-api/tasks/sweeper.js';
import { watchAt } from '#lib/file-api/records/model.js';
import { deleteExpired } from '../../local/expiry.js';
import type { RecordingQueue } from '../support/recording-queue.js';
import { useTaskBackends, wireTasks, type TaskWiring } from '../support/task-harness.js';

const { state, files } = useTaskBackends();
let w: TaskWiring;
let queue: RecordingQueue;
let store: TaskStore;
let scheduler: Scheduler;
let service: TaskService;
const log = createLogger({}, { level: 'silent' });

beforeEach(() => {
  w = wireTasks({ state, files }, { log });
  ({ queue, store, scheduler, service } = w);
});

const deps = (implementations: Record<string, Implementation>, extra: Partial<RunnerDeps> = {}): RunnerDeps =>
  w.deps(implementations, { requeue: (task, delaySeconds) => queue.send(task.step, { taskId: task.id }, { delaySeconds }), ...extra });

const steps = { 'import/raw': importStaged, 'export/url': exportUrl, archive };

describe('the pipeline under at-least-once delivery', () => {
  it('runs a task once when its message is delivered twice at the same time', async () => {
    const { tasks } = await service.createJob(1, planJob({
      tasks: {
        raw: { operation: 'import/raw', file: 'abc', filename: 'a.txt' },
        out: { operation: 'export/url', input: 'raw' },
      },
    }));
    const [first] = queue.take('import');
    expect(first?.message.taskId).toBe(tasks[0]!.id);
    await Promise.all([runTask(first!.message.taskId, deps(steps)), runTask(first!.message.taskId, deps(steps))]);
    const raw = await store.getTask(tasks[0]!.id);
    expect(raw).toMatchObject({ status: 'finished', attempt: 1 });
    // The export is queued exactly once, although both deliveries saw the import end.
    expect(queue.take('export')).toHaveLength(1);
    // A late third delivery may send the export's message again (recovery after a crash), but the
    // export still runs once.
    await runTask(tasks[0]!.id, deps(steps));
    const exports = queue.take('export');
    expect(exports.length).toBeLessThanOrEqual(1);
    for (const m of [...exports, ...exports]) await runTask(m.message.taskId, deps(steps));
    expect(await store.getTask(tasks[1]!.id)).toMatchObject({ status: 'finished', attempt: 1 });
  });

  it('starts a task once when its two inputs finish together', async () => {
    const { tasks } = await service.createJob(1, planJob({
      tasks: {
        a: { operation: 'import/raw', file: 'A', filename: 'a.txt' },
        b: { operation: 'import/raw', file: 'B', filename: 'b.txt' },
        zip: { operation: 'archive', input: ['a', 'b'], output_format: 'zip' },
      },
    }));
    const imports = queue.take('import');
    expect(imports).toHaveLength(2);
    await Promise.all(imports.map((m) => runTask(m.message.taskId, deps(steps))));
    const processing = queue.take('process');
    expect(processing).toHaveLength(1);
    await runTask(processing[0]!.message.taskId, deps(steps));
    const zip = await store.getTask(tasks.find((t) => t.name === 'zip')!.id);
    expect(zip?.status).toBe('finished');
    expect(zip?.result?.files?.[0]?.filename).toBe('archive.zip');
    const job = await store.getJob(tasks[0]!.jobId!);
    expect(job?.status).toBe('finished');
  });

  it('takes over from a consumer that died, once its lease has run out', async () => {
    const task = await service.createTask(1, (await import('#lib/file-api/operations/index.js')).operationDefinition('import/raw')!, {
      operation: 'import/raw',
      file: 'x',
      filename: 'x.txt',
    }, []);
    queue.take('import');
    const current = (await store.getTask(task.id))!;
    // A first consumer claimed it and vanished (no heartbeat, no end).
    expect(await store.claim(current, 30)).toBeDefined();
    // Redelivered while the lease is live: looked at again later, not run twice.
    await runTask(task.id, deps(steps));
    const later = queue.take('import');
    expect(later).toHaveLength(1);
    expect(later[0]!.delaySeconds).toBeGreaterThan(25);
    // Once the lease has run out, the next delivery runs it.
    await state.store.update({ pk: `task#${task.id}`, sk: 'task' }, { set: { leaseUntil: 1 } });
    await runTask(task.id, deps(steps));
    expect(await store.getTask(task.id)).toMatchObject({ status: 'finished', attempt: 2 });
  });

  it('stops a run that is cancelled and keeps the cancellation', async () => {
    const slow = untilAborted();
    const task = await service.createTask(1, (await import('#lib/file-api/operations/index.js')).operationDefinition('import/raw')!, {
      operation: 'import/raw',
      file: 'x',
      filename: 'x.txt',
    }, []);
    const run = runTask(task.id, deps({ 'import/raw': slow.implementation }, { leaseSeconds: 3 }));
    await slow.started;
    await service.cancel((await store.getTask(task.id))!);
    await run;
    expect(await store.getTask(task.id)).toMatchObject({ status: 'error', code: 'CANCELLED' });
  });

  it('ends a task that runs past its timeout with TIMEOUT', async () => {
    const never: Implementation = () => new Promise(() => {});
    const task = await service.createTask(1, (await import('#lib/file-api/operations/index.js')).operationDefinition('import/raw')!, {
      operation: 'import/raw',
      file: 'x',
      filename: 'x.txt',
      timeout: 1,
    }, []);
    await runTask(task.id, deps({ 'import/raw': never }));
    expect(await store.getTask(task.id)).toMatchObject({ status: 'error', code: 'TIMEOUT' });
  });

  it('cuts a task\'s timeout to what its step function can run', async () => {
    const capped = new TaskService({ store, scheduler, files: files.files, log, maxTaskSeconds: 885 });
    const spec = (await import('#lib/file-api/operations/index.js')).operationDefinition('import/raw')!;
    const long = await capped.createTask(1, spec, { operation: 'import/raw', file: 'x', filename: 'x.txt', timeout: 5 * 3600 }, []);
    const unset = await capped.createTask(1, spec, { operation: 'import/raw', file: 'x', filename: 'x.txt' }, []);
    const short = await capped.createTask(1, spec, { operation: 'import/raw', file: 'x', filename: 'x.txt', timeout: 60 }, []);
    expect([long, unset, short].map((t) => t.timeoutSeconds)).toEqual([885, 885, 60]);
  });

  it('ends a task with TIMEOUT, once, before the invocation running it ends', async () => {
    const never: Implementation = () => new Promise(() => {});
    const task = await service.createTask(1, (await import('#lib/file-api/operations/index.js')).operationDefinition('import/raw')!, {
      operation: 'import/raw',
      file: 'x',
      filename: 'x.txt',
    }, []);
    const started = Date.now();
    // The invocation ends in 11.5 s; the runner keeps 10 s to record the outcome, so it stops after ~1.5 s.
    await runTask(task.id, deps({ 'import/raw': never }, { deadlineMs: started + 11_500 }));
    const ended = await store.getTask(task.id);
    expect(ended).toMatchObject({ status: 'error', code: 'TIMEOUT', attempt: 1 });
    expect(ended!.message).toMatch(/did not finish within the \d+ seconds its step could run/);
    expect(Date.now() - started).toBeLessThan(5000);
    // A later delivery of the same message finds the task ended and does not run it again.
    await runTask(task.id, deps({ 'import/raw': never }));
    expect(await store.getTask(task.id)).toMatchObject({ status: 'error', code: 'TIMEOUT', attempt: 1 });
  });

  it('ends a task whose result would not fit in its record with TOO_MANY_FILES, and stores nothing broken', async () => {
    const prolific: Implementation = async () => ({
      result: { files: Array.from({ length: 3000 }, (_, i) => ({ filename: `page-${String(i).padStart(5, '0')}-${'x'.repeat(60)}.png`, size: 1000, md5: 'd41d8cd98f00b204e9800998ecf8427e' })) },
    });
    const task = await service.createTask(1, (await import('#lib/file-api/operations/index.js')).operationDefinition('import/raw')!, {
      operation: 'import/raw',
      file: 'x',
      filename: 'x.txt',
    }, []);
    await runTask(task.id, deps({ 'import/raw': prolific }));
    const ended = await store.getTask(task.id);
    expect(ended).toMatchObject({ status: 'error', code: 'TOO_MANY_FILES', result: null });
    expect(ended!.message).toMatch(/made 3000 files/);
  });

  it('retries retryable failures through the queue and ends others at once', async () => {
    let calls = 0;
    const flaky: Implementation = async (ctx) => {
      calls++;
      if (calls === 1) throw new TaskFailure('DOWNLOAD_FAILED', 'connection reset', true);
      return importStaged(ctx);
    };
    const task = await service.createTask(1, (await import('#lib/file-api/operations/index.js')).operationDefinition('import/raw')!, {
      operation: 'import/raw',
      file: 'x',
      filename: 'x.txt',
    }, []);
    await expect(runTask(task.id, deps({ 'import/raw': flaky }))).rejects.toThrow('connection reset');
    // The lease was given back: the redelivery runs at once.
    await runTask(task.id, deps({ 'import/raw': flaky }));
    expect(await store.getTask(task.id)).toMatchObject({ status: 'finished', attempt: 2 });

    const broken: Implementation = async () => {
      throw new TaskFailure('DOWNLOAD_FAILED', 'HTTP 404', false);
    };
    const other = await service.createTask(1, (await import('#lib/file-api/operations/index.js')).operationDefinition('import/raw')!, {
      operation: 'import/raw',
      file: 'x',
      filename: 'x.txt',
    }, []);
    await runTask(other.id, deps({ 'import/raw': broken }));
    expect(await store.getTask(other.id)).toMatchObject({ status: 'error', code: 'DOWNLOAD_FAILED', message: 'HTTP 404' });
  });

  it('sweeps abandoned runs from the index of tasks under way: past their timeout they end, otherwise they start again', async () => {
    const spec = (await import('#lib/file-api/operations/index.js')).operationDefinition('import/raw')!;
    const make = (extra: Record<string, unknown> = {}) =>
      service.createTask(1, spec, { operation: 'import/raw', file: 'x', filename: 'x.txt', ...extra }, []);
    const stuck = await make({ timeout: 60 });
    const lost = await make();
    const forgotten = await make();
    const healthy = await make();
    queue.take('import');
    for (const t of [stuck, lost, healthy]) await store.claim((await store.getTask(t.id))!, 30);
    const key = (id: string) => ({ pk: `task#${id}`, sk: 'task' });
    const hourAgo = new Date(Date.now() - 3600_000).toISOString();
    await state.store.update(key(stuck.id), { set: { leaseUntil: 5, gsi2sk: watchAt(5), startedAt: hourAgo } });
    await state.store.update(key(lost.id), { set: { leaseUntil: 5, gsi2sk: watchAt(5) } });
    // Queued an hour ago and never claimed: its message was lost.
    await state.store.update(key(forgotten.id), { set: { queuedAt: hourAgo, gsi2sk: watchAt(Date.parse(hourAgo) / 1000) } });

    const swept = await sweep({ store, scheduler, queue, log, graceSeconds: 60 });
    expect(swept).toEqual({ timedOut: 1, requeued: 2 });
    expect(await store.getTask(stuck.id)).toMatchObject({ status: 'error', code: 'TIMEOUT' });
    expect(queue.take('import').map((m) => m.message.taskId).sort()).toEqual([lost.id, forgotten.id].sort());
    // An ended task leaves the index: the next sweep does not see it again.
    expect((await sweep({ store, scheduler, queue, log, graceSeconds: 60 })).timedOut).toBe(0);
  });

  it('sweeps in batches of ten a queue, and a sweep that reaches its deadline leaves the rest to the next one', async () => {
    const spec = (await import('#lib/file-api/operations/index.js')).operationDefinition('import/raw')!;
    const tasks = [];
    for (let i = 0; i < 12; i++) tasks.push(await service.createTask(1, spec, { operation: 'import/raw', file: 'x', filename: `f${i}.txt` }, []));
    queue.take('import');
    const hourAgo = new Date(Date.now() - 3600_000).toISOString();
    for (const t of tasks) await state.store.update({ pk: `task#${t.id}`, sk: 'task' }, { set: { queuedAt: hourAgo, gsi2sk: watchAt(Date.parse(hourAgo) / 1000) } });

    // Its deadline already passed: it sends nothing, and every task stays in the index.
    expect(await sweep({ store, scheduler, queue, log, graceSeconds: 60, stopAt: Date.now() - 1 })).toEqual({ timedOut: 0, requeued: 0 });
    expect(queue.take('import')).toEqual([]);

    // The next one sends them all (with any task an earlier test left under way), ten to a request.
    const batches = vi.spyOn(queue, 'sendMany');
    const { requeued } = await sweep({ store, scheduler, queue, log, graceSeconds: 60 });
    expect(requeued).toBeGreaterThanOrEqual(12);
    const sizes = batches.mock.calls.map(([name, messages]) => [name, messages.length]);
    expect(sizes).toEqual([...Array(Math.floor(requeued / 10)).fill(['import', 10]), ...(requeued % 10 ? [['import', requeued % 10]] : [])]);
    expect(queue.take('import').map((m) => m.message.taskId)).toEqual(expect.arrayContaining(tasks.map((t) => t.id)));
    batches.mockRestore();
  });

  it('deletes expired jobs and tasks with their files where the backends have no TTL (local platform)', async () => {
    const spec = (await import('#lib/file-api/operations/index.js')).operationDefinition('import/raw')!;
    const old = await service.createTask(1, spec, { operation: 'import/raw', file: 'x', filename: 'x.txt' }, []);
    const fresh = await service.createTask(1, spec, { operation: 'import/raw', file: 'y', filename: 'y.txt' }, []);
    await state.store.update({ pk: `task#${old.id}`, sk: 'task' }, { set: { expiresAt: 5 } });
    expect(await files.files.list(`tasks/${old.id}/`)).toHaveLength(1);

    expect(await deleteExpired({ state: state.store, files: files.files })).toBeGreaterThanOrEqual(1);
    expect(await state.store.scan({ filter: { equals: { id: old.id } } })).toMatchObject({ items: [] });
    expect(await files.files.list(`tasks/${old.id}/`)).toHaveLength(0);
    expect(await store.getTask(fresh.id)).toBeDefined();
    expect(await files.files.list(`tasks/${fresh.id}/`)).toHaveLength(1);
  });
});
