/**
 * What happens around a task's run: queueing it once its inputs are finished (exactly once, even
 * when two parents finish together), failing its dependants when it fails, and keeping the job's
 * status in step with its tasks.
 */
import type { Logger } from '../../kernel/log.js';
import type { ProcessQueueName, Queue, QueueName } from '../../adapters/queue/port.js';
import { dependantsOf, deriveJobStatus, isEnded, type JobRecord, type TaskRecord } from '../records/model.js';
import { scrubPayload } from '../records/secrets.js';
import type { TaskStore } from '../records/store.js';
import type { StepMessage } from './step-messages.js';

export interface SchedulerDeps {
  store: TaskStore;
  queue: Queue;
  log: Logger;
  /**
   * The process queue of a task, from its inputs (the engine family that runs it: routing.ts). Unset:
   * the general `process` queue.
   */
  route?: (task: TaskRecord, inputs: TaskRecord[]) => ProcessQueueName;
  /** Called when a job's status changes without ending (it starts processing): live events. */
  onJobUpdated?: (job: JobRecord) => Promise<void>;
  /** Called once when a job reaches `finished` or `error` (webhooks). */
  onJobEnded?: (job: JobRecord) => Promise<void>;
  /**
   * Called when a task has reached `finished` or `error`, before its job is updated (webhooks); again
   * when that end is recovered after a redelivery, so listeners see it at least once.
   */
  onTaskEnded?: (task: TaskRecord) => Promise<void>;
  /**
   * Settles an ended task's credits (lib/file-api/tasks/billing.ts), first thing after every end and again on
   * recovery (it settles once); returns the task as settled.
   */
  settle?: (task: TaskRecord) => Promise<TaskRecord>;
}

/**
 * Runs a task in the invocation that made it ready instead of queueing it (./inline.ts): tasks that need
 * no engine and no network (`inline` on their definition), where the caller allows it.
 */
export interface InlineRun {
  accepts(task: TaskRecord): boolean;
  /** `inputs`: the task's inputs as read to find it ready. */
  run(task: TaskRecord, inputs: TaskRecord[]): Promise<void>;
}

export const INPUT_TASK_FAILED = { code: 'INPUT_TASK_FAILED', message: 'Input task has failed' };

export class Scheduler {
  constructor(private readonly deps: SchedulerDeps) {}

  /**
   * Queues the task for its step unless it was queued already. `again` sends it even so: for
   * recovery, when the sender may have died between marking and sending (a duplicate message is
   * harmless, the consumer's claim is conditional). `inline`: run it here instead when it accepts the
   * task (never when sending again: recovery goes through the queue).
   */
  async enqueue(task: TaskRecord, again = false, inputs?: TaskRecord[], inline?: InlineRun): Promise<void> {
    if (!again && inline?.accepts(task)) return inline.run(task, inputs ?? []);
    const queue = await this.markQueued(task, again, inputs);
    if (queue) await this.deps.queue.send(queue, { taskId: task.id } satisfies StepMessage);
  }

  /** Marks the task queued and names the queue its message goes to; none when it was queued already (unless `again`). For callers that send in batches. */
  async markQueued(task: TaskRecord, again = false, inputs?: TaskRecord[]): Promise<QueueName | undefined> {
    if (!(await this.deps.store.markQueued(task.id)) && !again) return undefined;
    return this.queueOf(task, inputs);
  }

  /** The queue that runs the task's step: for the process step, its engine family's (from `inputs` when the caller has them). */
  async queueOf(task: TaskRecord, inputs?: TaskRecord[]): Promise<QueueName> {
    if (task.step !== 'process' || !this.deps.route) return task.step;
    return this.deps.route(task, inputs ?? (await this.deps.store.getTasks(task.dependsOn)));
  }

