/** Consumer of the image family's process queue: the tasks that run on its engines (lib/engines/families.ts), and only those engines in its package. */
import { familyImplementations } from '#lib/operations/engine-operations.js';
import { IMAGE_FAMILY } from '#lib/operations/families/image.js';
import { stepConsumer } from '#lib/tasks/step-consumer.js';
import { FAMILY_QUEUES } from '#lib/engines/families.js';

export const handler = stepConsumer('process', familyImplementations(IMAGE_FAMILY), FAMILY_QUEUES.image);
