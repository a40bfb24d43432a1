/**
 * The exiftool engine: metadata read into `result.metadata` and written into a copy of the file. Two
 * installations:
 *
 * - `perl` (preferred): the Perl ExifTool of exiftool-vendored on the system perl. Each call runs its
 *   own `perl exiftool` through `runTool`, so it is confined to the task's work folder like every
 *   native tool (a long-lived exiftool shared by tasks could not be).
 * - `wasm`: ExifTool in WebAssembly (exiftool-wasm.ts) where there is no perl, in a worker thread kept
 *   for the process, seeing only its input in an in-memory file system.
 *
 * Both get the arguments exiftool-vendored builds for its own tasks, handed over in an argument file
 * as its stay-open mode does, so reading and writing give the same results.
 */
import { copyFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isWritableTag, type MetadataWriteArgs } from './metadata-tags.js';
import type { EngineCall, EngineResult } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { mimeType } from '../core/formats.js';
import { runExiftoolWasm } from './exiftool-wasm.js';
import { exiftoolWasm } from '../core/shipped.js';
import { runTool } from '../core/tool.js';

let script: Promise<string> | undefined;

/** The exiftool script inside exiftool-vendored.pl (its lib/ beside it). */
function exiftoolScript(): Promise<string> {
  script ??= import('exiftool-vendored').then(({ exiftoolPath }) => exiftoolPath());
  return script;
}

/** Whether the call runs ExifTool in WebAssembly (the engine's `wasm` version). */
const onWasm = (call: EngineCall) => call.choice.installed.variant === 'wasm';

/**
 * Runs exiftool in the call's folder with `args` (one per line of an argument file). Exit code 1 is
 * exiftool's "some file had an error". `wasm`: the file ExifTool reads and the one it writes (`-o`).
 */
async function exiftool(
  call: EngineCall,
  args: string[],
  wasm?: { input: string; output?: string },
): Promise<{ stdout: string; stderr: string; created?: boolean; overflow?: boolean }> {
  for (const arg of args) {
    if (/[\r\n\0]/.test(arg)) throw new EngineFailure('CONVERSION_FAILED', 'exiftool could not write the metadata: an argument holds a line break.');
  }
  const argFile = path.join(call.dir, 'exiftool.args');
  const lines = args.filter((a) => a.trim() !== '');
  if (wasm) {
    const module = exiftoolWasm();
    if (!module) throw new Error('ExifTool in WebAssembly (@uswriting/exiftool) is not installed');
    return runExiftoolWasm(module, { args: lines, input: wasm.input, output: wasm.output, argFile }, {
      signal: call.tool.signal,
      workDir: call.tool.workDir,
      maxOutputBytes: call.config.EXIFTOOL_WASM_MAX_WRITE_BYTES + OUTPUT_ALLOWANCE,
    });
  }
  const file = await exiftoolScript();
  await writeFile(argFile, `${lines.join('\n')}\n`);
  return runTool(call.choice.installed.executable ?? 'perl', [file, '-@', argFile], {
    ...call.tool,
    env: { LANG: 'C' },
    captureStdout: true,
    readOnly: [path.dirname(file)],
    okExitCodes: [1],
  });
}

/** What a write may add to a file in WebAssembly beyond its size (at most 100 tags of 10 000 characters). */
const OUTPUT_ALLOWANCE = 16 * 1024 * 1024;

/** Tags that describe where the engine saw the file, not the file itself. */
const LOCAL_TAGS = new Set(['SourceFile', 'Directory', 'FilePermissions', 'FileAccessDate', 'FileInodeChangeDate', 'FileModifyDate', 'ExifToolVersion', 'errors', 'warnings']);

/**
 * metadata: every tag exiftool reads, by its name (`{ "ImageWidth": 640, "Title": "…" }`). Read with
 * the MWG composite tags, as metadata/write writes them: `Keywords` is the list that was written.
 */
