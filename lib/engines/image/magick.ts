/**
 * The imagemagick engine: ImageMagick 7 (Q8) in WebAssembly, @imagemagick/magick-wasm, for the image
 * formats sharp does not read or write (magick-formats.ts). Each call runs in a child node process
 * started by `runTool`, like the WebAssembly Ghostscript (core/wasm.ts): the same confinement to the
 * task's work folder, no network, the kill on cancel or timeout. The child's program is
 * magick-child.ts; it gets a small JSON spec checked here, pings the input's headers and refuses it
 * past MAX_IMAGE_PIXELS before decoding, and writes the outputs into the call's folder.
 *
 * What it costs: each call starts node (about 0.1 s) and compiles the 15 MB module (about 0.3 s),
 * which a warm sharp in the worker does not pay; measured 2026-11-27 on the 2-core machine, a
 * 1200 × 800 JPEG took 0.4 s to BMP and 0.7–1.3 s to PNG (ImageMagick's PNG encoder: 0.5 s of it),
 * against 50–75 ms for sharp's JPEG → PNG. Sharp stays first wherever it makes the pair.
 */
import { mkdir, readdir, rename } from 'node:fs/promises';
import path from 'node:path';
import type { EngineCall, EngineResult } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { mimeType, normalizeFormat } from '../core/formats.js';
import { imagemagickWasm } from '../core/shipped.js';
import { runTool } from '../core/tool.js';
import { declaredSize } from './magick-header.js';
import { MAGICK_CHILD, type MagickAnswer, type MagickSpec } from './magick-child.js';
import { coderOf, ICON_INPUTS, ICON_SIZE, LAYERED_INPUTS, MAGICK_INPUT_FORMATS, MAGICK_OUTPUT_FORMATS, MULTI_FRAME_OUTPUTS, OPAQUE_OUTPUTS, PAGE_OUTPUTS, QUALITY_OUTPUTS } from './magick-formats.js';

/** What the imagemagick handler reads of a task's arguments. */
export interface MagickArgs {
  output_format?: string;
  width?: number;
  height?: number;
  fit?: 'max' | 'crop' | 'scale';
  quality?: number;
  strip?: boolean;
  colorspace?: 'srgb' | 'gray' | 'cmyk';
  density?: number;
  pages?: string;
}

/** Frames an input may hold (ImageMagick's list length): an animation or a multi-page TIFF of more is refused. */
const MAX_FRAMES = 1000;

const megapixels = (n: number) => `${(n / 1e6).toLocaleString('en-US', { maximumFractionDigits: 1 })} megapixels`;

/** The child's spec for converting `from` (a format of the engine's list) to `to`, with the call's arguments. */
export function magickSpec(from: string, to: string, p: MagickArgs, files: { module: string; wasm: string; input: string; outDir: string }, maxPixels: number): MagickSpec {
  if (!MAGICK_INPUT_FORMATS.includes(from)) throw new EngineFailure('UNSUPPORTED_FORMAT', `imagemagick does not read ${from}.`);
  if (!(MAGICK_OUTPUT_FORMATS as readonly string[]).includes(to)) throw new EngineFailure('UNSUPPORTED_FORMAT', `imagemagick does not write ${to}.`);
  const multiFrame = MULTI_FRAME_OUTPUTS.has(to);
  const pick = ICON_INPUTS.has(from) ? 'largest' : multiFrame && !LAYERED_INPUTS.has(from) ? 'all' : 'first';
  return {
    ...files,
    read: coderOf(from),
    write: coderOf(to),
    maxPixels,
    maxFrames: MAX_FRAMES,
    ...(p.pages ? { pages: p.pages } : {}),
    pick,
    multiFrame,
    ...(p.width ? { width: p.width } : {}),
    ...(p.height ? { height: p.height } : {}),
    ...(p.fit ? { fit: p.fit } : {}),
    ...(p.quality && QUALITY_OUTPUTS.has(to) ? { quality: p.quality } : {}),
    strip: p.strip !== false,
    ...(p.colorspace ? { colorspace: p.colorspace } : {}),
    ...(p.density || PAGE_OUTPUTS.has(to) ? { density: p.density ?? 72 } : {}),
    opaque: OPAQUE_OUTPUTS.has(to),
    ...(to === 'ico' ? { maxSide: ICON_SIZE } : {}),
  };
}

