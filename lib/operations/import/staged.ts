/**
 * `import/raw` and `import/base64`: the content arrives with the request, so the create endpoint
 * stores it right away (items in the state store are small; files are not). The step only confirms
 * the stored file and reports it.
 */
import { TaskFailure, outputKey, type Implementation } from '../types.js';

export const importStaged: Implementation = async (ctx) => {
  const staged = ctx.task.staged as { filename: string; md5: string } | undefined;
  if (!staged) throw new TaskFailure('INTERNAL_ERROR', 'The imported content was not stored.');
  const head = await ctx.files.head(outputKey(ctx.task.id, staged.filename));
  if (!head) throw new TaskFailure('INTERNAL_ERROR', 'The imported content is no longer stored.');
  return { result: { files: [{ filename: staged.filename, size: head.size, md5: staged.md5 }] }, credits: 0 };
};
