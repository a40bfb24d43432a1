/** Jobs and tasks as stored, and the rules that derive one from the other. */
import type { Item } from '../../adapters/state/port.js';
import { shardKey, shardKeys, shardOf } from '../../kernel/shards.js';

export type TaskStatus = 'waiting' | 'processing' | 'finished' | 'error';
export type JobStatus = TaskStatus;
/** Which consumer runs a task: imports and exports are I/O-bound, processing is CPU-bound. */
export type Step = 'import' | 'process' | 'export';

export const TASK_LIFETIME_SECONDS = 24 * 60 * 60;
export const DEFAULT_TASK_TIMEOUT_SECONDS = 5 * 60 * 60;

/** A file a task produced, as listed in `result.files`. */
export interface FileEntry {
  filename: string;
  size: number;
  md5?: string;
  dir?: string;
  url?: string;
}

export interface TaskResult {
  files?: FileEntry[];
  form?: { url: string; parameters: Record<string, string | number> };
  metadata?: Record<string, unknown>;
  [k: string]: unknown;
}

export interface TaskRecord extends Item {
  id: string;
  userId: number;
  jobId: string | null;
  name?: string;
  operation: string;
  step: Step;
  status: TaskStatus;
  message: string | null;
  code: string | null;
  percent: number;
  credits: number | null;
  engine: string | null;
  engineVersion: string | null;
  /** The request arguments, as given (secrets are scrubbed once the task ends). */
  payload: Record<string, unknown>;
  result: TaskResult | null;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  /** Epoch seconds after which the task is gone. */
  expiresAt: number;
  dependsOn: string[];
  /** Tasks that take this task's files as input. A string set in the store. */
  dependants?: Set<string> | string[];
  ignoreError: boolean;
  timeoutSeconds: number;
  retryOf: string | null;
  copyOf: string | null;
  /** The processing region: where the task runs and its files are kept (lib/access/regions/choice.ts); absent on tasks older than regions. */
  region?: string;
  /** Content stored at creation (import/raw, import/base64); `size` is absent in records made before it was kept. */
  staged?: { filename: string; md5: string; size?: number };
  /**
   * The credits the task reserved when it first started (lib/file-api/tasks/billing.ts), written once; `held`:
   * taken from a counted balance (not an unlimited one).
   */
  reservation?: { credits: number; held: boolean };
  /** When the task's credits were settled (charged, refunded, counted in the usage), once. */
  settledAt?: string;
  /** A sandbox task (lib/file-api/sandbox): seen only with sandbox credentials, never charged, imports whitelisted files only. */
  sandbox?: boolean;
  /** Claim bookkeeping of the step consumers. */
  attempt?: number;
  leaseUntil?: number;
  queuedAt?: string;
}

export interface JobRecord extends Item {
  id: string;
  userId: number;
  tag: string | null;
  status: JobStatus;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  expiresAt: number;
  taskIds: string[];
  webhookUrl: string | null;
  /** The processing region of the job and all its tasks. */
  region?: string;
  /** A sandbox job (lib/file-api/sandbox): seen only with sandbox credentials. */
  sandbox?: boolean;
}

export const taskKey = (id: string) => ({ pk: `task#${id}`, sk: 'task' });
export const jobKey = (id: string) => ({ pk: `job#${id}`, sk: 'job' });
/**
 * The user's tasks and jobs, newest first (gsi1), the sandbox's apart from the live ones, each under
 * shards of the user's key (a hash of the record's id; shard 0 is the key of before, so records made
 * before the sharding are listed too). Every write to a task or job writes the index (it projects all
 * attributes): a two-task job writes the user's tasks about 10 times and its jobs 3 times, so 16 and 4
 * shards keep one user at 500 jobs/s within DynamoDB's 1,000 writes/s per partition key (issue 28).
 */
export const USER_TASK_SHARDS = 16;
export const USER_JOB_SHARDS = 4;
const userTasksBase = (userId: number, sandbox: boolean) => `${sandbox ? 'sandbox-' : ''}tasks#${userId}`;
const userJobsBase = (userId: number, sandbox: boolean) => `${sandbox ? 'sandbox-' : ''}jobs#${userId}`;
export const userTasksIndex = (userId: number, sandbox: boolean | undefined, taskId: string) =>
  shardKey(userTasksBase(userId, Boolean(sandbox)), shardOf(taskId, USER_TASK_SHARDS));
export const userJobsIndex = (userId: number, sandbox: boolean | undefined, jobId: string) =>
  shardKey(userJobsBase(userId, Boolean(sandbox)), shardOf(jobId, USER_JOB_SHARDS));
/** Every shard of the user's task (job) index, to list them all. */
export const userTasksShards = (userId: number, sandbox = false) => shardKeys(userTasksBase(userId, sandbox), USER_TASK_SHARDS);
export const userJobsShards = (userId: number, sandbox = false) => shardKeys(userJobsBase(userId, sandbox), USER_JOB_SHARDS);
/** Whether a job, task or webhook record belongs to the sandbox (records without the flag are live). */
export const isSandbox = (record: { sandbox?: unknown }) => record.sandbox === true;

/**
 * The sparse index of tasks under way (gsi2): a task is in it from being queued until it ends, under
 * one of 16 shards (the first hex digit of its id, so no index partition takes every write), sorted
 * by when the sweeper should look at it (the end of its lease, or when it was queued).
 */
export const ACTIVE_SHARDS = [...'0123456789abcdef'].map((c) => `active#${c}`);
export const activeShard = (taskId: string) => `active#${taskId[0]}`;
/** A sortable form of epoch seconds for gsi2sk. */
export const watchAt = (epochSeconds: number) => String(Math.max(0, Math.floor(epochSeconds))).padStart(12, '0');

export const isEnded = (status: TaskStatus) => status === 'finished' || status === 'error';

export const dependantsOf = (task: TaskRecord): string[] => [...(task.dependants ?? [])];

/**
 * A job's status from its tasks. A job ends when every task has ended: `error` if a task failed
 * that was not created with `ignore_error`, `finished` otherwise. Before that it is `processing`
 * once anything started or ended, `waiting` until then.
 */
export function deriveJobStatus(tasks: Pick<TaskRecord, 'status' | 'ignoreError'>[]): JobStatus {
  if (tasks.length && tasks.every((t) => isEnded(t.status))) {
    return tasks.some((t) => t.status === 'error' && !t.ignoreError) ? 'error' : 'finished';
  }
  return tasks.some((t) => t.status !== 'waiting') ? 'processing' : 'waiting';
}
