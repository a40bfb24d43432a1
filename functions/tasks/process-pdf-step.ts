/** Consumer of the pdf family's process queue: the tasks that run on its engines (lib/engines/core/families.ts), and only those engines in its package. */
import { implementations, runs } from '#functions/engines/pdf.js';
import { stepConsumer } from '#lib/wiring/step-consumer.js';
import { lambdaEngineInvoker } from '#lib/wiring/engine-invoker.js';
import { FAMILY_QUEUES } from '#lib/engines/core/families.js';

/** Its family's engines run inline (locally) or in the pdf engine function (ENGINE_ISOLATION=function). */
export { implementations, runs };
export const handler = stepConsumer('process', implementations, FAMILY_QUEUES.pdf, lambdaEngineInvoker);
