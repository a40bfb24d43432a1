/** Consumer of the import queue: brings files in. */
import { importStaged } from '#lib/operations/import-staged.js';
import { importUrl } from '#lib/operations/import-url.js';
import { lazy } from '#lib/operations/lazy.js';
import { stepConsumer } from '#lib/tasks/step-consumer.js';

export const handler = stepConsumer('import', {
  'import/url': importUrl,
  'import/raw': importStaged,
  'import/base64': importStaged,
  // User storage: each SDK is loaded when a task first needs it.
  'import/s3': lazy(async () => (await import('#lib/operations/s3.js')).importS3),
  'import/azure/blob': lazy(async () => (await import('#lib/operations/azure-blob.js')).importAzureBlob),
  'import/google-cloud-storage': lazy(async () => (await import('#lib/operations/google-cloud-storage.js')).importGoogleCloudStorage),
});
