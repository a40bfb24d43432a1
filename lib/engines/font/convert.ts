/**
 * The fonteditor engine's convert: ttf, otf, woff, woff2 and eot, each to each. The font's headers are
 * checked here first (layout.ts: truncated files, decompression bombs, past MAX_FONT_BYTES); the
 * conversion itself runs in a child `node` process under the same confinement, timeout and kill as a
 * native tool (child.ts, through runTool), reading only its packages and the task's work folder.
 *
 * Container changes keep the outlines: sfnt ↔ WOFF ↔ WOFF2 move the same tables (CFF stays CFF,
 * TrueType stays TrueType), and `otf` is written as the sfnt it is. Only ttf and eot need TrueType
 * outlines: a CFF font is converted for them. A TrueType font asked for as otf is given as it is, an
 * OpenType font with TrueType outlines (version 0x00010000), which every OpenType reader opens:
 * nothing is approximated and its hinting stays (docs/_pending/w29-fonts.md says why).
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { EngineCall, EngineResult } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { mimeType, normalizeFormat } from '../core/formats.js';
import { runTool, ToolError, type ToolOptions } from '../core/tool.js';
import { CHILD, INVALID_FONT_EXIT, type FontJob } from './child.js';
import { FONT_FORMATS, type FontFormat } from './formats.js';
import { fontLayout } from './layout.js';
import { fontPackages } from '../core/font-packages.js';

export async function convertFont(call: EngineCall<{ output_format?: string }>): Promise<EngineResult> {
  const [input] = call.inputs;
  const to = normalizeFormat(String(call.payload.output_format)) as FontFormat;
  if (!FONT_FORMATS.includes(to)) throw new EngineFailure('UNSUPPORTED_FORMAT', `fonteditor does not write ${to}.`);
  const max = call.config.MAX_FONT_BYTES;
  const { size } = await stat(input!.path);
  if (size > max) throw new EngineFailure('FILE_TOO_LARGE', `${input!.filename} is ${size} bytes; fonts of up to ${max} bytes are converted (MAX_FONT_BYTES).`);
  const layout = fontLayout(input!.filename, await readFile(input!.path), max);
  const packages = fontPackages();
  if (!packages) throw new EngineFailure('ENGINE_UNAVAILABLE', 'The font packages (fonteditor-core, wawoff2) are not installed.');
  const [name] = call.names(to, 1);
  const out = call.output(name!);
  const { container, outlines, embedded } = layout;
  const job: FontJob = { input: input!.path, output: out, to, layout: { container, outlines, embedded }, wawoff2: packages.wawoff2, fonteditor: packages.fonteditor };
  await runFontChild(job, packages.folders, call.tool, input!.filename);
  return { files: [{ path: out, filename: name!, contentType: mimeType(to) }] };
}

/** Runs the child on `job`; a font it could not read is INVALID_INPUT with its reason. */
async function runFontChild(job: FontJob, folders: string[], place: ToolOptions, filename: string): Promise<void> {
  try {
    // A bounded heap: fonteditor-core holds every glyph of a CFF font as objects while it converts them,
    // and a font within MAX_FONT_BYTES fits; past it the child dies alone (a failed conversion).
    await runTool(process.execPath, ['--input-type=module', '--no-warnings', '--max-old-space-size=1024', '-e', CHILD, JSON.stringify(job)], {
      ...place,
      name: 'fonteditor',
      readOnly: [...(place.readOnly ?? []), ...folders, path.dirname(process.execPath)],
    });
  } catch (err) {
    if (err instanceof ToolError && err.exitCode === INVALID_FONT_EXIT) {
      const why = /font: ([^|]*)/.exec(err.stderr)?.[1]?.trim() ?? 'it could not be read';
      throw new EngineFailure('INVALID_INPUT', `${filename} is not a font that can be read: ${why.split(place.workDir).join('…')}.`, { cause: err });
    }
    throw err;
  }
}
