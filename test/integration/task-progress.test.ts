/**
 * A task's `percent` while it runs, with the real state store (dynalite) and object storage (s3rver):
 * what the runner writes, what the `onTaskUpdated` hook is given and in which order beside the run's end,
 * that a run which lost the task writes nothing; and FFmpeg's own progress on a real conversion.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { MediaArgs } from '#lib/engines/media/ffmpeg.js';
import { convertMedia } from '#lib/engines/media/convert.js';
import { createLogger } from '#lib/kernel/log.js';
import type { Implementation } from '#lib/file-api/operations/framework/types.js';
import type { TaskRecord } from '#lib/file-api/records/model.js';
import { planJob } from '#lib/file-api/tasks/plan.js';
import { runTask, type RunnerDeps } from '#lib/file-api/tasks/runner.js';
import { Scheduler } from '#lib/file-api/tasks/scheduler.js';
import type { TaskService } from '#lib/file-api/tasks/service.js';
import { TaskStore } from '#lib/file-api/records/store.js';
import { patternVideo } from '../fixtures/engine-fixtures.js';
import { engineCall } from '../support/engine-call.js';
import type { RecordingQueue } from '../support/recording-queue.js';
import { useTaskBackends, wireTasks, type TaskWiring } from '../support/task-harness.js';
import { engine, requires } from '../support/requires.js';
import { exportUrl } from '../support/operations.js';

const { state, files } = useTaskBackends();
let w: TaskWiring;
let queue: RecordingQueue;
let store: TaskStore;
let service: TaskService;
/** What the run announced, in order: each progress write (hook) and the task's end (scheduler). */
let events: string[];
const log = createLogger({}, { level: 'silent' });

beforeEach(() => {
  events = [];
  w = wireTasks({ state, files }, { log, scheduler: { onTaskEnded: async (t) => void events.push(`${t.status} ${t.percent}`) } });
  ({ queue, store, service } = w);
});

const deps = (implementation: Implementation, extra: Partial<RunnerDeps> = {}): RunnerDeps =>
  w.deps({ 'import/raw': implementation, 'export/url': exportUrl }, { onTaskUpdated: async (t) => void events.push(`updated ${t.percent} ${t.status}`), ...extra });

/** Resolves once `condition` holds, looking every 20 ms (the test's own timeout bounds it). */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 20));
}

async function importTask(): Promise<TaskRecord> {
  const { tasks } = await service.createJob(1, planJob({ tasks: { raw: { operation: 'import/raw', file: 'abc', filename: 'a.txt' } } }));
  return tasks[0]!;
}

describe('task progress through the runner', () => {
  it('announces the claim, writes the rising percent of a run, hands each written task to onTaskUpdated, and announces them all before the end', async () => {
    const task = await importTask();
    const seenInStore: number[] = [];
    const slow: Implementation = async (ctx) => {
      ctx.progress(0.3);
      await until(async () => (await store.getTask(task.id))?.percent === 30);
      seenInStore.push(30);
      ctx.progress(0.2); // lower: ignored
      ctx.progress(0.6);
      await until(() => events.includes('updated 60 processing'));
      ctx.progress(0.9);
      // Returns at once: 90 may not be written, and must not land or be announced after the end.
      return { result: { files: [] }, credits: 0 };
    };
    await runTask(task.id, deps(slow));
    expect(seenInStore).toEqual([30]);
    // The claim (the task starts processing at 0), then each progress write.
    expect(events.slice(0, 3)).toEqual(['updated 0 processing', 'updated 30 processing', 'updated 60 processing']);
    expect(events.at(-1)).toBe('finished 100');
    expect(events.filter((e) => e.startsWith('finished'))).toHaveLength(1);
    expect((await store.getTask(task.id))!.percent).toBe(100);
  });

  it('a run that no longer owns its task writes no percent (the write is conditional on its attempt)', async () => {
    const task = await importTask();
    const claimed = (await store.claim(task, 60))!;
    expect(await store.progress(task.id, claimed.attempt!, 40)).toMatchObject({ percent: 40, status: 'processing' });
    // Cancelled: the run's next write is refused and the stored percent stays.
    await store.fail(task.id, { code: 'CANCELLED', message: 'The task was cancelled.' }, { from: ['processing'] });
    expect(await store.progress(task.id, claimed.attempt!, 70)).toBeUndefined();
    // Taken over by a later run: the earlier attempt's write is refused as well.
    const other = await importTask();
    const first = (await store.claim(other, 60))!;
    await store.release(other.id, first.attempt!);
    const second = (await store.claim((await store.getTask(other.id))!, 60))!;
    expect(await store.progress(other.id, first.attempt!, 50)).toBeUndefined();
    expect(await store.progress(other.id, second.attempt!, 10)).toMatchObject({ percent: 10 });
    expect((await store.getTask(task.id))!).toMatchObject({ status: 'error', percent: 40 });
  });

  it('costs no state write for a task that ends within its first second', async () => {
    const task = await importTask();
    const quick: Implementation = async (ctx) => {
      for (let f = 0; f <= 1; f += 0.05) ctx.progress(f);
      return { result: { files: [] }, credits: 0 };
    };
    let writes = 0;
    class CountingStore extends TaskStore {
      override progress(id: string, attempt: number, percent: number) {
        writes++;
        return super.progress(id, attempt, percent);
      }
    }
    const counting = new CountingStore(state.store);
    await runTask(task.id, deps(quick, { store: counting, scheduler: new Scheduler({ store: counting, queue, log }) }));
    expect((await store.getTask(task.id))!).toMatchObject({ status: 'finished', percent: 100 });
    expect(writes).toBe(0);
    // Only the claim is announced: no progress update.
    expect(events).toEqual(['updated 0 processing']);
  });
});

const ffmpeg = requires(engine('ffmpeg'));

ffmpeg.describe('FFmpeg progress', () => {
  it('a conversion reports the time it has written over the input duration, rising, before it ends', async () => {
    // 8 s of a moving pattern to H.265: about two seconds of encoding, FFmpeg reporting twice a second.
    const { call, remove } = engineCall<MediaArgs>('ffmpeg', 'convert', { output_format: 'mp4', video_codec: 'h265', preset: 'medium' }, [
      { filename: 'pattern.mp4', data: patternVideo(8), format: 'mp4' },
    ]);
    const seen: number[] = [];
    try {
      await convertMedia({ ...call, progress: (f) => seen.push(f) });
    } finally {
      remove();
    }
    expect(seen.some((f) => f > 0 && f < 1)).toBe(true);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
  });
});
