/**
 * The runs of tasks that need no engine in the invocation that makes them ready (lib/file-api/tasks/inline.ts),
 * wired to this deployment. Imported only by the entry points that run them, POST /v2/jobs and the step
 * consumers, whose roles allow what those operations call (the bucket's copies and reads).
 */
import { config } from '../kernel/config.js';
import type { Logger } from '../kernel/log.js';
import { INLINE_IMPLEMENTATIONS } from '../file-api/operations/inline-runs.js';
import { inlineRuns } from '../file-api/tasks/inline.js';
import type { RunnerDeps } from '../file-api/tasks/runner.js';
import type { InlineRun } from '../file-api/tasks/scheduler.js';
import { fileStore } from './files.js';
import { queueClient } from './queue.js';
import { sandboxFiles } from './sandbox.js';
import { taskBilling, taskEvents, taskScheduler, taskStore, taskUpdated } from './tasks.js';

/** What a run needs in this process; `deadlineMs`: the invocation's end, when known. */
export function runnerDeps(log: Logger, implementations: RunnerDeps['implementations'], deadlineMs?: number): RunnerDeps {
  return {
    store: taskStore(),
    scheduler: taskScheduler(),
    files: fileStore(),
    regionFiles: fileStore,
    config: config(),
    log,
    implementations,
    billing: taskBilling(),
    sandboxFiles: sandboxFiles(),
    deadlineMs,
    // A task held by another run is looked at again through its step's queue.
    requeue: (task, delaySeconds) => queueClient().send(task.step, { taskId: task.id }, { delaySeconds }),
    // The task's start and progress as task.updated (live events).
    onTaskUpdated: taskUpdated,
    hold: (work) => taskEvents().hold(work),
  };
}

/** Inline runs for one invocation (its log, its deadline). */
export const inlineRunsFor = (log: Logger, deadlineMs?: number): InlineRun => inlineRuns(runnerDeps(log, INLINE_IMPLEMENTATIONS, deadlineMs));
