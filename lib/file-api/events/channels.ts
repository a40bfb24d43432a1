/**
 * The channels of live events (CloudConvert's names) and which channels an event of a job or a task
 * goes to:
 *
 * | channel | hears |
 * |---|---|
 * | `private-job.{id}` | `job.created`, `job.updated`, `job.finished`, `job.failed` of that job |
 * | `private-job.{id}.tasks` | `task.*` of that job's tasks |
 * | `private-task.{id}` | `task.*` of that task |
 * | `private-user.{id}.jobs` | `job.*` of every job of the user |
 * | `private-user.{id}.tasks` | `task.*` of every task of the user |
 */
import type { JobRecord, TaskRecord } from '../records/model.js';

export type Channel =
  | { kind: 'job'; jobId: string }
  | { kind: 'job-tasks'; jobId: string }
  | { kind: 'task'; taskId: string }
  | { kind: 'user-jobs'; userId: number }
  | { kind: 'user-tasks'; userId: number };

export type JobEvent = 'job.created' | 'job.updated' | 'job.finished' | 'job.failed';
export type TaskEvent = 'task.created' | 'task.updated' | 'task.finished' | 'task.failed';

/** Ids as the service makes them (UUIDs) or as other clients may name them: letters, digits, `-`, `_`. */
const PATTERNS: Array<[RegExp, (m: RegExpExecArray) => Channel]> = [
  [/^private-job\.([A-Za-z0-9_-]{1,64})$/, (m) => ({ kind: 'job', jobId: m[1]! })],
  [/^private-job\.([A-Za-z0-9_-]{1,64})\.tasks$/, (m) => ({ kind: 'job-tasks', jobId: m[1]! })],
  [/^private-task\.([A-Za-z0-9_-]{1,64})$/, (m) => ({ kind: 'task', taskId: m[1]! })],
  [/^private-user\.(\d{1,15})\.jobs$/, (m) => ({ kind: 'user-jobs', userId: Number(m[1]) })],
  [/^private-user\.(\d{1,15})\.tasks$/, (m) => ({ kind: 'user-tasks', userId: Number(m[1]) })],
];

/** The channel a name denotes, or undefined for any other name. */
export function parseChannel(name: string): Channel | undefined {
  for (const [pattern, make] of PATTERNS) {
    const match = pattern.exec(name);
    if (match) return make(match);
  }
  return undefined;
}

export const jobChannels = (job: Pick<JobRecord, 'id' | 'userId'>): string[] => [`private-job.${job.id}`, `private-user.${job.userId}.jobs`];

export const taskChannels = (task: Pick<TaskRecord, 'id' | 'userId' | 'jobId'>): string[] => [
  `private-task.${task.id}`,
  ...(task.jobId ? [`private-job.${task.jobId}.tasks`] : []),
  `private-user.${task.userId}.tasks`,
];

export const jobEndEvent = (job: Pick<JobRecord, 'status'>): JobEvent => (job.status === 'finished' ? 'job.finished' : 'job.failed');
export const taskEndEvent = (task: Pick<TaskRecord, 'status'>): TaskEvent => (task.status === 'finished' ? 'task.finished' : 'task.failed');
