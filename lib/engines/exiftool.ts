/**
 * The exiftool engine (exiftool-vendored, on perl): metadata read into `result.metadata` and written
 * into a copy of the file. One exiftool process per warm instance, started on first use.
 */
import { copyFile } from 'node:fs/promises';
import type { ExifTool } from 'exiftool-vendored';
import type { EngineCall, EngineResult } from '../operations/engine-task.js';
import { TaskFailure } from '../operations/types.js';
import { mimeType } from './formats.js';

let shared: Promise<ExifTool> | undefined;

function exiftool(perl: string): Promise<ExifTool> {
  shared ??= import('exiftool-vendored').then(
    ({ ExifTool }) =>
      new ExifTool({
        maxProcs: 1,
        taskTimeoutMillis: 60_000,
        // The perl the registry found (Lambda layers put it outside /usr/bin).
        ignoreShebang: perl !== '/usr/bin/perl',
        checkPerl: false,
      }),
  );
  return shared;
}

/** Stops the exiftool process (tests and benchmarks, so that Node can exit). */
export async function endExiftool(): Promise<void> {
  const running = shared;
  shared = undefined;
  if (running) await (await running).end();
}

/** Tags that describe where the engine saw the file, not the file itself. */
const LOCAL_TAGS = new Set(['SourceFile', 'Directory', 'FilePermissions', 'FileAccessDate', 'FileInodeChangeDate', 'FileModifyDate', 'ExifToolVersion', 'errors', 'warnings']);

/** metadata: every tag exiftool reads, by its name (`{ "ImageWidth": 640, "Title": "…" }`). */
export async function readMetadata(call: EngineCall): Promise<EngineResult> {
  const [input] = call.inputs;
  const tool = await exiftool(call.choice.installed.executable ?? 'perl');
  const raw = (await tool.readRaw(input!.path, { readArgs: ['-struct'] })) as Record<string, unknown>;
  const metadata: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) if (!LOCAL_TAGS.has(key)) metadata[key] = value;
  metadata.FileName = input!.filename;
  return { files: [], metadata };
}

/** metadata/write: a copy of the file with the given tags written. */
export async function writeMetadata(call: EngineCall): Promise<EngineResult> {
  const [input] = call.inputs;
  const tags = call.payload.metadata as Record<string, string | number>;
  const format = input!.format ?? 'bin';
  const [name] = call.names(format, 1);
  const out = call.output(name!);
  await copyFile(input!.path, out);
  const tool = await exiftool(call.choice.installed.executable ?? 'perl');
  try {
    await tool.write(out, tags as never, { writeArgs: ['-overwrite_original'] });
  } catch (err) {
    throw new TaskFailure('CONVERSION_FAILED', `exiftool could not write the metadata: ${(err as Error).message}`, false, { cause: err });
  }
  return { files: [{ path: out, filename: name!, contentType: mimeType(format) }] };
}
