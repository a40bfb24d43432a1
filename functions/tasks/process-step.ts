/** Consumer of the process queue: the CPU-bound operations. */
import { archive } from '#lib/operations/archive.js';
import { stepConsumer } from '#lib/tasks/step-consumer.js';

export const handler = stepConsumer('process', {
  archive,
});
