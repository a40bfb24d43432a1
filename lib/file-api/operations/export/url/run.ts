/**
 * `export/url`: temporary download URLs. Each input file is copied (server-side) under the export
 * task's own prefix (./copies.ts), so deleting the export task deletes the copies and its URLs stop
 * serving; `archive_multiple_files` puts several files into one ZIP first. The result lists the files
 * only: their URLs are the service's own, signed each time the task is shown (lib/file-api/tasks/links.ts)
 * and answered by the download function (functions/files/download.ts) with a short storage redirect.
 */
import { implement } from '../../framework/define.js';
import { exportUrl } from './operation.js';
import { writeArchive } from '../../archive/stream.js';
import { archives, copyInputs } from './copies.js';

export default implement(exportUrl, async (ctx) => {
  if (archives(ctx.payload, ctx.inputs.length)) {
    const file = await writeArchive(ctx, 'zip', 'archive.zip', ctx.inputs);
    return { result: { files: [file] }, credits: 0 };
  }
  return copyInputs(ctx);
});