/** The child's one line of answer, or why there is none. */
function answerOf(stdout: string): MagickAnswer {
  const line = stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line) as MagickAnswer;
  } catch {
    throw new EngineFailure('CONVERSION_FAILED', 'imagemagick ended without an answer.');
  }
}

function refusal(answer: Exclude<MagickAnswer, { ok: true }>, filename: string, format: string, maxPixels: number): EngineFailure {
  if (answer.refused === 'IMAGE_TOO_LARGE' && 'message' in answer) {
    return new EngineFailure('IMAGE_TOO_LARGE', `${filename} declares more than ImageMagick may hold for ${megapixels(maxPixels)} (MAX_IMAGE_PIXELS): ${answer.message}.`);
  }
  if (answer.refused === 'IMAGE_TOO_LARGE') {
    const frames = answer.frames > 1 ? ` in ${answer.frames} frames` : '';
    return new EngineFailure(
      'IMAGE_TOO_LARGE',
      `${filename} declares ${answer.width} × ${answer.height} pixels${frames} (${megapixels(answer.pixels)}); ` +
        `images of up to ${megapixels(maxPixels)} and ${MAX_FRAMES} frames are processed (MAX_IMAGE_PIXELS).`,
    );
  }
  const what = answer.refused === 'INVALID_INPUT' ? `${filename} could not be read as ${format}` : `imagemagick could not write the output`;
  return new EngineFailure(answer.refused, `${what}: ${answer.message}.`);
}

/** convert: an image → an image (or a PDF, EPS, PS) with ImageMagick. */
export async function convertWithMagick(call: EngineCall<MagickArgs>): Promise<EngineResult> {
  const [input] = call.inputs;
  const p = call.payload;
  const from = normalizeFormat(String(input!.format ?? ''));
  const to = normalizeFormat(String(p.output_format));
  const engine = imagemagickWasm();
  if (!engine) throw new EngineFailure('ENGINE_UNAVAILABLE', 'imagemagick (@imagemagick/magick-wasm) is not installed here.');
  const outDir = path.join(call.dir, 'frames');
  await mkdir(outDir, { recursive: true });
  const files = { module: path.join(engine.folder, 'dist', 'index.js'), wasm: engine.file, input: input!.path, outDir };
  const spec = magickSpec(from, to, p, files, call.config.MAX_IMAGE_PIXELS);
  // Formats whose readers walk every pixel even to ping: refused from their header's numbers first.
  const declared = await declaredSize(input!.path, from);
  if (declared && declared.width * declared.height > spec.maxPixels) {
    throw refusal({ refused: 'IMAGE_TOO_LARGE', ...declared, frames: 1, pixels: declared.width * declared.height }, input!.filename, from, spec.maxPixels);
  }
  const { stdout } = await runTool(process.execPath, ['--input-type=module', '--no-warnings', '-e', MAGICK_CHILD, JSON.stringify(spec)], {
    ...call.tool,
    name: 'imagemagick',
    captureStdout: true,
    readOnly: [engine.folder, path.dirname(process.execPath)],
  });
  const answer = answerOf(stdout);
  if (!('ok' in answer)) throw refusal(answer, input!.filename, from, call.config.MAX_IMAGE_PIXELS);
  const made = (await readdir(outDir)).sort((a, b) => Number(a) - Number(b));
  if (!made.length) throw new EngineFailure('CONVERSION_FAILED', 'imagemagick wrote no output.');
  const names = call.names(to, made.length);
  const produced = [];
  for (const [i, frame] of made.entries()) {
    const out = call.output(names[i]!);
    await rename(path.join(outDir, frame), out);
    produced.push({ path: out, filename: names[i]!, contentType: mimeType(to) });
  }
  return { files: produced };
}
