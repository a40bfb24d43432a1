/**
 * The Jobs pages' logic, apart from the DOM so unit tests can reach it: jobs and tasks as the API
 * shows them (GET /v2/jobs, live events), merged as events arrive; a job's tasks in their order; the
 * figures of a row (operations, engines, duration, credits); the job's JSON with or without payloads.
 */

export type Status = 'waiting' | 'processing' | 'finished' | 'error';

export interface TaskFile {
  filename: string;
  size?: number;
  url?: string;
}

export interface TaskView {
  id: string;
  name?: string | null;
  job_id: string | null;
  operation: string;
  status: Status;
  message?: string | null;
  code?: string | null;
  percent?: number;
  credits?: number | null;
  engine?: string | null;
  engine_version?: string | null;
  result?: { files?: TaskFile[] } | null;
  created_at?: string | null;
  started_at?: string | null;
  ended_at?: string | null;
  depends_on_task_ids?: string[];
  retry_of_task_id?: string | null;
  payload?: unknown;
}

export interface JobView {
  id: string;
  tag?: string | null;
  status: Status;
  created_at?: string | null;
  started_at?: string | null;
  ended_at?: string | null;
  tasks?: TaskView[];
}

export const STATUSES: Status[] = ['waiting', 'processing', 'finished', 'error'];

export const isEnded = (status: Status) => status === 'finished' || status === 'error';

const time = (iso: string | null | undefined) => (iso ? Date.parse(iso) : Number.NaN);
const newestFirst = (a: JobView, b: JobView) => (time(b.created_at) || 0) - (time(a.created_at) || 0);

/** A task as it now is: the newer view's fields over the older's (a small event frame carries fewer fields). */
export function mergeTask(old: TaskView | undefined, next: TaskView): TaskView {
  return old ? { ...old, ...next } : next;
}

/** Tasks with `next` merged in (by id), or added at the end. */
export function upsertTask(tasks: TaskView[], next: TaskView): TaskView[] {
  const at = tasks.findIndex((t) => t.id === next.id);
  if (at < 0) return [...tasks, next];
  const copy = tasks.slice();
  copy[at] = mergeTask(tasks[at], next);
  return copy;
}

/** A job as it now is: the newer view over the older, its tasks merged one by one. */
export function mergeJob(old: JobView | undefined, next: JobView): JobView {
  if (!old) return next;
  let tasks = old.tasks;
  if (next.tasks) tasks = next.tasks.reduce((all, t) => upsertTask(all, t), old.tasks ?? []);
  return { ...old, ...next, tasks };
}

export interface ListView {
  /** Only jobs of this status belong in the list (the table's filter); undefined for all. */
  status?: Status;
  /** Whether new jobs go in (the first page of the list; later pages hold older jobs only). */
  firstPage: boolean;
  /** At most this many rows (the page's size). */
  limit: number;
}

/**
 * The list after a job event: a known job is updated in place (and leaves the list when it no longer
 * matches the filter), a new one goes in newest first when the list shows the newest jobs.
 */
export function applyJobEvent(jobs: JobView[], next: JobView, view: ListView): JobView[] {
  const at = jobs.findIndex((j) => j.id === next.id);
  const merged = mergeJob(jobs[at], next);
  const belongs = !view.status || merged.status === view.status;
  if (at >= 0) {
    if (!belongs) return jobs.filter((j) => j.id !== next.id);
    const copy = jobs.slice();
    copy[at] = merged;
    return copy;
  }
  if (!belongs || !view.firstPage) return jobs;
  return [merged, ...jobs].sort(newestFirst).slice(0, view.limit);
}

/** The list after a task event: the task's job, if listed, gets it; other tasks change nothing. */
export function applyTaskEvent(jobs: JobView[], task: TaskView): JobView[] {
  const at = jobs.findIndex((j) => j.id === task.job_id);
  if (at < 0) return jobs;
  const copy = jobs.slice();
  copy[at] = { ...jobs[at]!, tasks: upsertTask(jobs[at]!.tasks ?? [], task) };
  return copy;
}

/**
 * A job's tasks in their order: each after the tasks it depends on, and otherwise by creation, then as
 * the API listed them. Dependencies outside the list are ignored; a cycle (which the API never makes)
 * leaves the rest in creation order.
 */
export function orderTasks(tasks: TaskView[]): TaskView[] {
  const ids = new Set(tasks.map((t) => t.id));
  const rank = (t: TaskView) => [time(t.created_at) || 0, tasks.indexOf(t)] as const;
  const earlier = (a: TaskView, b: TaskView) => {
    const [ta, ia] = rank(a);
    const [tb, ib] = rank(b);
    return ta - tb || ia - ib;
  };
  const placed = new Set<string>();
  const ordered: TaskView[] = [];
  const left = tasks.slice().sort(earlier);
  while (left.length) {
    const ready = left.findIndex((t) => (t.depends_on_task_ids ?? []).every((d) => !ids.has(d) || placed.has(d)));
    const [next] = left.splice(ready < 0 ? 0 : ready, 1);
    ordered.push(next!);
    placed.add(next!.id);
  }
  return ordered;
}

