/**
 * The implementations tests run tasks with, from the same modules and tables as the step functions:
 * each import and export, and every process operation with every family's handlers merged (a test
 * process has every engine this machine has). Single ones are named for the tests that build their own
 * small tables.
 */
import { runs as chromiumRuns } from '#functions/tasks/process-chromium-step.js';
import { runs as imageRuns } from '#functions/tasks/process-image-step.js';
import { runs as mediaRuns } from '#functions/tasks/process-media-step.js';
import { runs as officeRuns } from '#functions/tasks/process-office-step.js';
import { runs as pdfRuns } from '#functions/tasks/process-pdf-step.js';
import exportAzureBlob from '#lib/file-api/operations/export/azure/blob/run.js';
import exportGoogleCloudStorage from '#lib/file-api/operations/export/google-cloud-storage/run.js';
import exportS3 from '#lib/file-api/operations/export/s3/run.js';
import exportSftp from '#lib/file-api/operations/export/sftp/run.js';
import exportOpenstack from '#lib/file-api/operations/export/openstack/run.js';
import exportUploadRun from '#lib/file-api/operations/export/upload/run.js';
import exportUrlRun from '#lib/file-api/operations/export/url/run.js';
import importAzureBlob from '#lib/file-api/operations/import/azure/blob/run.js';
import importBase64 from '#lib/file-api/operations/import/base64/run.js';
import importGoogleCloudStorage from '#lib/file-api/operations/import/google-cloud-storage/run.js';
import importRaw from '#lib/file-api/operations/import/raw/run.js';
import importS3 from '#lib/file-api/operations/import/s3/run.js';
import importSftp from '#lib/file-api/operations/import/sftp/run.js';
import importOpenstack from '#lib/file-api/operations/import/openstack/run.js';
import importUpload from '#lib/file-api/operations/import/upload/run.js';
import importUrlRun from '#lib/file-api/operations/import/url/run.js';
import { mergedFamilyTable, stepTable } from '#lib/file-api/operations/steps.js';
import type { Implementation } from '#lib/file-api/operations/framework/types.js';

export const IMPORTS = stepTable('import', [importUrlRun, importRaw, importBase64, importUpload, importS3, importAzureBlob, importGoogleCloudStorage, importSftp, importOpenstack]);
export const EXPORTS = stepTable('export', [exportUrlRun, exportUploadRun, exportS3, exportAzureBlob, exportGoogleCloudStorage, exportSftp, exportOpenstack]);
export const PROCESSING_IMPLEMENTATIONS = mergedFamilyTable([...imageRuns, ...mediaRuns, ...pdfRuns, ...chromiumRuns, ...officeRuns]);
/** Every operation (aliases included). */
export const ALL_IMPLEMENTATIONS = { ...IMPORTS, ...PROCESSING_IMPLEMENTATIONS, ...EXPORTS };

export const importUrl = IMPORTS['import/url']!;
export const importStaged = IMPORTS['import/raw']!;
export const exportUrl = EXPORTS['export/url']!;
export const exportUpload = EXPORTS['export/upload']!;
export const archive = PROCESSING_IMPLEMENTATIONS.archive!;

/** An implementation that runs until its task is cancelled or times out; `started` resolves once it runs. */
export function untilAborted(): { implementation: Implementation; started: Promise<void> } {
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const implementation: Implementation = (ctx) =>
    new Promise((_, reject) => {
      started();
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
    });
  return { implementation, started: running };
}
