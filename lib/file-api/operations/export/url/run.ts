/**
 * `export/url`: temporary download URLs. Each input file is copied (server-side) under the export
 * task's own prefix, so deleting the export task deletes the copies and its URLs stop serving;
 * `archive_multiple_files` puts several files into one ZIP first. The result lists the files only:
 * their URLs are the service's own, signed each time the task is shown (lib/file-api/tasks/links.ts) and
 * answered by the download function (functions/files/download.ts) with a short storage redirect.
 */
import { implement } from '../../framework/define.js';
import { exportUrl } from './operation.js';
import { writeArchive } from '../../archive/stream.js';
import { outputKey } from '../../framework/types.js';
import { uniqueName } from '../../../../adapters/file-store/names.js';

export default implement(exportUrl, async (ctx) => {
  if (ctx.payload.archive_multiple_files && ctx.inputs.length > 1) {
    const file = await writeArchive(ctx, 'zip', 'archive.zip', ctx.inputs);
    return { result: { files: [file] }, credits: 0 };
  }

  // Two inputs may bring the same name (a PDF optimized and the same PDF retitled): the later one
  // is numbered, as a task's own outputs are, so that no copy overwrites another.
  const files = [];
  const used = new Set<string>();
  // Copies are server-side: progress by the bytes of the files copied so far.
  const total = Math.max(1, ctx.inputs.reduce((sum, f) => sum + (f.size ?? 0), 0));
  let done = 0;
  for (const input of ctx.inputs) {
    const filename = uniqueName(used, input.filename, input.dir);
    const copied = await ctx.files.copy(input.key, outputKey(ctx.task.id, filename, input.dir), { size: input.size });
    files.push({ filename, ...(input.dir ? { dir: input.dir } : {}), size: copied.size });
    done += input.size ?? 0;
    ctx.progress(done / total);
  }
  return { result: { files }, credits: 0 };
});
