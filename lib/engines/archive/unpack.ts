/**
 * An archive unpacked into a folder of the call, safely: listed first (core/limits.ts bounds, and the
 * names and links listing.ts refuses), then extracted by 7-Zip in its in-memory file system, of which
 * only regular files reach the disk, under the byte bound. A compressed tar (`tar.gz`…) is two
 * archives: the compressor's one file (listed and bounded as well), then the tar inside it.
 */
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { EngineCall, LocalFile } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { checkArchiveTotals } from '../core/limits.js';
import type { ToolPlace } from '../core/tool.js';
import { holdsOneFile, isCompressedTar, isEntryOf } from './formats.js';
import { checkEntries, ListingReader, type ArchiveEntry } from './listing.js';
import { hasEncryptedHeaders, runSevenZip, SevenZipError } from './sevenzip.js';

/** `password`: the archive's, when it is encrypted (CloudConvert's archive/extract field). */
export interface ArchivePasswordArgs {
  password?: string;
}

/** A file of an unpacked archive: where it is, and its path inside the archive (`/`-separated). */
export interface UnpackedFile {
  file: string;
  name: string;
}

/** The task failure a failed 7-Zip run is. */
async function failure(err: unknown, input: LocalFile, file: string, password: string | undefined): Promise<unknown> {
  if (!(err instanceof SevenZipError)) return err;
  const problem = err.problem === 'unreadable' && (await hasEncryptedHeaders(file)) ? 'password' : err.problem;
  if (problem === 'password') {
    return password === undefined
      ? new EngineFailure('ENCRYPTED_INPUT', `${input.filename} is encrypted: give its password in password.`, { cause: err })
      : new EngineFailure('INVALID_PASSWORD', `The password does not open ${input.filename}.`, { cause: err });
  }
  if (problem === 'write-limit') {
    return new EngineFailure('ARCHIVE_TOO_LARGE', `${input.filename} extracts to more bytes than its listing declares and than archives may (ARCHIVE_MAX_EXPANDED_BYTES).`, { cause: err });
  }
  return new EngineFailure('INVALID_INPUT', `${input.filename} could not be read as an archive (${input.format ?? 'unknown format'}).`, { cause: err });
}

/** Lists `file` and refuses it before extraction when it is unsafe or too large. */
async function listChecked(call: EngineCall<ArchivePasswordArgs>, input: LocalFile, file: string): Promise<ArchiveEntry[]> {
  const password = call.payload.password;
  // Read as it comes, and stopped past the entry limit: a listing of millions of entries is never held.
  const reader = new ListingReader();
  const stop = new AbortController();
  const signal = AbortSignal.any([call.tool.signal, stop.signal]);
  const onStdoutLine = (line: string) => {
    reader.line(line);
    if (reader.entries.length > call.config.ARCHIVE_MAX_ENTRIES && !stop.signal.aborted) stop.abort();
  };
  try {
    await runSevenZip({ ...call.tool, signal }, { command: 'l', args: ['-slt', file], inputs: [file], password, onStdoutLine });
  } catch (err) {
    if (!stop.signal.aborted || call.tool.signal.aborted) throw await failure(err, input, file, password);
  }
  reader.end();
  const entries = reader.entries;
  const totals = checkEntries(input.filename, entries);
  checkArchiveTotals(input.filename, totals, input.size, call.config);
  if (password === undefined && entries.some((e) => e.encrypted)) {
    throw new EngineFailure('ENCRYPTED_INPUT', `${input.filename} is encrypted: give its password in password.`);
  }
  return entries;
}

/** Extracts `file` into `folder` (regular files only), bounded by the expanded-bytes limit. */
async function extractInto(call: EngineCall<ArchivePasswordArgs>, input: LocalFile, file: string, folder: string, place: ToolPlace): Promise<void> {
  await mkdir(folder, { recursive: true });
  const password = call.payload.password;
  try {
    await runSevenZip(place, {
      command: 'x',
      args: ['-aou', `-o${folder}`, file],
      inputs: [file],
      outputs: [folder],
      tree: true,
      maxWriteBytes: call.config.ARCHIVE_MAX_EXPANDED_BYTES,
      password,
    });
  } catch (err) {
    throw await failure(err, input, file, password);
  }
}

/** Every regular file under `folder`, by its path inside it, in name order. */
export async function filesUnder(folder: string, prefix = ''): Promise<UnpackedFile[]> {
  const found: UnpackedFile[] = [];
  const entries = (await readdir(folder, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const file = path.join(folder, entry.name);
    if (entry.isFile()) found.push({ file, name: `${prefix}${entry.name}` });
    else if (entry.isDirectory()) found.push(...(await filesUnder(file, `${prefix}${entry.name}/`)));
  }
  return found;
}

/** The input archive's files, unpacked under the call's folder. */
export async function unpack(call: EngineCall<ArchivePasswordArgs>): Promise<UnpackedFile[]> {
  const input = call.inputs[0]!;
  let source = input.path;
  if (isCompressedTar(input.format)) {
    await listChecked(call, input, source);
    const stage = path.join(call.dir, 'tar');
    await extractInto(call, input, source, stage, call.tool);
    const inner = await filesUnder(stage);
    if (inner.length !== 1) throw new EngineFailure('INVALID_INPUT', `${input.filename} is not a compressed tar: it holds ${inner.length} files.`);
    source = inner[0]!.file;
  }
  await listChecked(call, input, source);
  const folder = path.join(call.dir, 'entries');
  await extractInto(call, input, source, folder, call.tool);
  const files = (await filesUnder(folder)).filter((f) => isEntryOf(input.format, f.name));
  // A compressed file is named after the archive's name without its extension, as gunzip names it
  // (7-Zip would name it after the call's copy of the input).
  if (holdsOneFile(input.format) && files.length === 1) {
    return [{ file: files[0]!.file, name: input.filename.replace(/\.[^.]+$/, '') || files[0]!.name }];
  }
  return files;
}