  /**
   * Starts each task whose inputs have all finished; fails those with a failed input. `ended`: the
   * input that has just ended, as its end was written, so that it is not read again. Returns whether
   * one of the tasks, in `jobId` when given, is still to end (waiting, queued or running). `inline`: see enqueue.
   */
  async startReady(ids: readonly string[], recovering = false, ended?: TaskRecord, jobId?: string, inline?: InlineRun): Promise<boolean> {
    let workLeft = false;
    for (const task of await this.deps.store.getTasks(ids)) {
      const inJob = jobId === undefined || task.jobId === jobId;
      if (task.status !== 'waiting' || (task.queuedAt && !recovering)) {
        workLeft ||= inJob && !isEnded(task.status);
        continue;
      }
      const known = ended && task.dependsOn.includes(ended.id) ? ended : undefined;
      const read = await this.deps.store.getTasks(task.dependsOn.filter((id) => id !== known?.id));
      const inputs = task.dependsOn.map((id) => (id === known?.id ? known : read.find((t) => t.id === id))).filter((t): t is TaskRecord => Boolean(t));
      if (inputs.length < task.dependsOn.length || inputs.some((i) => i.status === 'error')) {
        const failed = await this.deps.store.fail(task.id, INPUT_TASK_FAILED, { from: ['waiting'] });
        if (failed) await this.afterEnd(failed);
      } else {
        if (inputs.every((i) => i.status === 'finished')) await this.enqueue(task, recovering, inputs, inline);
        workLeft ||= inJob;
      }
    }
    return workLeft;
  }

  /**
   * Everything that follows a task's end: its dependants, its secrets, its job. `recovering` when
   * it runs again for a task that had already ended (a redelivered message).
   *
   * The job is recomputed from all its tasks (a read of the job and of every task) unless a run
   * finished the task and one of its dependants in the same job is still to end: the run made the job
   * processing before it ended the task (runner.ts), and the job cannot end before that dependant,
   * whose own end is followed by this same step. The task whose end is written last always finds its
   * dependants ended and recomputes the job, so a job's end is never missed. (A dependant run inline
   * has ended by the time this returns, and recomputed the job itself.)
   *
   * `inline`: dependants that became ready may run here (see enqueue).
   */
  async afterEnd(ended: TaskRecord, recovering = false, inline?: InlineRun): Promise<void> {
    const task = this.deps.settle ? await this.deps.settle(ended) : ended;
    const scrubbed = scrubPayload(task.payload);
    await Promise.all([scrubbed !== task.payload ? this.deps.store.setPayload(task.id, scrubbed) : undefined, this.deps.onTaskEnded?.(task)]);
    const dependants = dependantsOf(task);
    let jobWorkLeft = false;
    if (task.status === 'finished') {
      jobWorkLeft = await this.startReady(dependants, recovering, task, task.jobId ?? undefined, inline);
    } else {
      for (const dep of await this.deps.store.getTasks(dependants)) {
        if (isEnded(dep.status)) continue;
        const failed = await this.deps.store.fail(dep.id, INPUT_TASK_FAILED, { from: ['waiting'] });
        if (failed) await this.afterEnd(failed);
      }
    }
    const ranAndLeftWork = jobWorkLeft && task.attempt !== undefined && !recovering;
    if (task.jobId && !ranAndLeftWork) await this.refreshJob(task.jobId);
  }

  /**
   * One of the job's tasks has started: a waiting job is processing from now. One conditional write
   * and no read: while a task runs the job cannot have ended, and a job that is already processing
   * refuses the write.
   */
  async jobStarted(jobId: string, startedAt: string): Promise<void> {
    const updated = await this.deps.store.updateJob(jobId, { status: 'processing', startedAt }, { equals: { status: 'waiting' } });
    if (updated) await this.deps.onJobUpdated?.(updated);
  }

  /** Recomputes a job's status from its tasks; reports the job's end once. */
  async refreshJob(jobId: string): Promise<JobRecord | undefined> {
    const job = await this.deps.store.getJob(jobId);
    if (!job || job.endedAt) return job;
    const tasks = await this.deps.store.getTasks(job.taskIds);
    const status = deriveJobStatus(tasks);
    if (status === job.status) return job;
    const now = new Date().toISOString();
    const ended = status === 'finished' || status === 'error';
    const updated = await this.deps.store.updateJob(
      jobId,
      { status, ...(job.startedAt || status === 'waiting' ? {} : { startedAt: now }), ...(ended ? { endedAt: now } : {}) },
      // Only one caller records the end, so the job's end is announced once.
      { oneOf: { status: ['waiting', 'processing'] } },
    );
    if (updated && ended) {
      this.deps.log.info('job ended', { jobId, status });
      await this.deps.onJobEnded?.(updated);
    } else if (updated) {
      await this.deps.onJobUpdated?.(updated);
    }
    return updated ?? job;
  }
}
