/** Consumer of the office family's process queue: the tasks that run on its engines (lib/engines/families.ts), and only those engines in its package. */
import { familyImplementations } from '#lib/operations/engine-operations.js';
import { OFFICE_FAMILY } from '#lib/operations/families/office.js';
import { stepConsumer } from '#lib/tasks/step-consumer.js';
import { FAMILY_QUEUES } from '#lib/engines/families.js';

export const handler = stepConsumer('process', familyImplementations(OFFICE_FAMILY), FAMILY_QUEUES.office);
