/**
 * The periodic sweep for runs that lost their consumer or their message. It reads the sparse index of
 * tasks under way (never the whole table): a task left `processing` with a lapsed lease has lost its
 * consumer; past its timeout it ends with TIMEOUT, otherwise it is queued again. A task queued long
 * ago and still waiting may have lost its message (the sender died): it is queued again.
 *
 * Messages go out ten at a time per queue (SQS's batch, one request instead of ten), and a sweep that
 * reaches `stopAt` stops where it is, sends what it has gathered and leaves the rest to the next sweep
 * (the index still holds those tasks), instead of running into its function's timeout with a backlog.
 *
 * Expiry is not the sweeper's: DynamoDB's TTL deletes jobs and tasks after their 24 hours (reads
 * treat them as gone from that moment), and the bucket's lifecycle rule their files a day after they
 * were written. Locally the platform emulates both (local/expiry.ts).
 */
import type { Logger } from '../../kernel/log.js';
import type { Queue, QueueName } from '../../adapters/queue/port.js';
import type { Scheduler } from './scheduler.js';
import type { TaskStore } from '../records/store.js';

export interface SweepDeps {
  store: TaskStore;
  scheduler: Scheduler;
  queue: Queue;
  log: Logger;
  /**
   * A lease must have lapsed this long before its task counts as abandoned (a redelivered message
   * would have claimed it by then), and a queued task must have waited this long before its message
   * counts as lost. Sending again is harmless either way: claims are conditional.
   */
  graceSeconds: number;
  /** When to stop (ms since the epoch): the function's deadline less a margin. */
  stopAt?: number;
}

/** SQS takes up to ten messages in one SendMessageBatch. */
const BATCH = 10;

export async function sweep(deps: SweepDeps, now = Date.now()): Promise<{ timedOut: number; requeued: number }> {
  let timedOut = 0;
  let requeued = 0;
  let stopped = false;
  const gathered = new Map<QueueName, { taskId: string }[]>();
  const flush = async (queue: QueueName) => {
    const messages = gathered.get(queue) ?? [];
    gathered.delete(queue);
    if (messages.length) await deps.queue.sendMany(queue, messages);
  };
  const requeue = async (queue: QueueName, taskId: string) => {
    const messages = [...(gathered.get(queue) ?? []), { taskId }];
    gathered.set(queue, messages);
    requeued++;
    if (messages.length >= BATCH) await flush(queue);
  };
  for await (const task of deps.store.underWay(Math.floor(now / 1000) - deps.graceSeconds)) {
    if (deps.stopAt !== undefined && Date.now() >= deps.stopAt) {
      stopped = true;
      break;
    }
    if (task.status === 'processing') {
      const deadline = Date.parse(task.startedAt ?? task.createdAt) + task.timeoutSeconds * 1000;
      if (deadline <= now) {
        const failed = await deps.store.fail(
          task.id,
          { code: 'TIMEOUT', message: `The task timed out after ${task.timeoutSeconds} seconds.` },
          { from: ['processing'] },
        );
        if (failed) {
          timedOut++;
          await deps.scheduler.afterEnd(failed);
        }
      } else {
        await requeue(await deps.scheduler.queueOf(task), task.id);
      }
    } else if (task.status === 'waiting') {
      await requeue((await deps.scheduler.markQueued(task, true))!, task.id);
    }
  }
  for (const queue of [...gathered.keys()]) await flush(queue);
  if (timedOut || requeued || stopped) deps.log.info('sweep', { timedOut, requeued, ...(stopped ? { stoppedAt: 'deadline', restNextSweep: true } : {}) });
  return { timedOut, requeued };
}
