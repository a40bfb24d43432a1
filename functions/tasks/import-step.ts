/** Consumer of the import queue: brings files in. */
import importAzureBlob from '#lib/operations/import/azure/blob/run.js';
import importBase64 from '#lib/operations/import/base64/run.js';
import importGoogleCloudStorage from '#lib/operations/import/google-cloud-storage/run.js';
import importRaw from '#lib/operations/import/raw/run.js';
import importS3 from '#lib/operations/import/s3/run.js';
import importSftp from '#lib/operations/import/sftp/run.js';
import importOpenstack from '#lib/operations/import/openstack/run.js';
import importUpload from '#lib/operations/import/upload/run.js';
import importUrl from '#lib/operations/import/url/run.js';
import { stepTable } from '#lib/operations/steps.js';
import { stepConsumer } from '#lib/tasks/step-consumer.js';

export const handler = stepConsumer('import', stepTable('import', [importUrl, importRaw, importBase64, importUpload, importS3, importAzureBlob, importGoogleCloudStorage, importSftp, importOpenstack]));
