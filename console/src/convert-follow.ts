/**
 * Follows a job until every task has ended: task events of `private-job.{id}.tasks` as they come, and
 * GET /v2/jobs/{id} as the fallback, often where the stage has no live events and now and then where
 * it has (the subscription has no acknowledgement, and an event can come late or not at all). Start it
 * before uploading, so no event of the job is missed.
 */
import { isEnded, type JobView, type TaskView } from './convert-plan.js';

export interface FollowDeps {
  /** The job with its tasks (GET /v2/jobs/{id}). */
  fetchJob(id: string): Promise<JobView>;
  /** events.ts `subscribe`: returns the unsubscribe. */
  subscribe(channel: string, events: string[], handler: (data: unknown) => void): () => void;
  /** Whether live events reach this page (events.ts `liveEvents`). */
  live: boolean;
  /** Milliseconds between polls: without live events, and with them. */
  pollMs?: { alone: number; withEvents: number };
}

export const TASK_EVENTS = ['task.created', 'task.updated', 'task.finished', 'task.failed'];

/**
 * Calls `onTasks` with every snapshot of the job's tasks (one task from an event, all from a poll),
 * and `onError` when a poll fails (the following one is tried still). Returns `stop`, and `poke` to
 * poll at once (e.g. when the upload is done).
 */
export function followJob(
  jobId: string,
  deps: FollowDeps,
  onTasks: (tasks: TaskView[], job?: JobView) => void,
  onError: (err: unknown) => void = () => {},
): { stop(): void; poke(): void } {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const interval = deps.live ? (deps.pollMs?.withEvents ?? 3000) : (deps.pollMs?.alone ?? 1000);
  const unsubscribe = deps.live
    ? deps.subscribe(`private-job.${jobId}.tasks`, TASK_EVENTS, (data) => {
        const task = (data as { task?: TaskView } | null)?.task;
        if (!stopped && task && typeof task.id === 'string') onTasks([task]);
      })
    : () => {};

  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearTimeout(timer);
    unsubscribe();
  };
  const schedule = (ms: number) => {
    clearTimeout(timer);
    if (!stopped) timer = setTimeout(() => void poll(), ms);
  };
  const poll = async () => {
    if (stopped) return;
    try {
      const job = await deps.fetchJob(jobId);
      if (stopped) return;
      onTasks(job.tasks, job);
      if (job.tasks.length > 0 && job.tasks.every(isEnded)) return stop();
    } catch (err) {
      if (!stopped) onError(err);
    }
    schedule(interval);
  };
  schedule(interval);
  return { stop, poke: () => schedule(0) };
}
