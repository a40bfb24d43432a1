/**
 * Our task answers against the field sets of CloudConvert's recorded answers (test/fixtures/recorded-answers.ts):
 * the sandbox refusal keeps `result.files` with each file's name and MD5 (how a client learns what to
 * whitelist), and `include` reaches the tasks nested under `depends_on_tasks` as task.json shows.
 */
import { describe, expect, it } from 'vitest';
import { TaskFailure } from '#lib/file-api/operations/framework/types.js';
import { admitSandboxImport, MAX_REFUSAL_RESULT_BYTES } from '#lib/file-api/sandbox/gate.js';
import type { ShownLinks } from '#lib/file-api/tasks/links.js';
import type { JobRecord, TaskRecord } from '#lib/file-api/records/model.js';
import { jobView, parseInclude, singleTaskIncludes, taskView } from '#lib/file-api/tasks/views.js';
import { LATER_TASK_FIELDS, SANDBOX_REFUSAL, TASK_WITH_DEPENDENCY } from '../fixtures/recorded-answers.js';

const links = { fileUrl: () => undefined, form: () => undefined } as unknown as ShownLinks;
const base = 'https://api.example.com';
const sorted = (keys: Iterable<string>) => [...new Set(keys)].sort();
const keysOf = (value: unknown) => sorted(Object.keys(value as object));

const task = (over: Partial<TaskRecord>): TaskRecord =>
  ({
    pk: 'task#t', sk: 'task', id: 't', userId: 1, jobId: 'j', name: 'export-1', operation: 'export/url', step: 'export',
    status: 'error', message: 'Input task has failed', code: 'INPUT_TASK_FAILED', percent: 100, credits: 0, engine: null, engineVersion: null,
    payload: { input: ['task-1'] }, result: null,
    createdAt: '2026-01-01T00:00:00.000Z', startedAt: null, endedAt: '2026-01-01T00:00:02.000Z',
    expiresAt: 2e9, dependsOn: ['c'], ignoreError: false, timeoutSeconds: 60, retryOf: null, copyOf: null,
    ...over,
  }) as TaskRecord;
const convert = task({ id: 'c', name: 'task-1', operation: 'convert', step: 'process', dependsOn: ['i'], payload: { input: ['import-1'], output_format: 'mp4' } });
const related = new Map([['c', convert]]);

describe('depends_on_tasks (task.json)', () => {
  const view = taskView(task({}), { baseUrl: base, include: singleTaskIncludes(parseInclude('payload')), links, related });
  const nested = (view.depends_on_tasks as Record<string, unknown>[])[0]!;

  it('a single task with include=payload has the recorded fields, and ours since', () => {
    expect(keysOf(view)).toEqual(sorted([...TASK_WITH_DEPENDENCY.top, ...LATER_TASK_FIELDS]));
  });

  it('the task nested under it has the recorded fields, its payload among them, and ours since', () => {
    expect(keysOf(nested)).toEqual(sorted([...TASK_WITH_DEPENDENCY.nested, ...LATER_TASK_FIELDS]));
    expect(nested.payload).toEqual({ input: ['import-1'], output_format: 'mp4' });
  });

  it('a nested task carries no payload when the answer did not ask for one', () => {
    const plain = taskView(task({}), { baseUrl: base, include: singleTaskIncludes(parseInclude(undefined)), links, related });
    const [inner] = plain.depends_on_tasks as Record<string, unknown>[];
    expect(keysOf(inner)).toEqual(sorted([...TASK_WITH_DEPENDENCY.nested, ...LATER_TASK_FIELDS].filter((k) => k !== 'payload')));
  });

  it("a job's tasks asked for depends_on_tasks and payload carry both, and their nested tasks the payload", () => {
    const job = { id: 'j', userId: 1, tag: null, status: 'error', createdAt: '2026-01-01T00:00:00.000Z', startedAt: null, endedAt: null, expiresAt: 2e9, taskIds: ['c', 't'], webhookUrl: null } as unknown as JobRecord;
    const shown = jobView(job, [convert, task({})], { baseUrl: base, include: parseInclude('tasks,payload,depends_on_tasks'), links });
    const exported = (shown.tasks as Record<string, unknown>[]).find((t) => t.id === 't')!;
    const [inner] = exported.depends_on_tasks as Record<string, unknown>[];
    expect(keysOf(inner)).toEqual(sorted([...TASK_WITH_DEPENDENCY.nested, ...LATER_TASK_FIELDS]));
  });
});

describe('the sandbox refusal (job.json, import-1)', () => {
  const md5 = 'c03538f8edd84537190c264109fa2284';
  const whitelisted = 'a'.repeat(32);
  const refuse = async (stored: { filename: string; md5?: string; size?: number; dir?: string }[]) => {
    const deleted: string[] = [];
    const failure = await admitSandboxImport(
      { notAllowed: async (_user, md5s) => md5s.filter((m) => m !== whitelisted) },
      { deletePrefix: async (prefix: string) => deleted.push(prefix) },
      { id: 'i', userId: 1 },
      stored as { filename: string; md5?: string }[],
    ).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(TaskFailure);
    expect(deleted.length).toBeGreaterThan(0);
    return failure as TaskFailure;
  };
  const shown = (failure: TaskFailure) =>
    taskView(task({ id: 'i', name: 'import-1', operation: 'import/url', step: 'import', code: failure.code, message: failure.message, dependsOn: [], result: failure.result ?? null }), {
      baseUrl: base,
      include: new Set(),
      links,
    }).result as { files: Record<string, unknown>[] } | null;

  it('keeps result.files with the recorded fields: the file name and its MD5', async () => {
    const failure = await refuse([{ filename: 'file.mp4', md5, size: 1234 }]);
    expect(failure.code).toBe(SANDBOX_REFUSAL.code);
    const result = shown(failure);
    expect(keysOf(result)).toEqual(sorted(SANDBOX_REFUSAL.resultFields));
    expect(result!.files).toHaveLength(1);
    expect(keysOf(result!.files[0])).toEqual(sorted(SANDBOX_REFUSAL.fileFields));
    expect(result!.files[0]).toEqual({ filename: 'file.mp4', md5 });
  });

  it('lists every file the task brought in, whitelisted or not, so one round of whitelisting suffices', async () => {
    const result = shown(await refuse([{ filename: 'a.png', md5: whitelisted, size: 1 }, { filename: 'b.png', md5, size: 2, dir: 'sub' }]));
    expect(result!.files).toEqual([{ filename: 'a.png', md5: whitelisted }, { filename: 'b.png', md5, dir: 'sub' }]);
  });

  it('lists no more files than fit in its bound, in the order they were brought in', async () => {
    const stored = Array.from({ length: 2000 }, (_, i) => ({ filename: `page-${String(i).padStart(4, '0')}-${'x'.repeat(40)}.png`, md5, size: 1 }));
    const result = shown(await refuse(stored));
    expect(result!.files.length).toBeGreaterThan(0);
    expect(result!.files.length).toBeLessThan(stored.length);
    expect(Buffer.byteLength(JSON.stringify(result!.files))).toBeLessThanOrEqual(MAX_REFUSAL_RESULT_BYTES);
    expect(result!.files.map((f) => f.filename)).toEqual(stored.slice(0, result!.files.length).map((f) => f.filename));
  });

  it('names a file whose MD5 is not known with md5 null', async () => {
    const result = shown(await refuse([{ filename: 'x.bin' }]));
    expect(result!.files).toEqual([{ filename: 'x.bin', md5: null }]);
  });
});
