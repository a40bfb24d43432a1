/**
 * archive on the image function: the inputs streamed into one archive by archiver; the formats it
 * does not write by 7-Zip, through the engine machinery (downloaded, packed in a confined child).
 */
import { packInputs } from '../../../engines/archive/handlers.js';
import { wholeRun } from '../framework/define.js';
import { archive, SEVEN_ZIP_FORMATS } from './operation.js';
import { EXTENSIONS, writeArchive } from './stream.js';

export default wholeRun(archive, 'image', async (ctx) => {
  const format = ctx.payload.output_format;
  const base = ctx.inputs.length === 1 ? ctx.inputs[0]!.filename.replace(/\.[^.]+$/, '') : 'archive';
  const filename = ctx.payload.filename ?? `${base}.${EXTENSIONS[format]}`;
  const file = await writeArchive(ctx, format, filename, ctx.inputs);
  return { result: { files: [file] }, engine: 'archiver', engineVersion: '8', credits: 1 };
}, { handlers: { archivetool: packInputs }, when: (p) => (SEVEN_ZIP_FORMATS as readonly string[]).includes(p.output_format) });
