/**
 * `import/raw` and `import/base64`: the content arrives with the request, so the create endpoint
 * stores it right away (items in the state store are small; files are not) and records its name,
 * size and MD5. The step reports that file; it reads the file's size from storage only for a task
 * recorded without one (made by an older version).
 */
import { TaskFailure, outputKey, type Implementation } from '../framework/types.js';

export const importStaged: Implementation = async (ctx) => {
  const staged = ctx.task.staged;
  if (!staged) throw new TaskFailure('INTERNAL_ERROR', 'The imported content was not stored.');
  const size = staged.size ?? (await ctx.files.head(outputKey(ctx.task.id, staged.filename)))?.size;
  if (size === undefined) throw new TaskFailure('INTERNAL_ERROR', 'The imported content is no longer stored.');
  return { result: { files: [{ filename: staged.filename, size, md5: staged.md5 }] }, credits: 0 };
};
