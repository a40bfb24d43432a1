/** The console's Jobs logic (console/src/jobs-model.ts): merging live events, task order, a row's figures, the JSON. */
import { describe, expect, it } from 'vitest';
import {
  applyJobEvent,
  applyTaskEvent,
  canCancel,
  canRetry,
  changeOf,
  creditsOf,
  downloadsOf,
  durationText,
  enginesOf,
  formatDuration,
  jobJson,
  jobLabel,
  mergeJob,
  operationsOf,
  orderTasks,
  summaryOf,
  type JobView,
  type TaskView,
} from '../../console/src/jobs-model.js';

const task = (id: string, over: Partial<TaskView> = {}): TaskView => ({
  id,
  name: id,
  job_id: 'j1',
  operation: 'convert',
  status: 'waiting',
  created_at: '2026-01-01T00:00:00+00:00',
  depends_on_task_ids: [],
  ...over,
});
const job = (id: string, created: string, over: Partial<JobView> = {}): JobView => ({ id, tag: null, status: 'processing', created_at: created, tasks: [], ...over });

describe('orderTasks', () => {
  it('puts each task after those it depends on, whatever order the API listed them in', () => {
    const tasks = [
      task('out', { depends_on_task_ids: ['convert'] }),
      task('convert', { depends_on_task_ids: ['file'] }),
      task('file'),
    ];
    expect(orderTasks(tasks).map((t) => t.id)).toEqual(['file', 'convert', 'out']);
  });

  it('orders independent tasks by creation, then as listed; dependencies outside the job are ignored', () => {
    const tasks = [
      task('b', { created_at: '2026-01-01T00:00:02+00:00' }),
      task('a', { created_at: '2026-01-01T00:00:01+00:00', depends_on_task_ids: ['elsewhere'] }),
      task('c', { created_at: '2026-01-01T00:00:02+00:00' }),
      task('merge', { created_at: '2026-01-01T00:00:00+00:00', depends_on_task_ids: ['c', 'a'] }),
    ];
    expect(orderTasks(tasks).map((t) => t.id)).toEqual(['a', 'b', 'c', 'merge']);
  });

  it('keeps every task of a cycle (which the API never makes), in creation order', () => {
    const tasks = [task('x', { depends_on_task_ids: ['y'] }), task('y', { depends_on_task_ids: ['x'] })];
    expect(orderTasks(tasks).map((t) => t.id)).toEqual(['x', 'y']);
  });
});

describe('live events on the list', () => {
  const view = { firstPage: true, limit: 3 };
  const list = [job('new', '2026-01-01T00:00:03+00:00'), job('old', '2026-01-01T00:00:01+00:00')];

  it('a new job goes in newest first, and the list keeps its size', () => {
    const after = applyJobEvent(list, job('mid', '2026-01-01T00:00:02+00:00'), view);
    expect(after.map((j) => j.id)).toEqual(['new', 'mid', 'old']);
    const full = applyJobEvent(after, job('newest', '2026-01-01T00:00:04+00:00'), view);
    expect(full.map((j) => j.id)).toEqual(['newest', 'new', 'mid']);
  });

  it('a new job does not go on a later page, nor into a list filtered to another status', () => {
    expect(applyJobEvent(list, job('x', '2026-01-01T00:00:09+00:00'), { ...view, firstPage: false })).toBe(list);
    expect(applyJobEvent(list, job('x', '2026-01-01T00:00:09+00:00', { status: 'error' }), { ...view, status: 'finished' })).toBe(list);
  });

  it('a known job is updated in place, and leaves a filtered list it no longer matches', () => {
    const updated = applyJobEvent(list, { id: 'old', status: 'finished' }, view);
    expect(updated.map((j) => [j.id, j.status])).toEqual([
      ['new', 'processing'],
      ['old', 'finished'],
    ]);
    expect(updated[1]!.created_at).toBe('2026-01-01T00:00:01+00:00');
    expect(applyJobEvent(list, { id: 'old', status: 'finished' }, { ...view, status: 'processing' }).map((j) => j.id)).toEqual(['new']);
  });

  it('a task event updates its job’s task (a small frame keeps the fields it lacks), and other tasks change nothing', () => {
    const withTask = [job('j1', '2026-01-01T00:00:00+00:00', { tasks: [task('t', { engine: 'vips', credits: 1 })] })];
    const after = applyTaskEvent(withTask, { id: 't', job_id: 'j1', operation: 'convert', status: 'finished', percent: 100 });
    expect(after[0]!.tasks![0]).toMatchObject({ status: 'finished', percent: 100, engine: 'vips', credits: 1 });
    expect(applyTaskEvent(withTask, task('other', { job_id: 'elsewhere' }))).toBe(withTask);
  });

  it('mergeJob merges tasks by id and adds new ones', () => {
    const merged = mergeJob(job('j', 'x', { tasks: [task('a', { engine: 'vips' })] }), { id: 'j', status: 'finished', tasks: [task('a', { status: 'finished' }), task('b')] });
    expect(merged.tasks!.map((t) => [t.id, t.status, t.engine])).toEqual([
      ['a', 'finished', 'vips'],
      ['b', 'waiting', undefined],
    ]);
  });
});

