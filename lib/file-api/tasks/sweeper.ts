/**
 * The periodic sweep for runs that lost their consumer or their message. It reads the sparse index of
 * tasks under way (never the whole table): a task left `processing` with a lapsed lease has lost its
 * consumer; past its timeout it ends with TIMEOUT, otherwise it is queued again. A task queued long
 * ago and still waiting may have lost its message (the sender died): it is queued again.
 *
 * Expiry is not the sweeper's: DynamoDB's TTL deletes jobs and tasks after their 24 hours (reads
 * treat them as gone from that moment), and the bucket's lifecycle rule their files a day after they
 * were written. Locally the platform emulates both (local/expiry.ts).
 */
import type { Logger } from '../../kernel/log.js';
import type { Queue } from '../../adapters/queue/port.js';
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
}

export async function sweep(deps: SweepDeps, now = Date.now()): Promise<{ timedOut: number; requeued: number }> {
  let timedOut = 0;
  let requeued = 0;
  for await (const task of deps.store.underWay(Math.floor(now / 1000) - deps.graceSeconds)) {
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
        await deps.queue.send(await deps.scheduler.queueOf(task), { taskId: task.id });
        requeued++;
      }
    } else if (task.status === 'waiting') {
      await deps.scheduler.enqueue(task, true);
      requeued++;
    }
  }
  if (timedOut || requeued) deps.log.info('sweep', { timedOut, requeued });
  return { timedOut, requeued };
}
