/** Consumer of the export queue: hands files out. */
import { exportUrl } from '#lib/operations/export-url.js';
import { stepConsumer } from '#lib/tasks/step-consumer.js';

export const handler = stepConsumer('export', {
  'export/url': exportUrl,
});
