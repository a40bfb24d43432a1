/**
 * Tasks run in the invocation that makes them ready, instead of a queue message and another
 * invocation: the operations whose definition says `inline` (no engine, no network: a file sent with
 * the request, an export URL's server-side copy). At creation (POST /v2/jobs runs an import/base64
 * and the export/url after it before it answers) and after a step consumer ends a task (the export/url
 * after a convert runs in the process step's invocation). Engines stay in their functions: nothing
 * here runs one.
 *
 * The guarantees are a queued run's, by the same path (runner.ts): one conditional write marks the
 * task queued and claims it (only one caller runs it, as only one would queue it), its lease puts it
 * in the sweeper's index, so a run whose invocation dies is queued again once the lease lapses;
 * outputs, cancellation, timeouts and the end are the runner's. A run that fails for a passing reason
 * gives its lease back and goes to its step's queue, to be tried again as any other.
 */
import type { RunnerDeps } from './runner.js';
import { runTask } from './runner.js';
import type { InlineRun } from './scheduler.js';
import type { TaskRecord } from '../records/model.js';
import { operationDefinition } from '../operations/index.js';

/**
 * Time an inline run must have left in the invocation: with less, the task goes to its queue instead
 * (the runner would stop it with TIMEOUT before the invocation's end).
 */
export const INLINE_MIN_REMAINING_MS = 60_000;

/** Whether the operation's definition lets a task run where it becomes ready. */
export function runsInline(task: Pick<TaskRecord, 'operation' | 'payload'>): boolean {
  const inline = operationDefinition(task.operation)?.inline;
  return inline === true || (typeof inline === 'function' && inline(task.payload));
}

/**
 * The inline runs of one invocation: `deps` as for its own runs, with `implementations` holding the
 * inline operations' (every definition that says `inline` must be there to run inline; one that is
 * not goes through its queue).
 */
export function inlineRuns(deps: RunnerDeps): InlineRun {
  const inline: InlineRun = {
    accepts: (task) =>
      runsInline(task) && task.operation in deps.implementations && (deps.deadlineMs === undefined || deps.deadlineMs - Date.now() >= INLINE_MIN_REMAINING_MS),
    async run(task, inputs) {
      try {
        await runTask(task.id, { ...deps, inline }, { ready: true, inputs });
      } catch (err) {
        // A passing failure: the lease was given back; the queue tries again, as for a queued run. If
        // the send fails too, the task is in the sweeper's index (queued or leased) and is sent later.
        deps.log.warn('inline run failed, task queued', { taskId: task.id, error: err });
        await deps.scheduler.enqueue(task, true, inputs).catch((error: unknown) => deps.log.warn('task not queued; the sweeper will', { taskId: task.id, error }));
      }
    },
  };
  return inline;
}
