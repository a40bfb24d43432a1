/**
 * Consumer of the step queues' dead-letter queues: a task whose message failed every delivery ends
 * in `error`, so no job waits for it forever.
 */
import { rootLogger } from '#lib/platform/logger.js';
import { taskScheduler, taskStore } from '#lib/platform/tasks.js';
import { sqsConsumer } from '#lib/queue/consumer.js';
import { stepMessage } from '#lib/tasks/step-consumer.js';

export const handler = sqsConsumer({
  schema: stepMessage,
  log: () => rootLogger().child({ consumer: 'dead-letter' }),
  async handle({ taskId }, { log }) {
    const failed = await taskStore().fail(
      taskId,
      { code: 'INTERNAL_ERROR', message: 'The task could not be completed; it failed on every attempt.' },
      { from: ['waiting', 'processing'] },
    );
    if (failed) {
      log.warn('task ended from the dead-letter queue', { taskId });
      await taskScheduler().afterEnd(failed);
    }
  },
});
