/**
 * Tasks that need no engine run in the invocation that makes them ready (lib/file-api/tasks/inline.ts),
 * through the queued runs' claim, lease and end: at creation, and after a step ends their input. On
 * dynalite and s3rver, with the recording queue standing for SQS.
 */
import { describe, expect, it } from 'vitest';
import type { Implementation } from '#lib/file-api/operations/framework/types.js';
import { INLINE_IMPLEMENTATIONS } from '#lib/file-api/operations/inline-runs.js';
import { OPERATIONS } from '#lib/file-api/operations/index.js';
import { inlineRuns } from '#lib/file-api/tasks/inline.js';
import { planJob } from '#lib/file-api/tasks/plan.js';
import { runTask } from '#lib/file-api/tasks/runner.js';
import { sweep } from '#lib/file-api/tasks/sweeper.js';
import type { Item, ItemKey } from '#lib/adapters/state/port.js';
import { useTaskBackends, wireTasks } from '../support/task-harness.js';
import { observedState } from '../support/observed-state.js';
import { exportUrl } from '../support/operations.js';

const { state, files } = useTaskBackends();

const rawToUrl = (file = 'hello') => planJob({ tasks: { raw: { operation: 'import/raw', file, filename: 'a.txt' }, out: { operation: 'export/url', input: 'raw' } } });
const named = (tasks: { name?: string; id: string }[], name: string) => tasks.find((t) => t.name === name)!.id;

