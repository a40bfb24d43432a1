/** Jobs and tasks as the file API shows them (CloudConvert v2 shapes). */
import { toIsoSeconds } from '../../kernel/time.js';
import type { ShownLinks } from './links.js';
import { isEnded, type JobRecord, type TaskRecord } from '../records/model.js';
import { redactText } from '../../kernel/redact.js';
import { redactPayload } from '../records/secrets.js';

export type Include = 'payload' | 'tasks' | 'depends_on_tasks' | 'job' | 'retries';

export function parseInclude(value: string | undefined): Set<Include> {
  return new Set((value ?? '').split(',').map((s) => s.trim()).filter(Boolean) as Include[]);
}

/**
 * What an answer about one task (show, create, wait, cancel, retry) includes unasked: `retries` and
 * `depends_on_tasks`, as CloudConvert's recorded answers of single tasks show them (the SDK's
 * `tests/unit/responses/task.json`, `task_created.json`, `upload_task_created.json`); tasks inside a job
 * and in lists carry neither unless asked (`job.json`, `job_finished.json`).
 *
 * Decision on `payload`: shown only with `include=payload`, as CloudConvert answers since 2022
 * (`job_finished.json` has none; the 2019 recordings had it everywhere). A payload can be megabytes
 * (import/base64) and would weigh on every list, wait and webhook; secrets in it are hidden either way.
 */
export function singleTaskIncludes(include: Set<Include>): Set<Include> {
  return new Set<Include>([...include, 'retries', 'depends_on_tasks']);
}

/**
 * What a task under `depends_on_tasks` includes: the answer's `payload`, as the recorded task.json
 * shows its nested task (`include=payload` reaches it). Not `retries`, `depends_on_tasks` or `job`:
 * the nested task there has neither of the first two (one level only, so the answer cannot recurse
 * through a job's graph), and its job would repeat the one the answer names.
 */
const NESTED_INCLUDES: ReadonlySet<Include> = new Set(['payload']);
const nestedIncludes = (include: Set<Include>) => new Set([...include].filter((i) => NESTED_INCLUDES.has(i)));

const ts = (v: string | null | undefined) => (v ? toIsoSeconds(v) : null);

export interface ViewContext {
  /** Where `links.self` points: the service's address and the base the answer is for (`apiUrlOf`). */
  baseUrl: string;
  include: Set<Include>;
  /** Export URLs and upload forms, signed for this answer (`TaskLinks.for` over every task shown). */
  links: ShownLinks;
  /** Tasks by id, for `depends_on_tasks`. */
  related?: Map<string, TaskRecord>;
  job?: JobRecord;
}

export function taskView(task: TaskRecord, ctx: ViewContext): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: task.id,
    ...(task.jobId ? { name: task.name ?? null } : {}),
    job_id: task.jobId,
    operation: task.operation,
    status: task.status,
    message: task.message === null ? null : redactText(task.message),
    code: task.code,
    // An ended task is done with, whatever its last progress report said (CloudConvert shows 100 on finished and failed tasks).
    percent: isEnded(task.status) ? 100 : task.percent,
    credits: task.credits,
    engine: task.engine,
    engine_version: task.engineVersion,
    result: publicResult(task, ctx.links),
    created_at: ts(task.createdAt),
    started_at: ts(task.startedAt),
    ended_at: ts(task.endedAt),
    retry_of_task_id: task.retryOf,
    copy_of_task_id: task.copyOf,
    user_id: task.userId,
    priority: 0,
    host_name: null,
    storage: null,
    region: task.region ?? null,
    depends_on_task_ids: task.dependsOn,
    links: { self: `${ctx.baseUrl}/v2/tasks/${task.id}` },
  };
  if (ctx.include.has('payload')) view.payload = redactPayload(task.payload);
  if (ctx.include.has('retries')) view.retries = [];
  if (ctx.include.has('depends_on_tasks')) {
    view.depends_on_tasks = task.dependsOn
      .map((id) => ctx.related?.get(id))
      .filter((t): t is TaskRecord => Boolean(t))
      .map((t) => taskView(t, { ...ctx, include: nestedIncludes(ctx.include) }));
  }
  if (ctx.include.has('job') && ctx.job) view.job = jobView(ctx.job, undefined, { ...ctx, include: new Set() });
  return view;
}

/**
 * `result` as shown: export files with their download URLs, an upload form while the task waits for
 * its file. Both are signed for this answer; whatever an older version stored in their place is ignored.
 */
function publicResult(task: TaskRecord, links: ShownLinks): Record<string, unknown> | null {
  const { form: _storedForm, ...rest } = task.result ?? {};
  const form = links.form(task);
  if (!task.result && !form) return null;
  const shown: Record<string, unknown> = { ...rest };
  if (rest.files) {
    shown.files = rest.files.map(({ url: _storedUrl, ...file }, i) => {
      const url = links.fileUrl(task, i);
      return url ? { ...file, url } : file;
    });
  }
  if (form) shown.form = form;
  return shown;
}

export function jobView(job: JobRecord, tasks: TaskRecord[] | undefined, ctx: ViewContext): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: job.id,
    tag: job.tag,
    status: job.status,
    created_at: ts(job.createdAt),
    started_at: ts(job.startedAt),
    ended_at: ts(job.endedAt),
    region: job.region ?? null,
    links: { self: `${ctx.baseUrl}/v2/jobs/${job.id}` },
  };
  if (tasks) {
    const related = new Map(tasks.map((t) => [t.id, t]));
    view.tasks = tasks.map((t) => taskView(t, { ...ctx, related, include: new Set([...ctx.include].filter((i) => i !== 'tasks')) }));
  }
  return view;
}
