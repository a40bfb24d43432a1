/**
 * The exiftool engine (the Perl ExifTool of exiftool-vendored): metadata read into `result.metadata`
 * and written into a copy of the file. Each call runs its own `perl exiftool` through `runTool`, so it
 * is confined to the task's work folder like every native tool (a long-lived exiftool shared by tasks
 * could not be): the arguments are the ones exiftool-vendored builds for its own tasks, handed over in
 * an argument file as its stay-open mode does, so reading and writing give the same results.
 */
import { copyFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EngineCall, EngineResult } from '../operations/engine-task.js';
import { TaskFailure } from '../operations/types.js';
import { mimeType } from './formats.js';
import { runTool } from './tool.js';

let script: Promise<string> | undefined;

/** The exiftool script inside exiftool-vendored.pl (its lib/ beside it). */
function exiftoolScript(): Promise<string> {
  script ??= import('exiftool-vendored').then(({ exiftoolPath }) => exiftoolPath());
  return script;
}

/** Runs exiftool in the call's folder with `args` (one per line of an argument file). Exit code 1 is exiftool's "some file had an error". */
async function exiftool(call: EngineCall, args: string[]): Promise<{ stdout: string; stderr: string }> {
  const file = await exiftoolScript();
  for (const arg of args) {
    if (/[\r\n\0]/.test(arg)) throw new TaskFailure('CONVERSION_FAILED', 'exiftool could not write the metadata: an argument holds a line break.');
  }
  const argFile = path.join(call.dir, 'exiftool.args');
  await writeFile(argFile, `${args.filter((a) => a.trim() !== '').join('\n')}\n`);
  return runTool(call.choice.installed.executable ?? 'perl', [file, '-@', argFile], {
    ...call.tool,
    env: { LANG: 'C' },
    captureStdout: true,
    readOnly: [path.dirname(file)],
    okExitCodes: [1],
  });
}

/** Tags that describe where the engine saw the file, not the file itself. */
const LOCAL_TAGS = new Set(['SourceFile', 'Directory', 'FilePermissions', 'FileAccessDate', 'FileInodeChangeDate', 'FileModifyDate', 'ExifToolVersion', 'errors', 'warnings']);

/**
 * metadata: every tag exiftool reads, by its name (`{ "ImageWidth": 640, "Title": "…" }`). Read with
 * the MWG composite tags, as metadata/write writes them: `Keywords` is the list that was written.
 */
export async function readMetadata(call: EngineCall): Promise<EngineResult> {
  const [input] = call.inputs;
  const { stdout } = await exiftool(call, ['-charset', 'filename=utf8', '-struct', '-use', 'MWG', '-json', input!.path]);
  let raw: Record<string, unknown>;
  try {
    raw = (JSON.parse(stdout) as Array<Record<string, unknown>>)[0] ?? {};
  } catch (err) {
    throw new TaskFailure('CONVERSION_FAILED', `exiftool could not read ${input!.filename}.`, false, { cause: err });
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

/** metadata/write: a copy of the file with the given tags written. */
export async function writeMetadata(call: EngineCall): Promise<EngineResult> {
  const [input] = call.inputs;
  const tags = call.payload.metadata as Record<string, string | number>;
  const format = input!.format ?? 'bin';
  const [name] = call.names(format, 1);
  const out = call.output(name!);
  await copyFile(input!.path, out);
  const [{ WriteTask }, { DefaultWriteTaskOptions }] = await Promise.all([import('exiftool-vendored/dist/WriteTask.js'), import('exiftool-vendored')]);
  let args: string[];
  try {
    args = WriteTask.for(out, tags as never, { ...DefaultWriteTaskOptions, writeArgs: ['-overwrite_original'] }).args;
  } catch (err) {
    throw new TaskFailure('CONVERSION_FAILED', `exiftool could not write the metadata: ${(err as Error).message}`, false, { cause: err });
  }
  const { stderr } = await exiftool(call, args);
  const [error] = errorLines(stderr);
  if (error) {
    // exiftool names the file it wrote (" - /tmp/…/photo.jpg"): clients get the file's own name.
    const message = error.replace(/^error: /i, '').split(out).join(name!).split(call.tool.workDir).join('');
    throw new TaskFailure('CONVERSION_FAILED', `exiftool could not write the metadata: ${message}`);
  }
  return { files: [{ path: out, filename: name!, contentType: mimeType(format) }] };
}