describe('inline runs', () => {
  it('lists every operation whose definition says inline, and only those', () => {
    const declared = OPERATIONS.filter((d) => 'inline' in d && d.inline).flatMap((d) => [d.name, ...(('aliases' in d && d.aliases) || [])]);
    expect(Object.keys(INLINE_IMPLEMENTATIONS).sort()).toEqual([...declared].sort());
    expect(declared).toEqual(expect.arrayContaining(['import/raw', 'import/base64', 'export/url']));
  });

  it('ends a job of tasks that need no engine before createJob returns, with no message sent', async () => {
    const wiring = wireTasks({ state, files });
    const inline = inlineRuns(wiring.deps(INLINE_IMPLEMENTATIONS));
    const { job, tasks } = await wiring.service.createJob(1, rawToUrl(), undefined, {}, inline);
    expect(wiring.queue.sent).toEqual([]);
    expect((await wiring.store.getJob(job.id))!.status).toBe('finished');
    const out = (await wiring.store.getTask(named(tasks, 'out')))!;
    expect(out).toMatchObject({ status: 'finished', attempt: 1 });
    expect(out.result?.files?.[0]).toMatchObject({ filename: 'a.txt', size: 5 });
    expect((await wiring.files.get(`tasks/${out.id}/a.txt`)).body).toBeDefined();
  });

  it('leaves a ZIP of the inputs (export/url with archive_multiple_files) to the export queue', async () => {
    const wiring = wireTasks({ state, files });
    const plan = planJob({
      tasks: {
        a: { operation: 'import/raw', file: 'a', filename: 'a.txt' },
        b: { operation: 'import/raw', file: 'b', filename: 'b.txt' },
        out: { operation: 'export/url', input: ['a', 'b'], archive_multiple_files: true },
      },
    });
    const { job, tasks } = await wiring.service.createJob(1, plan, undefined, {}, inlineRuns(wiring.deps(INLINE_IMPLEMENTATIONS)));
    expect(wiring.queue.sent.map((m) => [m.queue, m.message.taskId])).toEqual([['export', named(tasks, 'out')]]);
    await wiring.drain({ 'export/url': exportUrl });
    expect((await wiring.store.getTask(named(tasks, 'out')))!.result?.files?.map((f) => f.filename)).toEqual(['archive.zip']);
    expect((await wiring.store.getJob(job.id))!.status).toBe('finished');
  });

  it('queues what needs an engine and runs the export/url after it in the step that ended its input', async () => {
    const wiring = wireTasks({ state, files });
    const archive: Implementation = async (ctx) => ({ result: { files: [await ctx.save('a.zip', Buffer.from('zip'))] }, credits: 0 });
    const plan = planJob({
      tasks: {
        raw: { operation: 'import/raw', file: 'x', filename: 'x.txt' },
        zip: { operation: 'archive', input: 'raw', output_format: 'zip' },
        out: { operation: 'export/url', input: 'zip' },
      },
    });
    const deps = wiring.deps({ archive, ...INLINE_IMPLEMENTATIONS });
    const { job, tasks } = await wiring.service.createJob(1, plan, undefined, {}, inlineRuns(deps));
    // The import ran at creation; the archive is queued for its process function.
    expect(wiring.queue.sent.map((m) => m.message.taskId)).toEqual([named(tasks, 'zip')]);
    wiring.queue.sent.length = 0;
    await runTask(named(tasks, 'zip'), { ...deps, inline: inlineRuns(deps) });
    expect(wiring.queue.sent).toEqual([]);
    expect((await wiring.store.getTask(named(tasks, 'out')))!.result?.files?.[0]?.filename).toBe('a.zip');
    expect((await wiring.store.getJob(job.id))!.status).toBe('finished');
  });

  it('runs a task that two callers found ready at once only once, and none that was queued already', async () => {
    const wiring = wireTasks({ state, files });
    const { tasks } = await wiring.service.createJob(1, rawToUrl());
    let runs = 0;
    const counting: Implementation = async (ctx) => (runs++, exportUrl(ctx));
    const inline = inlineRuns(wiring.deps({ ...INLINE_IMPLEMENTATIONS, 'export/url': counting }));
    const raw = (await wiring.store.getTask(named(tasks, 'raw')))!;
    // The import was queued at creation: a caller that finds it ready later does not run it.
    await inline.run(raw, []);
    expect((await wiring.store.getTask(raw.id))!.status).toBe('waiting');
    await runTask(raw.id, wiring.deps(INLINE_IMPLEMENTATIONS));
    const finished = (await wiring.store.getTask(raw.id))!;
    // As if two parents had just finished: the export is ready and not queued yet.
    const outId = named(tasks, 'out');
    await wiring.store.state.update({ pk: `task#${outId}`, sk: 'task' }, { remove: ['queuedAt'] });
    const out = (await wiring.store.getTask(outId))!;
    await Promise.all([inline.run(out, [finished]), inline.run(out, [finished])]);
    expect(runs).toBe(1);
    expect((await wiring.store.getTask(outId))!).toMatchObject({ status: 'finished', attempt: 1 });
  });

  it('leaves a run whose invocation died to the sweeper, which queues it again once its lease lapsed', async () => {
    const wiring = wireTasks({ state, files });
    const hung: Implementation = () => new Promise(() => {});
    const inline = inlineRuns(wiring.deps({ ...INLINE_IMPLEMENTATIONS, 'import/raw': hung }, { leaseSeconds: 30 }));
    // A user of its own: its tasks are the only ones listed.
    void wiring.service.createJob(77, rawToUrl(), undefined, {}, inline);
    let raw;
    for (const deadline = Date.now() + 30_000; !raw && Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
      raw = (await wiring.store.listTasks(77, { limit: 10 })).items.find((t) => t.operation === 'import/raw' && t.status === 'processing');
    }
    if (!raw) throw new Error('the inline run never claimed its task');
    expect(raw.queuedAt).toBeTruthy();
    expect(wiring.queue.sent).toEqual([]);
    // Nothing to sweep while the lease holds; once it has lapsed (and the grace after it), the task is queued.
    const later = Date.now() + 60_000;
    await sweep({ store: wiring.store, scheduler: wiring.scheduler, queue: wiring.queue, log: wiring.log, graceSeconds: 20 }, later);
    expect(wiring.queue.sent.filter((m) => m.message.taskId === raw.id).map((m) => m.queue)).toEqual(['import']);
  });

  it('sends a task whose inline run failed for a passing reason to its queue, and its parent ends as usual', async () => {
    const wiring = wireTasks({ state, files });
    const flaky: Implementation = async () => {
      throw new Error('storage unreachable');
    };
    const inline = inlineRuns(wiring.deps({ ...INLINE_IMPLEMENTATIONS, 'export/url': flaky }));
    const { job, tasks } = await wiring.service.createJob(1, rawToUrl(), undefined, {}, inline);
    expect((await wiring.store.getTask(named(tasks, 'raw')))!.status).toBe('finished');
    expect(wiring.queue.sent.map((m) => [m.queue, m.message.taskId])).toEqual([['export', named(tasks, 'out')]]);
    await wiring.drain({ 'export/url': exportUrl });
    expect((await wiring.store.getJob(job.id))!.status).toBe('finished');
  });

  it('claims a waiting task without reading it first', async () => {
    const reads: string[] = [];
    const counted = observedState(state.store, (method, args) => {
      if (method === 'get') reads.push((args[0] as ItemKey).pk);
      if (method === 'getMany') reads.push(...(args[0] as Item[]).map((k) => k.pk));
    });
    const wiring = wireTasks({ state, files }, { state: counted });
    const { tasks } = await wiring.service.createJob(1, rawToUrl());
    reads.length = 0;
    await runTask(named(tasks, 'raw'), wiring.deps(INLINE_IMPLEMENTATIONS));
    expect(reads.filter((pk) => pk === `task#${named(tasks, 'raw')}`)).toEqual([]);
    expect((await wiring.store.getTask(named(tasks, 'raw')))!.status).toBe('finished');
  });
});
