/**
 * The periodic sweep. Tasks and jobs past their 24 hours are deleted with their files (DynamoDB's TTL
 * deletes records lazily and the local store has none; the bucket's lifecycle rule would remove the
 * files a day later anyway). A task left `processing` with a lapsed lease has lost its consumer and
 * its message: past its timeout it ends with TIMEOUT, otherwise it is queued again.
 */
import type { FileStore } from '../files/port.js';
import type { Logger } from '../log.js';
import { taskPrefix, uploadPrefix } from '../operations/types.js';
import type { Queue } from '../queue/port.js';
import type { Item, StateStore } from '../state/port.js';
import type { TaskRecord } from './model.js';
import type { Scheduler } from './scheduler.js';
import type { TaskStore } from './store.js';

export interface SweepDeps {
  state: StateStore;
  store: TaskStore;
  scheduler: Scheduler;
  files: FileStore;
  queue: Queue;
  log: Logger;
  /**
   * A lease must have lapsed this long before its task counts as abandoned (a redelivered message
   * would have claimed it by then), and a queued task must have waited this long before its message
   * counts as lost. Sending again is harmless either way: claims are conditional.
   */
  graceSeconds: number;
}

async function each<T extends Item>(state: StateStore, filter: Parameters<StateStore['scan']>[0]['filter'], fn: (item: T) => Promise<void>) {
  let cursor: string | undefined;
  do {
    const page = await state.scan<T>({ filter, cursor });
    for (const item of page.items) await fn(item);
    cursor = page.cursor;
  } while (cursor);
}

export async function sweep(deps: SweepDeps, now = Date.now()): Promise<{ expired: number; timedOut: number; requeued: number }> {
  const nowSeconds = Math.floor(now / 1000);
  let expired = 0;
  await each<Item>(deps.state, { below: { expiresAt: nowSeconds + 1 } }, async (item) => {
    if (item.sk === 'task') {
      await deps.files.deletePrefix(taskPrefix(String(item.id)));
      await deps.files.deletePrefix(uploadPrefix(String(item.id)));
    }
    await deps.state.delete({ pk: item.pk, sk: item.sk });
    expired++;
  });

  let timedOut = 0;
  let requeued = 0;
  const grace = deps.graceSeconds;
  await each<TaskRecord>(deps.state, { equals: { status: 'processing' }, below: { leaseUntil: nowSeconds - grace } }, async (task) => {
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
      await deps.queue.send(task.step, { taskId: task.id });
      requeued++;
    }
  });
  // Waiting tasks marked queued long ago: the sender may have died before its message went out.
  await each<TaskRecord>(deps.state, { equals: { status: 'waiting', sk: 'task' } }, async (task) => {
    if (task.queuedAt && Date.parse(task.queuedAt) < now - grace * 1000) {
      await deps.scheduler.enqueue(task, true);
      requeued++;
    }
  });
  if (expired || timedOut || requeued) deps.log.info('sweep', { expired, timedOut, requeued });
  return { expired, timedOut, requeued };
}
