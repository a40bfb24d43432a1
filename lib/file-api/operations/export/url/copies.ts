/**
 * `export/url`'s copies: each input file copied (server-side) under the export task's own prefix, so
 * that deleting the export task deletes the copies and its URLs stop serving. Apart from the ZIP of
 * `archive_multiple_files` (./run.ts) so that the functions that run export/url inline (POST /v2/jobs,
 * lib/file-api/operations/inline-runs.ts) carry no archiver.
 */
import type { Implementation } from '../../framework/types.js';
import { outputKey } from '../../framework/types.js';
import { uniqueName } from '../../../../adapters/file-store/names.js';
import type { exportUrl } from './operation.js';
import type { PayloadOf } from '../../framework/define.js';

/** Whether the task makes a ZIP of its inputs instead of copying them (./run.ts). */
export const archives = (payload: PayloadOf<typeof exportUrl>, inputs: number): boolean => Boolean(payload.archive_multiple_files) && inputs > 1;

export const copyInputs: Implementation<PayloadOf<typeof exportUrl>> = async (ctx) => {
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
};
