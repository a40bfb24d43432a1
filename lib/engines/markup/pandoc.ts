/**
 * The pandoc engine: markup and text documents each way, in two runs of Debian's pandoc 2.17.
 * 1. The reader, under `--sandbox` (it reads the input and nothing else: no `\input`, `.. include::`,
 *    `#+INCLUDE`, no network), writes the document tree as JSON and the input's own images into the
 *    call's media folder.
 * 2. The writer reads that tree: under `--sandbox` too, except the writers that need pandoc's data
 *    files (formats.ts), which get a tree naming nothing outside the media folder (pandoc-ast.ts).
 * Both run confined as every tool (runTool), with a heap limit: a document that would need more is
 * refused rather than taking the function's memory. Only the reader and writer names of formats.ts
 * and the call's own paths reach the command line.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EngineCall, EngineResult } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { mimeType, normalizeFormat } from '../core/formats.js';
import { runTool, ToolError } from '../core/tool.js';
import { PANDOC_READERS, PANDOC_WRITERS } from './formats.js';
import { sanitizeAst } from './pandoc-ast.js';

/** pandoc's heap limit (GHC's `-M`): over it pandoc stops with "heap overflow" (exit 251). */
const HEAP_LIMIT = '1536m';

/** One pandoc run; its failure is `code` (the reader's: the input is not what its format says; the writer's: the conversion failed). */
async function pandoc(call: EngineCall, args: string[], code: 'INVALID_INPUT' | 'CONVERSION_FAILED', what: () => string): Promise<void> {
  try {
    await runTool(call.choice.installed.executable!, ['+RTS', `-M${HEAP_LIMIT}`, '-RTS', ...args], call.tool);
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    if (err.exitCode === 251) throw new EngineFailure('CONVERSION_FAILED', `${what()}: the document needs more memory than pandoc may use here.`, { cause: err });
    const how = err.exitCode === null ? (err.signal ? `ended by ${err.signal}` : 'could not be run') : `exit code ${err.exitCode}`;
    throw new EngineFailure(err.exitCode === null ? 'CONVERSION_FAILED' : code, `${what()} (${how}).`, { cause: err });
  }
}

export async function pandocConvert(call: EngineCall<{ output_format: string }>): Promise<EngineResult> {
  const [input] = call.inputs;
  const format = normalizeFormat(input!.format ?? '');
  const target = normalizeFormat(call.payload.output_format);
  const reader = Object.hasOwn(PANDOC_READERS, format) ? PANDOC_READERS[format] : undefined;
  const writer = Object.hasOwn(PANDOC_WRITERS, target) ? PANDOC_WRITERS[target] : undefined;
  if (!reader || !writer) throw new EngineFailure('INVALID_INPUT', `pandoc does not convert ${format || 'this file'} to ${target} here.`);

  const mediaDir = path.join(call.dir, 'media');
  const read = path.join(call.dir, 'read.json');
  await pandoc(call, ['--sandbox', '--from', reader, '--to', 'json', `--extract-media=${mediaDir}`, '--output', read, input!.path], 'INVALID_INPUT', () => `pandoc could not read ${input!.filename} as ${format}`);

  let tree: unknown;
  try {
    tree = JSON.parse(await readFile(read, 'utf8'));
  } catch (err) {
    throw new EngineFailure('CONVERSION_FAILED', `pandoc did not give a document tree for ${input!.filename}.`, { cause: err });
  }
  const written = path.join(call.dir, 'write.json');
  await writeFile(written, JSON.stringify(sanitizeAst(tree, { mediaDir, embeds: writer.embeds === true })));

  const [name] = call.names(target, 1);
  const made = path.join(call.dir, `written.${target}`);
  const sandbox = writer.dataFiles ? [] : ['--sandbox'];
  await pandoc(call, [...sandbox, '--standalone', '--from', 'json', '--to', writer.name, '--output', made, written], 'CONVERSION_FAILED', () => `pandoc could not write ${target}`);
  const out = call.output(name!);
  await rename(made, out);
  return { files: [{ path: out, filename: name!, contentType: mimeType(target) }] };
}
