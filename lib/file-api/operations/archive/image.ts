/** archive on the image function: the inputs streamed into one archive by archiver. */
import { wholeRun } from '../framework/define.js';
import { archive } from './operation.js';
import { EXTENSIONS, writeArchive } from './stream.js';

export default wholeRun(archive, 'image', async (ctx) => {
  const format = ctx.payload.output_format;
  const base = ctx.inputs.length === 1 ? ctx.inputs[0]!.filename.replace(/\.[^.]+$/, '') : 'archive';
  const filename = ctx.payload.filename ?? `${base}.${EXTENSIONS[format]}`;
  const file = await writeArchive(ctx, format, filename, ctx.inputs);
  return { result: { files: [file] }, engine: 'archiver', engineVersion: '8', credits: 1 };
});
