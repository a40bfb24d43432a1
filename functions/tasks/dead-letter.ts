/** Consumer of the dead-letter queues and of failed asynchronous invocations (lib/tasks/dead-letters.ts). */
import { rootLogger } from '#lib/platform/logger.js';
import { taskScheduler, taskStore } from '#lib/platform/tasks.js';
import { sqsConsumer } from '#lib/queue/consumer.js';
import { deadLetter, handleDeadLetter } from '#lib/tasks/dead-letters.js';

export const handler = sqsConsumer({
  schema: deadLetter,
  log: () => rootLogger().child({ consumer: 'dead-letter' }),
  handle: (message, { log }) => handleDeadLetter(message, { store: taskStore(), scheduler: taskScheduler(), log }),
});
