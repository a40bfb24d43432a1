/** Consumer of the import queue: brings files in. */
import importAzureBlob from '#lib/file-api/operations/import/azure/blob/run.js';
import importBase64 from '#lib/file-api/operations/import/base64/run.js';
import importGoogleCloudStorage from '#lib/file-api/operations/import/google-cloud-storage/run.js';
import importRaw from '#lib/file-api/operations/import/raw/run.js';
import importS3 from '#lib/file-api/operations/import/s3/run.js';
import importSftp from '#lib/file-api/operations/import/sftp/run.js';
import importOpenstack from '#lib/file-api/operations/import/openstack/run.js';
import importUpload from '#lib/file-api/operations/import/upload/run.js';
import importUrl from '#lib/file-api/operations/import/url/run.js';
import { stepTable } from '#lib/file-api/operations/steps.js';
import { stepConsumer } from '#lib/wiring/step-consumer.js';

export const handler = stepConsumer('import', stepTable('import', [importUrl, importRaw, importBase64, importUpload, importS3, importAzureBlob, importGoogleCloudStorage, importSftp, importOpenstack]));
