/**
 * convert on Impress and Draw (formats in slides-formats.ts): presentations and drawings to PDF, to
 * each other's office formats, to PNG or JPG one file per slide or page, and to SVG one file per page;
 * PDF pages to SVG through Draw's PDF import.
 *
 * LibreOffice's own image export writes only the first slide or page, and its SVG export writes every
 * page into one file (Impress's with a slide-show script): so images and SVGs go through a PDF, whose
 * pages Ghostscript renders (the pdf → png pair's renderer) or qpdf splits for Draw to write one SVG each.
 */
import { mkdir, readdir, rename } from 'node:fs/promises';
import path from 'node:path';
import type { EngineCall, EngineResult, LocalFile, Produced } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { mimeType, normalizeFormat } from '../core/formats.js';
import { findExecutable } from '../core/probe.js';
import { ghostscriptWasm, qpdfTool } from '../core/shipped.js';
import { normalized, pdfToImages, type PdfArgs } from '../pdf/ghostscript.js';
import { runQpdf } from '../pdf/qpdf.js';
import { runLibreOffice, type OfficeJob } from './libreoffice.js';
import { appOf, officeFilter, PAGE_IMAGE_OUTPUTS, pdfExport, type OfficeApp, type SlidesPdfOptions } from './slides-formats.js';

export type SlidesArgs = PdfArgs & Omit<SlidesPdfOptions, 'pages'>;

/** One LibreOffice run in a folder of its own under the call's (runLibreOffice writes into `<dir>/office`). */
async function runIn(call: EngineCall, step: string, job: OfficeJob): Promise<string> {
  const dir = path.join(call.dir, step);
  await mkdir(dir, { recursive: true });
  return runLibreOffice({ ...call, dir }, job);
}

/** The input as a PDF: LibreOffice's export with the task's PDF options (all pages when `allPages`). */
async function toPdf(call: EngineCall<SlidesArgs>, input: LocalFile, app: OfficeApp, allPages: boolean): Promise<string> {
  const p = call.payload;
  const exported = pdfExport(app, { pages: allPages ? null : p.pages, pdf_a: p.pdf_a, hidden_slides: p.hidden_slides });
  return runIn(call, 'pdf', { input, extension: 'pdf', ...(exported ?? {}) });
}

/**
 * The call as Ghostscript's: the system `gs` when installed, else its WebAssembly build (the office
 * function's image may hold either); the renderer is not the engine the task chose, so it is found here.
 */
function asGhostscript(call: EngineCall<SlidesArgs>, pdf: LocalFile): EngineCall<SlidesArgs> {
  const system = findExecutable(call.config.GHOSTSCRIPT_PATH);
  const wasm = !system && call.config.SHIPPED_ENGINES && ghostscriptWasm();
  if (!system && !wasm) throw new EngineFailure('ENGINE_UNAVAILABLE', 'Rendering slides and pages to images needs Ghostscript (GHOSTSCRIPT_PATH), which is not installed here.');
  const installed = system ? { version: 'system', executable: system, variant: 'system' } : { version: 'wasm', variant: 'wasm' };
  return { ...call, inputs: [pdf], choice: { ...call.choice, engine: 'ghostscript', installed } };
}

/** Every page of `pdf` (or the task's `pages`) as an SVG file of its own, written by Draw. */
async function pdfToSvgs(call: EngineCall<SlidesArgs>, pdf: string, pages: string | null | undefined): Promise<Produced[]> {
  const qpdf = qpdfTool(call.config);
  if (!qpdf) throw new EngineFailure('ENGINE_UNAVAILABLE', 'Splitting a PDF into pages needs qpdf (QPDF_PATH), which is not installed here.');
  const source = await normalized(call, pdf);
  const split = path.join(call.dir, 'split');
  await mkdir(split);
  const selection = typeof pages === 'string' && pages.trim() ? ['--pages', '.', pages.replace(/\s+/g, ''), '--'] : [];
  await runQpdf(qpdf, ['--warning-exit-0', '--split-pages', ...selection], source, path.join(split, 'page-%d.pdf'), call.tool);
  // qpdf pads the numbers to the same width: a name sort is the page order.
  const files = (await readdir(split)).filter((f) => f.endsWith('.pdf')).sort();
  const names = call.names('svg', files.length);
  const produced: Produced[] = [];
  for (const [i, file] of files.entries()) {
    const page: LocalFile = { ...call.inputs[0]!, path: path.join(split, file), filename: file, format: 'pdf' };
    const made = await runIn(call, `svg-${i + 1}`, { input: page, extension: 'svg', filter: 'draw_svg_Export' });
    const out = call.output(names[i]!);
    await rename(made, out);
    produced.push({ path: out, filename: names[i]!, contentType: mimeType('svg') });
    call.progress?.((i + 1) / files.length);
    call.signal.throwIfAborted();
  }
  return produced;
}

/** convert with Impress or Draw: see the top of this module. */
export async function convertSlides(call: EngineCall<SlidesArgs>): Promise<EngineResult> {
  const input = call.inputs[0]!;
  const from = normalizeFormat(input.format ?? '');
  const to = normalizeFormat(String(call.payload.output_format));
  const app = appOf(from);
  if (!app) throw new EngineFailure('INVALID_INPUT', `LibreOffice's Impress and Draw do not read ${from} files here.`);
  if (to === 'svg') {
    const pdf = from === 'pdf' ? input.path : await toPdf(call, input, app, true);
    return { files: await pdfToSvgs(call, pdf, call.payload.pages) };
  }
  if ((PAGE_IMAGE_OUTPUTS as readonly string[]).includes(to)) {
    const pdf = await toPdf(call, input, app, true);
    return pdfToImages(asGhostscript(call, { ...input, path: pdf, format: 'pdf' }));
  }
  const filter = to === 'pdf' ? undefined : officeFilter(app, to);
  if (to !== 'pdf' && !filter) throw new EngineFailure('INVALID_INPUT', `LibreOffice does not write ${to} from ${from} here.`);
  const made = to === 'pdf' ? await toPdf(call, input, app, false) : await runIn(call, 'out', { input, extension: to, filter });
  const [name] = call.names(to, 1);
  const out = call.output(name!);
  await rename(made, out);
  return { files: [{ path: out, filename: name!, contentType: mimeType(to) }] };
}
