/** Input files streamed into one zip, tar or tar.gz file of the task (archive, and export/url's archive_multiple_files). */
import { PassThrough } from 'node:stream';
import { createGzip } from 'node:zlib';
import { ZipArchive, TarArchive } from 'archiver';
import { safeDir, safeFilename } from '../../../adapters/file-store/names.js';
import { countBytes, within } from '../../records/progress.js';
import { TaskFailure, type InputFile, type OperationContext } from '../framework/types.js';

export const EXTENSIONS: Record<string, string> = { zip: 'zip', tar: 'tar', 'tar.gz': 'tar.gz', tgz: 'tgz' };
const MIME: Record<string, string> = { zip: 'application/zip', tar: 'application/x-tar', 'tar.gz': 'application/gzip', tgz: 'application/gzip' };

/** Names inside the archive: the file's sub-directory kept (both made safe again), duplicates numbered. */
function entryNames(inputs: InputFile[]): string[] {
  const seen = new Map<string, number>();
  return inputs.map((f) => {
    const dir = safeDir(f.dir);
    const base = dir ? `${dir}/${safeFilename(f.filename)}` : safeFilename(f.filename);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    if (n === 0) return base;
    const dot = base.lastIndexOf('.');
    return dot > 0 ? `${base.slice(0, dot)} (${n})${base.slice(dot)}` : `${base} (${n})`;
  });
}

/** Streams the input files into an archive and stores it as `filename`. */
export async function writeArchive(ctx: OperationContext, format: string, filename: string, inputs: InputFile[]) {
  if (!inputs.length) throw new TaskFailure('INVALID_INPUT', 'There are no input files to archive.');
  const archive = format === 'zip' ? new ZipArchive({ zlib: { level: 6 } }) : new TarArchive();
  const out = new PassThrough();
  const pipeline = format === 'tar.gz' || format === 'tgz' ? archive.pipe(createGzip()).pipe(out) : archive.pipe(out);
  const names = entryNames(inputs);
  const stored = ctx.save(filename, pipeline, { contentType: MIME[format] });
  // Progress by the input bytes read into the archive over their total.
  const total = Math.max(1, inputs.reduce((sum, f) => sum + (f.size ?? 0), 0));
  let before = 0;
  const feeding = (async () => {
    for (const [i, file] of inputs.entries()) {
      const size = file.size ?? 0;
      const read = countBytes(await ctx.open(file), size, within(ctx.progress, before / total, (before + size) / total));
      before += size;
      // Entries are appended one by one: archiver reads a stream only when it gets to it.
      archive.append(read, { name: names[i]!, ...(format === 'zip' ? {} : { size: file.size }) });
    }
    await archive.finalize();
  })();
  // Whichever side fails first stops the other; the later rejection is then expected.
  stored.catch(() => {});
  feeding.catch(() => {});
  try {
    const [file] = await Promise.all([stored, feeding]);
    return file;
  } catch (err) {
    archive.abort();
    out.destroy();
    throw err;
  }
}