describe('a row’s figures', () => {
  const done = job('0123456789abcdef', '2026-01-01T00:00:00+00:00', {
    status: 'finished',
    started_at: '2026-01-01T00:00:01+00:00',
    ended_at: '2026-01-01T00:03:06+00:00',
    tasks: [
      task('out', { operation: 'export/url', depends_on_task_ids: ['c'], credits: 0, engine: null }),
      task('c', { operation: 'convert', depends_on_task_ids: ['f'], credits: 2, engine: 'vips' }),
      task('f', { operation: 'import/base64', credits: null, engine: null }),
      task('c2', { operation: 'convert', depends_on_task_ids: ['f'], credits: 1, engine: 'imagemagick' }),
    ],
  });

  it('operations and engines in the tasks’ order, each once; credits summed', () => {
    expect(operationsOf(done)).toEqual(['import/base64', 'convert', 'export/url']);
    expect(enginesOf(done)).toEqual(['vips', 'imagemagick']);
    expect(creditsOf(done)).toBe(3);
    expect(creditsOf(job('j', 'x', { tasks: [task('a')] }))).toBeUndefined();
  });

  it('duration: ended − started, running while it runs, a dash before', () => {
    expect(durationText(done)).toBe('3 min 5 s');
    expect(durationText({ status: 'processing', started_at: '2026-01-01T00:00:01+00:00' })).toBe('running');
    expect(durationText({ status: 'waiting' })).toBe('—');
    expect(formatDuration(400)).toBe('0.4 s');
    expect(formatDuration(9_940)).toBe('9.9 s');
    expect(formatDuration(9_960)).toBe('10 s');
    expect(formatDuration(59_000)).toBe('59 s');
    expect(formatDuration(120_000)).toBe('2 min');
    expect(formatDuration(3_725_000)).toBe('1 h 2 min');
  });

  it('labels: the tag, or the start of the id', () => {
    expect(jobLabel(done)).toBe('01234567');
    expect(jobLabel({ ...done, tag: 'mine' })).toBe('mine');
  });

  it('the summary line counts jobs by status, and the change says what happened', () => {
    expect(summaryOf([])).toBe('No jobs.');
    expect(summaryOf([done, job('p', 'x')])).toBe('2 jobs: 1 processing, 1 finished.');
    expect(changeOf(undefined, done)).toBe('New job 01234567 (finished).');
    expect(changeOf({ ...done, status: 'processing' }, { ...done, status: 'error' })).toBe('Job 01234567 failed.');
    expect(changeOf(done, done)).toBeUndefined();
  });
});

describe('a job’s page', () => {
  it('Retry for failed tasks except those whose file came with the request; Cancel for tasks not ended', () => {
    expect(canRetry(task('a', { status: 'error', operation: 'convert' }))).toBe(true);
    expect(canRetry(task('a', { status: 'error', operation: 'import/url' }))).toBe(true);
    for (const operation of ['import/upload', 'import/base64', 'import/raw']) expect(canRetry(task('a', { status: 'error', operation }))).toBe(false);
    expect(canRetry(task('a', { status: 'finished' }))).toBe(false);
    expect([canCancel(task('a', { status: 'waiting' })), canCancel(task('a', { status: 'processing' })), canCancel(task('a', { status: 'error' }))]).toEqual([true, true, false]);
  });

  it('downloads: the files of finished export tasks that carry a URL', () => {
    const tasks = [
      task('out', { operation: 'export/url', status: 'finished', result: { files: [{ filename: 'a.webp', url: 'http://x/a' }, { filename: 'b.webp' }] } }),
      task('s3', { operation: 'export/s3', status: 'error', result: { files: [{ filename: 'c', url: 'http://x/c' }] } }),
      task('c', { operation: 'convert', status: 'finished', result: { files: [{ filename: 'd', url: 'http://x/d' }] } }),
    ];
    expect(downloadsOf(tasks).map((d) => [d.task.id, d.file.filename])).toEqual([['out', 'a.webp']]);
  });

  it('the JSON hides payloads unless given, and then shows the ones fetched', () => {
    const j = job('j', 'x', { tasks: [task('a', { payload: { secret: 1 } }), task('b')] });
    const hidden = JSON.parse(jobJson(j)) as { tasks: Array<Record<string, unknown>> };
    expect(hidden.tasks.map((t) => 'payload' in t)).toEqual([false, false]);
    const shown = JSON.parse(jobJson(j, new Map([['a', { output_format: 'webp' }]]))) as { tasks: Array<Record<string, unknown>> };
    expect(shown.tasks.map((t) => t.payload)).toEqual([{ output_format: 'webp' }, undefined]);
  });
});
