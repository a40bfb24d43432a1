/**
 * `export/url`: temporary download URLs. Each input file is copied (server-side) under the export
 * task's own prefix and signed for 24 hours, so deleting the export task deletes the copies and the
 * URLs stop serving; `archive_multiple_files` puts several files into one ZIP first.
 */
import { writeArchive } from './archive.js';
import { outputKey, type Implementation } from './types.js';

export const EXPORT_URL_SECONDS = 24 * 60 * 60;

export const exportUrl: Implementation = async (ctx) => {
  const inline = Boolean(ctx.payload.inline);
  const sign = (key: string, filename: string) =>
    ctx.files.signedGetUrl(key, { expiresInSeconds: EXPORT_URL_SECONDS, filename, inline });

  if (ctx.payload.archive_multiple_files && ctx.inputs.length > 1) {
    const file = await writeArchive(ctx, 'zip', 'archive.zip', ctx.inputs);
    return { result: { files: [{ ...file, url: await sign(outputKey(ctx.task.id, file.filename), file.filename) }] }, credits: 0 };
  }

  const files = [];
  for (const input of ctx.inputs) {
    const key = outputKey(ctx.task.id, input.filename, input.dir);
    const copied = await ctx.files.copy(input.key, key);
    files.push({
      filename: input.filename,
      ...(input.dir ? { dir: input.dir } : {}),
      size: copied.size,
      url: await sign(key, input.filename),
    });
  }
  return { result: { files }, credits: 0 };
};
