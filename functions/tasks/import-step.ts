/** Consumer of the import queue: brings files in. */
import { importStaged } from '#lib/operations/import-staged.js';
import { importUrl } from '#lib/operations/import-url.js';
import { stepConsumer } from '#lib/tasks/step-consumer.js';

export const handler = stepConsumer('import', {
  'import/url': importUrl,
  'import/raw': importStaged,
  'import/base64': importStaged,
});
