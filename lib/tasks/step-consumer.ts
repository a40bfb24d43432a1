/** A step consumer Lambda: queue messages `{taskId}` run through `runTask` with the step's operations. */
import * as z from 'zod';
import { config } from '../config.js';
import type { Implementation } from '../operations/types.js';
import { fileStore } from '../platform/files.js';
import { rootLogger } from '../platform/logger.js';
import { queueClient } from '../platform/queue.js';
import { taskScheduler, taskStore } from '../platform/tasks.js';
import { sqsConsumer } from '../queue/consumer.js';
import type { Step } from './model.js';
import { runTask } from './runner.js';

export const stepMessage = z.object({ taskId: z.string().min(1) });

export function stepConsumer(step: Step, implementations: Record<string, Implementation>) {
  return sqsConsumer({
    schema: stepMessage,
    log: () => rootLogger().child({ step }),
    handle: (message, { log }) =>
      runTask(message.taskId, {
        store: taskStore(),
        scheduler: taskScheduler(),
        files: fileStore(),
        config: config(),
        log,
        implementations,
        requeue: (task, delaySeconds) => queueClient().send(task.step, { taskId: task.id }, { delaySeconds }),
      }),
  });
}