export async function readMetadata(call: EngineCall): Promise<EngineResult> {
  const [input] = call.inputs;
  const { stdout } = await exiftool(
    call,
    ['-charset', 'filename=utf8', '-struct', '-use', 'MWG', '-json', input!.path],
    onWasm(call) ? { input: input!.path } : undefined,
  );
  let raw: Record<string, unknown>;
  try {
    raw = (JSON.parse(stdout) as Array<Record<string, unknown>>)[0] ?? {};
  } catch (err) {
    throw new EngineFailure('CONVERSION_FAILED', `exiftool could not read ${input!.filename}.`, { cause: err });
  }
  const metadata: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) if (!LOCAL_TAGS.has(key)) metadata[key] = value;
  metadata.FileName = input!.filename;
  return { files: [], metadata };
}

/** exiftool's stderr lines that are errors (as exiftool-vendored tells them from warnings). */
function errorLines(stderr: string): string[] {
  return stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/\bwarning: |\bnothing to (?:write|do)\b/i.test(l) && /error|warning/i.test(l));
}

/**
 * metadata/write: a copy of the file with the given tags written. Perl rewrites a copy in place
 * (`-overwrite_original`); WebAssembly writes the copy (`-o`), for files up to
 * EXIFTOOL_WASM_MAX_WRITE_BYTES.
 */
export async function writeMetadata(call: EngineCall<MetadataWriteArgs>): Promise<EngineResult> {
  const [input] = call.inputs;
  const tags = call.payload.metadata;
  // Checked at creation; checked again here, where a name becomes an exiftool argument.
  const refused = Object.keys(tags).find((tag) => !isWritableTag(tag));
  if (refused !== undefined) throw new EngineFailure('INVALID_INPUT', `${JSON.stringify(refused)} is not a metadata tag that can be written.`);
  const format = input!.format ?? 'bin';
  const [name] = call.names(format, 1);
  const out = call.output(name!);
  const wasm = onWasm(call);
  const limit = call.config.EXIFTOOL_WASM_MAX_WRITE_BYTES;
  if (wasm && input!.size > limit) {
    throw new EngineFailure(
      'FILE_TOO_LARGE',
      `${input!.filename} is ${input!.size} bytes; ExifTool in WebAssembly writes metadata into files of up to ${limit} bytes (EXIFTOOL_WASM_MAX_WRITE_BYTES).`,
    );
  }
  if (!wasm) await copyFile(input!.path, out);
  const [{ WriteTask }, { DefaultWriteTaskOptions }] = await Promise.all([import('exiftool-vendored/dist/WriteTask.js'), import('exiftool-vendored')]);
  let args: string[];
  try {
    args = wasm
      ? WriteTask.for(input!.path, tags as never, { ...DefaultWriteTaskOptions, writeArgs: ['-o', out] }).args
      : WriteTask.for(out, tags as never, { ...DefaultWriteTaskOptions, writeArgs: ['-overwrite_original'] }).args;
  } catch (err) {
    throw new EngineFailure('CONVERSION_FAILED', `exiftool could not write the metadata: ${(err as Error).message}`, { cause: err });
  }
  const { stderr, created, overflow } = await exiftool(call, args, wasm ? { input: input!.path, output: out } : undefined);
  const [error] = errorLines(stderr);
  if (error) {
    // exiftool names the files it read and wrote (" - /tmp/…/photo.jpg"): clients get the files' own names.
    const message = error.replace(/^error: /i, '').split(out).join(name!).split(input!.path).join(input!.filename).split(call.tool.workDir).join('');
    throw new EngineFailure('CONVERSION_FAILED', `exiftool could not write the metadata: ${message}`);
  }
  if (overflow) {
    throw new EngineFailure('FILE_TOO_LARGE', `exiftool wrote more than ${limit} bytes for ${input!.filename} (EXIFTOOL_WASM_MAX_WRITE_BYTES).`);
  }
  // Nothing to change: the copy is the file itself, as with perl.
  if (wasm && !created) await copyFile(input!.path, out);
  return { files: [{ path: out, filename: name!, contentType: mimeType(format) }] };
}
