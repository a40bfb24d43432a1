/** Consumer of the dead-letter queues and of failed asynchronous invocations (lib/file-api/tasks/dead-letters.ts). */
import { rootLogger } from '#lib/kernel/root-logger.js';
import { taskScheduler, taskStore } from '#lib/wiring/tasks.js';
import { sqsConsumer } from '#lib/adapters/queue/consumer.js';
import { deadLetter, handleDeadLetter } from '#lib/file-api/tasks/dead-letters.js';

export const handler = sqsConsumer({
  schema: deadLetter,
  log: () => rootLogger().child({ consumer: 'dead-letter' }),
  handle: (message, { log }) => handleDeadLetter(message, { store: taskStore(), scheduler: taskScheduler(), log }),
});
