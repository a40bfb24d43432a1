/**
 * Task and job views field by field against CloudConvert's recorded answers (the `cloudconvert` SDK's
 * tests/unit/responses): which fields a single task, a job's tasks and a list carry by default.
 */
import { describe, expect, it } from 'vitest';
import type { ShownLinks } from '#lib/file-api/tasks/links.js';
import type { JobRecord, TaskRecord } from '#lib/file-api/records/model.js';
import { jobView, parseInclude, singleTaskIncludes, taskView } from '#lib/file-api/tasks/views.js';
import { planJob } from '#lib/file-api/tasks/plan.js';
import { ApiError } from '#lib/kernel/errors.js';

const links: ShownLinks = { fileUrl: () => undefined, form: () => undefined } as unknown as ShownLinks;
const base = 'https://api.example.com';

const task = (over: Partial<TaskRecord>): TaskRecord =>
  ({
    pk: 'task#t', sk: 'task', id: 't', userId: 1, jobId: 'j', name: 'convert-1', operation: 'convert', step: 'process',
    status: 'finished', message: null, code: null, percent: 40, credits: 1, engine: 'ffmpeg', engineVersion: '6.1',
    payload: { input: ['import-1'], output_format: 'mp4', video_codec: 'x264' }, result: null,
    createdAt: '2026-01-01T00:00:00.000Z', startedAt: '2026-01-01T00:00:01.000Z', endedAt: '2026-01-01T00:00:02.000Z',
    expiresAt: 2e9, dependsOn: ['i'], ignoreError: false, timeoutSeconds: 60, retryOf: null, copyOf: null,
    ...over,
  }) as TaskRecord;
const input = task({ id: 'i', name: 'import-1', operation: 'import/url', dependsOn: [], payload: { url: 'https://example.com/a.mp4' } });

/** Fields every recorded task shows (task.json, job.json, job_finished.json), in our view too. */
const RECORDED_TASK_FIELDS = ['id', 'name', 'job_id', 'status', 'code', 'message', 'percent', 'operation', 'result', 'created_at', 'started_at', 'ended_at', 'retry_of_task_id', 'copy_of_task_id', 'host_name', 'storage', 'depends_on_task_ids', 'links'];

describe('a single task (task.json, task_created.json, upload_task_created.json)', () => {
  const view = taskView(task({}), { baseUrl: base, include: singleTaskIncludes(parseInclude(undefined)), links, related: new Map([['i', input]]) });

  it('carries retries and depends_on_tasks unasked, each dependency with its own fields', () => {
    expect(Object.keys(view)).toEqual(expect.arrayContaining([...RECORDED_TASK_FIELDS, 'retries', 'depends_on_tasks']));
    expect(view.retries).toEqual([]);
    expect(view.depends_on_tasks).toEqual([expect.objectContaining({ id: 'i', name: 'import-1', operation: 'import/url', depends_on_task_ids: [] })]);
  });

  it('carries no payload unless asked (CloudConvert since 2022), and the payload with include=payload', () => {
    expect(view).not.toHaveProperty('payload');
    const asked = taskView(task({}), { baseUrl: base, include: singleTaskIncludes(parseInclude('payload')), links, related: new Map() });
    expect(asked.payload).toEqual({ input: ['import-1'], output_format: 'mp4', video_codec: 'x264' });
  });
});

describe("a job's tasks (job.json, job_finished.json)", () => {
  const job = { id: 'j', userId: 1, tag: 'jobbuilder', status: 'finished', createdAt: '2026-01-01T00:00:00.000Z', startedAt: null, endedAt: null, expiresAt: 2e9, taskIds: ['i', 't'], webhookUrl: null } as unknown as JobRecord;
  const view = jobView(job, [input, task({})], { baseUrl: base, include: parseInclude('tasks'), links });

  it('carry the recorded fields, without retries, depends_on_tasks or payload', () => {
    for (const t of view.tasks as Array<Record<string, unknown>>) {
      expect(Object.keys(t)).toEqual(expect.arrayContaining(RECORDED_TASK_FIELDS));
      expect(t).not.toHaveProperty('retries');
      expect(t).not.toHaveProperty('depends_on_tasks');
      expect(t).not.toHaveProperty('payload');
    }
    expect(Object.keys(view)).toEqual(expect.arrayContaining(['id', 'tag', 'status', 'created_at', 'started_at', 'ended_at', 'tasks', 'links']));
  });
});

describe('percent', () => {
  it('is 100 on finished and failed tasks whatever the last progress report said, and the report while running', () => {
    const shown = (status: TaskRecord['status']) => taskView(task({ status, percent: 40 }), { baseUrl: base, include: new Set(), links }).percent;
    expect(shown('finished')).toBe(100);
    expect(shown('error')).toBe(100);
    expect(shown('processing')).toBe(40);
  });
});

describe('video_codec', () => {
  const job = (codec: string) => ({
    tasks: { in: { operation: 'import/url', url: 'https://example.com/a.mp4' }, out: { operation: 'convert', input: 'in', output_format: 'mp4', video_codec: codec } },
  });
  it.each(['x264', 'x265', 'h264', 'h265'])('accepts %s', (codec) => {
    expect(planJob(job(codec)).tasks.find((t) => t.name === 'out')!.payload.video_codec).toBe(codec);
  });
  it('refuses an unknown codec under its field, naming x264 and x265', () => {
    try {
      planJob(job('divx'));
      throw new Error('accepted');
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).fields!['tasks.out.video_codec']!.join(' ')).toMatch(/x264.*x265/);
    }
  });
});
