/** Scheduled: ends or requeues runs that lost their consumer or their message (lib/tasks/sweeper.ts). */
import { config } from '#lib/config.js';
import { rootLogger } from '#lib/platform/logger.js';
import { queueClient } from '#lib/platform/queue.js';
import { taskScheduler, taskStore } from '#lib/platform/tasks.js';
import { sweep } from '#lib/tasks/sweeper.js';

export async function handler() {
  return sweep({
    store: taskStore(),
    scheduler: taskScheduler(),
    queue: queueClient(),
    log: rootLogger().child({ function: 'sweeper' }),
    graceSeconds: Math.max(30, 3 * config().STEP_LEASE_SECONDS),
  });
}
