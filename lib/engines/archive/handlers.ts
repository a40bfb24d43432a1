/**
 * The archive engine's handlers: `archive/extract` (one output per entry, its folder kept as the
 * file's `dir`, names made safe by the one rule of file-store/names.ts) and `convert` from any archive
 * it reads to one it writes (unpacked, then packed again: 7-Zip writes a compressed tar as a tar and
 * then its compressor).
 */
import { copyFile, link, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { safeDir, safeFilename, uniqueName } from '../../adapters/file-store/names.js';
import type { EngineCall, EngineResult } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { normalizeFormat } from '../core/formats.js';
import { ARCHIVE_CONTENT_TYPES, ARCHIVE_OUTPUT_FORMATS, writePlan, type ArchiveOutputFormat } from './formats.js';
import { runSevenZip } from './sevenzip.js';
import { unpack, type ArchivePasswordArgs } from './unpack.js';

export type ExtractArgs = ArchivePasswordArgs;

export interface ConvertArchiveArgs extends ArchivePasswordArgs {
  output_format: string;
  filename?: string;
}

export async function extractArchive(call: EngineCall<ExtractArgs>): Promise<EngineResult> {
  const files = await unpack(call);
  return {
    files: files.map(({ file, name }) => {
      const at = name.lastIndexOf('/');
      const dir = at > 0 ? safeDir(name.slice(0, at)) : undefined;
      return { path: file, filename: safeFilename(name.slice(at + 1)), ...(dir ? { dir } : {}) };
    }),
  };
}

/** The input's name without its archive extensions (`a.tar.gz` → `a`). */
const baseName = (filename: string) => filename.replace(/(\.tar)?\.[^.]+$/i, '') || 'archive';

export async function convertArchive(call: EngineCall<ConvertArchiveArgs>): Promise<EngineResult> {
  const format = normalizeFormat(call.payload.output_format) as ArchiveOutputFormat;
  if (!ARCHIVE_OUTPUT_FORMATS.includes(format)) throw new EngineFailure('UNSUPPORTED_FORMAT', `7-Zip does not write ${format}.`);
  const files = await unpack(call);
  const input = call.inputs[0]!;
  const plan = writePlan(format);
  const extension = call.payload.output_format.toLowerCase().replace(/^\./, '');
  if (plan.single) {
    const out = path.dirname(call.output('x'));
    if (files.length !== 1) throw new EngineFailure('INVALID_INPUT', `A ${format} file holds one file, and ${input.filename} has ${files.length}.`);
    const only = files[0]!;
    const filename = safeFilename(call.payload.filename ?? `${path.posix.basename(only.name)}.${extension}`);
    await runSevenZip({ ...call.tool, cwd: path.dirname(only.file) }, { command: 'a', args: [`-t${plan.type}`, path.join(out, filename), path.basename(only.file)], inputs: [only.file], outputs: [out] });
    return { files: [{ path: path.join(out, filename), filename, contentType: ARCHIVE_CONTENT_TYPES[format] }] };
  }
  if (!files.length) throw new EngineFailure('INVALID_INPUT', `${input.filename} has no files to put into a ${format} archive.`);
  const filename = safeFilename(call.payload.filename ?? `${baseName(input.filename)}.${extension}`);
  return pack(call, path.join(call.dir, 'entries'), files.map((f) => f.file), format, filename);
}

/**
 * Packs the files under `root` (`files`, each by its path under it) into `filename` of the call's
 * outputs: one 7-Zip run for an archive, two for a compressed tar (the tar, then its compressor).
 */
async function pack(call: EngineCall, root: string, files: string[], format: ArchiveOutputFormat, filename: string): Promise<EngineResult> {
  const plan = writePlan(format);
  const target = call.output(filename);
  const out = path.dirname(target);
  const place = (cwd: string) => ({ ...call.tool, cwd });
  if (!plan.compress) {
    await runSevenZip(place(root), { command: 'a', args: [`-t${plan.type}`, target, '*'], inputs: files, outputs: [out] });
  } else {
    const stage = path.join(call.dir, 'packed');
    await mkdir(stage, { recursive: true });
    const tar = path.join(stage, `${baseName(filename)}.tar`);
    await runSevenZip(place(root), { command: 'a', args: ['-ttar', tar, '*'], inputs: files, outputs: [stage] });
    await runSevenZip(place(stage), { command: 'a', args: [`-t${plan.compress}`, target, path.basename(tar)], inputs: [tar], outputs: [out] });
  }
  return { files: [{ path: target, filename: path.basename(target), contentType: ARCHIVE_CONTENT_TYPES[format] }] };
}

export interface PackArgs {
  output_format: string;
  filename?: string;
}

/**
 * The `archive` operation's formats archiver does not write (7z, tar.bz2, tar.xz): every input under
 * its own name (made unique) in a folder of the call, packed there.
 */
export async function packInputs(call: EngineCall<PackArgs>): Promise<EngineResult> {
  const format = normalizeFormat(call.payload.output_format) as ArchiveOutputFormat;
  const root = path.join(call.dir, 'inputs');
  await mkdir(root, { recursive: true });
  const used = new Set<string>();
  const files: string[] = [];
  for (const input of call.inputs) {
    const file = path.join(root, uniqueName(used, safeFilename(input.filename)));
    // A link of the downloaded file, not a copy (the same folder tree); a copy where links are not allowed.
    await link(input.path, file).catch(() => copyFile(input.path, file));
    files.push(file);
  }
  const base = call.inputs.length === 1 ? baseName(call.inputs[0]!.filename) : 'archive';
  const extension = call.payload.output_format.toLowerCase();
  return pack(call, root, files, format, safeFilename(call.payload.filename ?? `${base}.${extension}`));
}
