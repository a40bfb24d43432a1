/** Consumer of the export queue: hands files out. */
import exportAzureBlob from '#lib/operations/export/azure/blob/run.js';
import exportGoogleCloudStorage from '#lib/operations/export/google-cloud-storage/run.js';
import exportS3 from '#lib/operations/export/s3/run.js';
import exportSftp from '#lib/operations/export/sftp/run.js';
import exportOpenstack from '#lib/operations/export/openstack/run.js';
import exportUpload from '#lib/operations/export/upload/run.js';
import exportUrl from '#lib/operations/export/url/run.js';
import { stepTable } from '#lib/operations/steps.js';
import { stepConsumer } from '#lib/tasks/step-consumer.js';

export const handler = stepConsumer('export', stepTable('export', [exportUrl, exportUpload, exportS3, exportAzureBlob, exportGoogleCloudStorage, exportSftp, exportOpenstack]));
