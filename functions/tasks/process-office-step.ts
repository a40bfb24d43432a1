/** Consumer of the office family's process queue: the tasks that run on its engines (lib/engines/families.ts), and only those engines in its package. */
import convert from '#lib/operations/convert/office.js';
import { familyTable } from '#lib/operations/steps.js';
import { stepConsumer } from '#lib/tasks/step-consumer.js';
import { FAMILY_QUEUES } from '#lib/engines/families.js';

/** This function's share of each operation it runs (exactly those whose engines are in its family: checked by the compiler). */
export const runs = [convert] as const;
export const implementations = familyTable('office', runs);
export const handler = stepConsumer('process', implementations, FAMILY_QUEUES.office);
