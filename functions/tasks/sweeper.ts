/** Scheduled: deletes expired jobs and tasks with their files, ends or requeues abandoned runs. */
import { config } from '#lib/config.js';
import { stateStore } from '#lib/platform/clients.js';
import { fileStore } from '#lib/platform/files.js';
import { rootLogger } from '#lib/platform/logger.js';
import { queueClient } from '#lib/platform/queue.js';
import { taskScheduler, taskStore } from '#lib/platform/tasks.js';
import { sweep } from '#lib/tasks/sweeper.js';

export async function handler() {
  return sweep({
    state: stateStore(),
    store: taskStore(),
    scheduler: taskScheduler(),
    files: fileStore(),
    queue: queueClient(),
    log: rootLogger().child({ function: 'sweeper' }),
    graceSeconds: Math.max(30, 3 * config().STEP_LEASE_SECONDS),
  });
}
