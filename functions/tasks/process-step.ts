/** Consumer of the process queue: the CPU-bound operations. */
import { archive } from '#lib/operations/archive.js';
import { PROCESSING_IMPLEMENTATIONS } from '#lib/operations/processing.js';
import { stepConsumer } from '#lib/tasks/step-consumer.js';

export const handler = stepConsumer('process', {
  archive,
  // convert, thumbnail, watermark, capture-website, optimize, metadata, metadata/write, merge (lib/engines).
  ...PROCESSING_IMPLEMENTATIONS,
});
