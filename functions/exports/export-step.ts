/** Consumer of the export queue: hands files out. */
import { exportUpload } from '#lib/operations/export-upload.js';
import { exportUrl } from '#lib/operations/export-url.js';
import { lazy } from '#lib/operations/lazy.js';
import { withStorageAliases } from '#lib/operations/storage-catalog.js';
import { stepConsumer } from '#lib/tasks/step-consumer.js';

export const handler = stepConsumer(
  'export',
  withStorageAliases({
    'export/url': exportUrl,
    'export/upload': exportUpload,
    // User storage: each SDK is loaded when a task first needs it.
    'export/s3': lazy(async () => (await import('#lib/operations/s3.js')).exportS3),
    'export/azure/blob': lazy(async () => (await import('#lib/operations/azure-blob.js')).exportAzureBlob),
    'export/google-cloud-storage': lazy(async () => (await import('#lib/operations/google-cloud-storage.js')).exportGoogleCloudStorage),
  }),
);
