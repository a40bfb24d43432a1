/** Consumer of the export queue: hands files out. */
import exportAzureBlob from '#lib/file-api/operations/export/azure/blob/run.js';
import exportGoogleCloudStorage from '#lib/file-api/operations/export/google-cloud-storage/run.js';
import exportS3 from '#lib/file-api/operations/export/s3/run.js';
import exportSftp from '#lib/file-api/operations/export/sftp/run.js';
import exportOpenstack from '#lib/file-api/operations/export/openstack/run.js';
import exportUpload from '#lib/file-api/operations/export/upload/run.js';
import exportUrl from '#lib/file-api/operations/export/url/run.js';
import { stepTable } from '#lib/file-api/operations/steps.js';
import { stepConsumer } from '#lib/wiring/step-consumer.js';

export const handler = stepConsumer('export', stepTable('export', [exportUrl, exportUpload, exportS3, exportAzureBlob, exportGoogleCloudStorage, exportSftp, exportOpenstack]));