/** Milliseconds between start and end (now when still running); undefined before the start. */
export function durationMs(started: string | null | undefined, ended: string | null | undefined, now: number): number | undefined {
  const start = time(started);
  if (Number.isNaN(start)) return undefined;
  const end = ended ? time(ended) : now;
  return Math.max(0, end - start);
}

/** A duration in words a person reads at a glance: `0.4 s`, `12 s`, `3 min 5 s`, `1 h 2 min`. */
export function formatDuration(ms: number): string {
  if (ms < 9950) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  const min = Math.floor((s % 3600) / 60);
  return `${Math.floor(s / 3600)} h${min ? ` ${min} min` : ''}`;
}

/** The duration column: ended − started, `running` while it runs, a dash before it starts. */
export function durationText(item: { status: Status; started_at?: string | null; ended_at?: string | null }): string {
  if (!isEnded(item.status)) return item.started_at ? 'running' : '—';
  const ms = durationMs(item.started_at, item.ended_at, Date.now());
  return ms === undefined ? '—' : formatDuration(ms);
}

const unique = (values: Array<string | null | undefined>) => [...new Set(values.filter((v): v is string => Boolean(v)))];

/** Its tasks' operations, in the tasks' order, each once. */
export const operationsOf = (job: JobView) => unique(orderTasks(job.tasks ?? []).map((t) => t.operation));

/** The engines its tasks ran on, each once. */
export const enginesOf = (job: JobView) => unique(orderTasks(job.tasks ?? []).map((t) => t.engine));

/** The credits its tasks used, or undefined when no task has counted any yet. */
export function creditsOf(job: JobView): number | undefined {
  const counted = (job.tasks ?? []).map((t) => t.credits).filter((c): c is number => typeof c === 'number');
  return counted.length ? counted.reduce((a, b) => a + b, 0) : undefined;
}

/** How a job is named in the console: its tag, or the start of its id. */
export const jobLabel = (job: Pick<JobView, 'id' | 'tag'>) => job.tag || job.id.slice(0, 8);

/** A task's name in the console: its name in the job, or the start of its id. */
export const taskLabel = (task: Pick<TaskView, 'id' | 'name'>) => task.name || task.id.slice(0, 8);

/** A failed task the API can run again: not one whose file came with the request (upload, base64, raw). */
export const canRetry = (task: TaskView) => task.status === 'error' && !/^import\/(upload|base64|raw)$/.test(task.operation);

/** A task that has not ended can be cancelled. */
export const canCancel = (task: TaskView) => task.status === 'waiting' || task.status === 'processing';

/** The export files that can be downloaded, with their task. */
export function downloadsOf(tasks: TaskView[]): Array<{ task: TaskView; file: TaskFile & { url: string } }> {
  return tasks
    .filter((t) => t.operation.startsWith('export/') && t.status === 'finished')
    .flatMap((task) => (task.result?.files ?? []).filter((f): f is TaskFile & { url: string } => typeof f.url === 'string').map((file) => ({ task, file })));
}

/**
 * The job's JSON as shown: without payloads, or with the payloads fetched on request (by task id).
 * Tasks in the order the API gave them.
 */
export function jobJson(job: JobView, payloads?: ReadonlyMap<string, unknown>): string {
  const tasks = (job.tasks ?? []).map(({ payload: _hidden, ...task }) => (payloads?.has(task.id) ? { ...task, payload: payloads.get(task.id) } : task));
  return JSON.stringify({ ...job, tasks }, null, 2);
}

/** The summary line read out on changes: how many jobs and in which states. */
export function summaryOf(jobs: JobView[]): string {
  if (!jobs.length) return 'No jobs.';
  const counts = STATUSES.map((s) => [s, jobs.filter((j) => j.status === s).length] as const).filter(([, n]) => n > 0);
  return `${jobs.length} ${jobs.length === 1 ? 'job' : 'jobs'}: ${counts.map(([s, n]) => `${n} ${s}`).join(', ')}.`;
}

/** What changed in words, for the summary line: a new job, or a job that changed status. */
export function changeOf(before: JobView | undefined, after: JobView): string | undefined {
  if (!before) return `New job ${jobLabel(after)} (${after.status}).`;
  if (before.status !== after.status) return `Job ${jobLabel(after)} ${after.status === 'error' ? 'failed' : after.status}.`;
  return undefined;
}
