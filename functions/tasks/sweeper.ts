/** Scheduled: ends or requeues runs that lost their consumer or their message (lib/file-api/tasks/sweeper.ts). */
import { config } from '#lib/kernel/config.js';
import { rootLogger } from '#lib/kernel/root-logger.js';
import { queueClient } from '#lib/wiring/queue.js';
import { taskScheduler, taskStore } from '#lib/wiring/tasks.js';
import { sweep } from '#lib/file-api/tasks/sweeper.js';

/** Left for sending what the sweep gathered before the function's timeout. */
const MARGIN_MS = 15_000;

export async function handler(_event?: unknown, context?: { getRemainingTimeInMillis(): number }) {
  return sweep({
    store: taskStore(),
    scheduler: taskScheduler(),
    queue: queueClient(),
    log: rootLogger().child({ function: 'sweeper' }),
    graceSeconds: Math.max(30, 3 * config().STEP_LEASE_SECONDS),
    stopAt: context ? Date.now() + context.getRemainingTimeInMillis() - MARGIN_MS : undefined,
  });
}
