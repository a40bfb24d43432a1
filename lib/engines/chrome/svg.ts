/**
 * SVG → PDF on Chromium, where no LibreOffice Draw is installed (a fresh machine, the chromium function):
 * the drawing printed as vectors on a page of its own size. The SVG is inline in an HTML page (Chromium
 * prints an SVG shown as an <img> as pixels), served offline: every request it would make (images,
 * fonts, styles it links to) is refused, as for a sandbox task's HTML (browser.ts).
 */
import { readFile } from 'node:fs/promises';
import type { EngineCall, EngineResult } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { capture } from './browser.js';
import type { CaptureArgs } from './handlers.js';

/** CSS pixels (1/96 in) to the centimetres of the capture's page size. */
const CM_PER_PX = 2.54 / 96;

/** The drawing's size as librsvg reads it (its width and height, else its viewBox), in CSS pixels. */
async function drawingSize(svg: Buffer, filename: string): Promise<{ width: number; height: number }> {
  try {
    // Loaded when used: the Chromium process function loads this module without its engines (their zip is the engine function's).
    const sharp = (await import('sharp')).default;
    const { width, height } = await sharp(svg, { limitInputPixels: false }).metadata();
    if (width && height) return { width, height };
  } catch (err) {
    throw new EngineFailure('INVALID_INPUT', `${filename} is not an SVG drawing that can be read.`, { cause: err });
  }
  throw new EngineFailure('INVALID_INPUT', `${filename} has no size (width, height or viewBox).`);
}

export async function svgToPdfWithChrome(call: EngineCall<CaptureArgs>): Promise<EngineResult> {
  const [input] = call.inputs;
  const svg = await readFile(input!.path);
  const { width, height } = await drawingSize(svg, input!.filename);
  const html =
    '<!DOCTYPE html><html><head><meta charset="utf-8"><style>html,body{margin:0;padding:0;overflow:hidden}' +
    'body>svg{display:block;width:100vw;height:100vh}</style></head>' +
    // The XML declaration and document type mean nothing in HTML: left out rather than shown as text.
    `<body>${svg.toString('utf8').replace(/^\uFEFF?\s*(<\?xml[^>]*\?>\s*)?(<!DOCTYPE[^>[]*(\[[^\]]*\])?\s*>\s*)?/i, '')}</body></html>`;
  const [name] = call.names('pdf', 1);
  const out = call.output(name!);
  const options = { page_width: width * CM_PER_PX, page_height: height * CM_PER_PX, margin_top: 0, margin_bottom: 0, margin_left: 0, margin_right: 0, pages: '1', print_background: true };
  await capture({
    source: { html: Buffer.from(html), filename: `${input!.filename}.html` },
    offline: true,
    format: 'pdf',
    options,
    out,
    installed: call.choice.installed,
    config: call.config,
    signal: call.signal,
    log: call.log,
  });
  return { files: [{ path: out, filename: name!, contentType: 'application/pdf' }] };
}
