/**
 * The Convert page's logic without a browser: the job a file becomes, the outputs offered from
 * discovery's rows, how task snapshots from events and polls merge, what a job's tasks amount to, the
 * words of a refused creation, and the follower that listens to a job's task events and polls it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { followJob, TASK_EVENTS } from '../../console/src/convert-follow.js';
import {
  convertJobRequest,
  creationErrorText,
  inputFormats,
  mergeTasks,
  outcomeOf,
  outputChoices,
  progressOf,
  type JobView,
  type OutputRow,
  type TaskView,
} from '../../console/src/convert-plan.js';

const task = (over: Partial<TaskView> & Pick<TaskView, 'id'>): TaskView => ({
  operation: 'convert',
  status: 'waiting',
  message: null,
  code: null,
  percent: 0,
  ...over,
});

const row = (output: string, group: string, engine = 'sharp', operation = 'convert'): OutputRow & { engine: string } => ({
  operation,
  output_format: output,
  engine,
  meta: { group },
});

describe('the job of one file', () => {
  it('is import/upload → convert (with the options) → export/url, each taking the one before', () => {
    const body = convertJobRequest('png', 'webp', { quality: 63, strip: false });
    expect(body.tasks).toEqual({
      upload: { operation: 'import/upload' },
      convert: { operation: 'convert', input: 'upload', input_format: 'png', output_format: 'webp', quality: 63, strip: false },
      export: { operation: 'export/url', input: 'convert' },
    });
  });

  it('lets no option replace the operation, its input or its formats', () => {
    const body = convertJobRequest('png', 'webp', { operation: 'capture-website', input: 'x', output_format: 'exe' });
    expect(body.tasks.convert).toMatchObject({ operation: 'convert', input: 'upload', output_format: 'webp' });
  });
});

describe('the outputs offered', () => {
  it('are one per format (its first row), grouped by family, in alphabetical order, convert rows only', () => {
    const groups = outputChoices([row('webp', 'image'), row('pdf', 'document'), row('avif', 'image'), row('webp', 'image', 'magick'), row('png', 'image', 'x', 'optimize')]);
    expect(groups.map((g) => [g.group, g.choices.map((c) => `${c.format}/${c.row.engine}`)])).toEqual([
      ['document', ['pdf/sharp']],
      ['image', ['avif/sharp', 'webp/sharp']],
    ]);
  });

  it('groups files by their input format in the order first chosen', () => {
    const extension = (name: string) => (name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '');
    expect(inputFormats(['a.PNG', 'b.jpg', 'c.png', 'README'], extension)).toEqual(['png', 'jpg', '']);
  });
});

describe('task snapshots', () => {
  it('keep the first order, add new tasks, and never take an ended task back to running', () => {
    const shown = [task({ id: 'u', operation: 'import/upload', status: 'finished', percent: 100 }), task({ id: 'c', status: 'processing', percent: 40 })];
    const late = [task({ id: 'c', status: 'processing', percent: 20 }), task({ id: 'u', operation: 'import/upload', status: 'waiting' }), task({ id: 'e', operation: 'export/url' })];
    const merged = mergeTasks(shown, late);
    expect(merged.map((t) => [t.id, t.status, t.percent])).toEqual([
      ['u', 'finished', 100],
      ['c', 'processing', 40],
      ['e', 'waiting', 0],
    ]);
    expect(mergeTasks(merged, [task({ id: 'c', status: 'error', message: 'bad', percent: 100 })])[1]).toMatchObject({ status: 'error', message: 'bad' });
  });

  it("show the upload's own progress on the import/upload bar until the task ends, and 100 once any task ends", () => {
    expect(progressOf(task({ id: 'u', operation: 'import/upload' }), 0.426)).toBe(43);
    expect(progressOf(task({ id: 'c', percent: 55 }), 0.9)).toBe(55);
    expect(progressOf(task({ id: 'c', status: 'error', percent: 10 }))).toBe(100);
  });
});

describe("a job's outcome", () => {
  it('is the first task that failed of its own (not one whose input failed) and no file', () => {
    const tasks = [
      task({ id: 'u', operation: 'import/upload', status: 'finished' }),
      task({ id: 'e', operation: 'export/url', status: 'error', code: 'INPUT_TASK_FAILED', message: 'Input task has failed' }),
      task({ id: 'c', status: 'error', code: 'INVALID_INPUT', message: 'The file is not a PNG' }),
    ];
    const outcome = outcomeOf(tasks);
    expect(outcome.ended).toBe(true);
    expect(outcome.failed?.id).toBe('c');
    expect(outcome.files).toEqual([]);
  });

  it("is the export's files once it finished, and not ended while a task waits", () => {
    const files = [{ filename: 'photo.webp', url: 'http://localhost/v2/files/1', size: 3 }];
    const exported = task({ id: 'e', operation: 'export/url', status: 'finished', result: { files } });
    expect(outcomeOf([task({ id: 'c', status: 'finished' }), exported])).toMatchObject({ ended: true, failed: undefined, files });
    expect(outcomeOf([task({ id: 'c', status: 'processing' }), exported]).ended).toBe(false);
    expect(outcomeOf([]).ended).toBe(false);
  });
});

describe('a refused creation', () => {
  it("says the API's message, then each field the message does not already name", () => {
    expect(
      creationErrorText({ message: 'The given data was invalid.', errors: { 'tasks.convert.quality': ['must be at most 100'] } }),
    ).toEqual(['The given data was invalid.', 'tasks.convert.quality: must be at most 100']);
    expect(creationErrorText({ message: 'tasks.convert.quality: must be at most 100', errors: { 'tasks.convert.quality': ['must be at most 100'] } })).toEqual([
      'tasks.convert.quality: must be at most 100',
    ]);
  });
});

describe('following a job', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const jobWith = (...tasks: TaskView[]): JobView => ({ id: 'j', status: 'processing', tasks });

  it("subscribes to the job's task channel, hands on each event's task, and stops listening once a poll finds every task ended", async () => {
    const handlers: Array<(data: unknown) => void> = [];
    const unsubscribe = vi.fn();
    const subscribe = vi.fn((_channel: string, _events: string[], handler: (data: unknown) => void) => {
      handlers.push(handler);
      return unsubscribe;
    });
    const polls = [jobWith(task({ id: 'c', status: 'processing' })), jobWith(task({ id: 'c', status: 'finished' }))];
    const fetchJob = vi.fn(async () => polls.shift()!);
    const seen: string[] = [];
    followJob('j', { fetchJob, subscribe, live: true, pollMs: { alone: 100, withEvents: 500 } }, (tasks, job) =>
      seen.push(`${job ? 'poll' : 'event'}:${tasks.map((t) => t.status).join(',')}`),
    );
    expect(subscribe).toHaveBeenCalledWith('private-job.j.tasks', TASK_EVENTS, expect.any(Function));
    handlers[0]!({ task: task({ id: 'c', status: 'processing', percent: 30 }) });
    handlers[0]!({ nothing: true });
    await vi.advanceTimersByTimeAsync(499);
    expect(fetchJob).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    await vi.advanceTimersByTimeAsync(500);
    expect(seen).toEqual(['event:processing', 'poll:processing', 'poll:finished']);
    expect(unsubscribe).toHaveBeenCalledOnce();
    await vi.advanceTimersByTimeAsync(5000);
    expect(fetchJob).toHaveBeenCalledTimes(2);
    handlers[0]!({ task: task({ id: 'c', status: 'finished' }) });
    expect(seen).toHaveLength(3);
  });

  it('polls alone, more often, where the stage has no live events; poke polls at once; a failed poll is reported and tried again', async () => {
    const subscribe = vi.fn(() => () => {});
    const answers: Array<JobView | Error> = [new Error('502'), jobWith(task({ id: 'c', status: 'finished' }))];
    const fetchJob = vi.fn(async () => {
      const next = answers.shift()!;
      if (next instanceof Error) throw next;
      return next;
    });
    const errors: unknown[] = [];
    const seen: TaskView[][] = [];
    const follower = followJob('j', { fetchJob, subscribe, live: false, pollMs: { alone: 100, withEvents: 500 } }, (tasks) => seen.push(tasks), (e) => errors.push(e));
    expect(subscribe).not.toHaveBeenCalled();
    follower.poke();
    await vi.advanceTimersByTimeAsync(0);
    expect(fetchJob).toHaveBeenCalledOnce();
    expect(errors).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(100);
    expect(seen).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fetchJob).toHaveBeenCalledTimes(2);
  });

  it('does nothing more once stopped', async () => {
    const fetchJob = vi.fn(async () => jobWith(task({ id: 'c' })));
    const follower = followJob('j', { fetchJob, subscribe: () => () => {}, live: false, pollMs: { alone: 100, withEvents: 500 } }, () => {});
    follower.stop();
    follower.poke();
    await vi.advanceTimersByTimeAsync(1000);
    expect(fetchJob).not.toHaveBeenCalled();
  });
});
