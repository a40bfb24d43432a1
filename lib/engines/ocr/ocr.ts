/**
 * The OCR engine (`pdf/ocr`): a scanned PDF or an image in, a searchable PDF out. Every page keeps
 * what it shows (a PDF's pages are not redrawn; an image becomes a page of its own size), and an
 * invisible text layer, the words Tesseract recognized at the places it found them, is laid over it,
 * so the text can be searched, selected and copied. Page count, sizes and rotation are kept.
 *
 * How: the pages are rendered to images at 300 dpi by Ghostscript (ghostscript.ts, system or
 * WebAssembly, from qpdf's rewrite of the input), a few at a time; Tesseract writes a text-only PDF
 * for them (its PDF renderer with the page image left out); qpdf lays each text page over its page
 * (`--overlay`, which scales it to the page and follows the page's rotation). Two builds of Tesseract:
 * the system one (TESSERACT_PATH; variant `system`), run by `runTool` like every native tool, or
 * tesseract.js (variant `wasm`, ocr-js.ts), for machines without it. Neither downloads anything.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EngineCall, EngineResult, LocalFile } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { normalized, render } from '../pdf/ghostscript.js';
import { pdfPageCount } from '../core/limits.js';
import { recognizeWithTesseractJs, type OcrPage } from './ocr-js.js';
import { systemTesseract, tesseractJs } from '../core/ocr-detect.js';
import { imageToPdf } from '../pdf/pdf.js';
import { findExecutable } from '../core/probe.js';
import { open } from '../image/sharp.js';
import { ghostscriptWasm, qpdfTool, type QpdfTool } from '../core/shipped.js';
import { runTool } from '../core/tool.js';
import { runWasm } from '../core/wasm.js';

/** What the OCR handler reads of a task's arguments. */
export interface OcrArgs {
  /** Tesseract language codes (`eng`, `deu`…): one, a list, or joined with `+`. Default `eng`. */
  language?: string | string[];
}

/** The resolution PDF pages are rendered at for recognition (what Tesseract is trained for). */
export const OCR_DENSITY = 300;
/** Pages rendered and recognized at a time: their images are deleted before the next ones are made. */
const PAGES_PER_BATCH = 8;

/** A text-only PDF for the next `count` pages of the output. */
interface TextLayer {
  pdf: string;
  count: number;
}

/** The languages asked for, each one installed (`available`), else a failure naming those there are. */
export function ocrLanguages(asked: OcrArgs['language'], available: readonly string[]): string[] {
  const list = (Array.isArray(asked) ? asked : [asked ?? 'eng']).flatMap((l) => String(l).split(/[+,\s]+/)).filter(Boolean);
  const languages = [...new Set(list.length ? list : ['eng'])];
  const missing = languages.filter((l) => !available.includes(l));
  if (missing.length) {
    throw new EngineFailure(
      'INVALID_INPUT',
      `OCR has no language ${missing.join(', ')} on this installation; languages: ${available.join(', ') || 'none'}.`,
    );
  }
  return languages;
}

type Recognizer = {
  languages: string[];
  /** Recognizes page images (all of one resolution), giving text-only PDFs for them in order. */
  recognize(pages: OcrPage[], languages: string[], batch: number): Promise<TextLayer[]>;
};

/** The Tesseract build the registry chose for the call. */
function recognizer(call: EngineCall<OcrArgs>): Recognizer {
  const { installed } = call.choice;
  if (installed.variant === 'wasm') {
    const js = tesseractJs();
    if (!js) throw new EngineFailure('ENGINE_UNAVAILABLE', 'tesseract.js is not installed here.');
    return {
      languages: js.languages,
      async recognize(pages, languages) {
        await recognizeWithTesseractJs(js, pages, languages, call.tool);
        return pages.map((p) => ({ pdf: p.output, count: 1 }));
      },
    };
  }
  const system = systemTesseract(installed.executable ?? call.config.TESSERACT_PATH);
  if (!system) throw new EngineFailure('ENGINE_UNAVAILABLE', 'Tesseract is not installed here (TESSERACT_PATH).');
  return {
    languages: system.languages,
    async recognize(pages, languages, batch) {
      // One run for the batch: a list of the images in, one PDF of as many pages out.
      const list = path.join(call.dir, `pages-${batch}.txt`);
      await writeFile(list, pages.map((p) => p.image).join('\n') + '\n');
      const base = path.join(call.dir, `text-${batch}`);
      await runTool(system.executable, [list, base, '-l', languages.join('+'), '--dpi', String(pages[0]!.dpi), '-c', 'textonly_pdf=1', 'pdf'], {
        ...call.tool,
        // One thread per run: OpenMP's threads only wait on each other on small machines.
        env: { OMP_THREAD_LIMIT: '1' },
      });
      return [{ pdf: `${base}.pdf`, count: pages.length }];
    },
  };
}

/** The Ghostscript that renders the pages: the system `gs`, else its WebAssembly build. */
function ghostscriptFor(call: EngineCall<OcrArgs>): EngineCall<OcrArgs> {
  const system = findExecutable(call.config.GHOSTSCRIPT_PATH);
  const wasm = !system && call.config.SHIPPED_ENGINES ? ghostscriptWasm() : undefined;
  if (!system && !wasm) {
    throw new EngineFailure('ENGINE_UNAVAILABLE', `OCR of PDFs renders their pages with Ghostscript, and ${call.config.GHOSTSCRIPT_PATH} was not found (GHOSTSCRIPT_PATH).`);
  }
  const installed = system ? { version: 'system', executable: system, variant: 'system' } : { version: wasm!.version, executable: wasm!.file, variant: 'wasm' };
  return { ...call, choice: { ...call.choice, engine: 'ghostscript', version: installed.version, installed } };
}

/** Text layers for every page of a PDF (`source`: qpdf's rewrite of it), a batch of pages at a time. */
async function pdfLayers(call: EngineCall<OcrArgs>, source: string, ocr: Recognizer, languages: string[]): Promise<TextLayer[]> {
  const gs = ghostscriptFor(call);
  const count = await pdfPageCount(source, { ...call.tool, qpdf: call.config.QPDF_PATH, limits: call.config });
  const layers: TextLayer[] = [];
  for (let first = 1, batch = 0; first <= count; first += PAGES_PER_BATCH, batch++) {
    const pages = Array.from({ length: Math.min(PAGES_PER_BATCH, count - first + 1) }, (_, i) => first + i);
    const dir = path.join(call.dir, `pages-${batch}`);
    await mkdir(dir);
    const images = await render(gs, source, pages, OCR_DENSITY, dir, undefined);
    if (images.length !== pages.length) throw new EngineFailure('CONVERSION_FAILED', `Ghostscript rendered ${images.length} of pages ${pages[0]}-${pages.at(-1)}.`);
    const recognized = await ocr.recognize(
      images.map((image, i) => ({ image, dpi: OCR_DENSITY, output: path.join(dir, `text-${i + 1}.pdf`) })),
      languages,
      batch,
    );
    layers.push(...recognized);
    // The text PDFs stay; the page images (megabytes each) go.
    await Promise.all(images.map((image) => rm(image, { force: true })));
    // Progress by pages recognized (the text layer's assembly after them is quick).
    call.progress?.(pages.at(-1)! / count);
    call.signal.throwIfAborted();
  }
  return layers;
}

/** An image as a one-page PDF (pdf.ts, as `convert` makes it), and its layer, recognized from the same upright pixels. */
async function imageLayers(call: EngineCall<OcrArgs>, input: LocalFile, ocr: Recognizer, languages: string[]): Promise<{ base: string; layers: TextLayer[] }> {
  const [made] = (await imageToPdf({ ...call, inputs: [input], names: () => ['image-page.pdf'] })).files;
  const image = await open(input.path, call.config.MAX_IMAGE_PIXELS, { animated: false });
  const meta = await image.metadata();
  // The resolution pdf.ts gives the page (96 dpi when the image has none): the text page gets the same size.
  const dpi = meta.density && meta.density >= 30 ? Math.round(meta.density) : 96;
  const png = path.join(call.dir, 'ocr-image.png');
  await image.rotate().flatten({ background: '#ffffff' }).png({ compressionLevel: 1 }).toFile(png);
  const layers = await ocr.recognize([{ image: png, dpi, output: path.join(call.dir, 'text-image.pdf') }], languages, 0);
  await rm(png, { force: true });
  return { base: made!.path, layers };
}

/** Runs qpdf with `args`, reading `inputs` and writing into `outDir` (the WebAssembly build needs to know which). */
function qpdf(tool: QpdfTool, call: EngineCall<OcrArgs>, args: string[], inputs: string[], outDir: string) {
  if (tool.variant === 'system') return runTool(tool.file, args, call.tool);
  return runWasm('qpdf', tool.module, { args, inputs, outputs: [outDir] }, call.tool);
}

/**
 * qpdf: `base` with the layers' pages laid over its pages, in order, written to `out`. The layers are
 * first joined into one text PDF (qpdf takes one overlay file).
 */
async function overlay(tool: QpdfTool, call: EngineCall<OcrArgs>, base: string, layers: TextLayer[], out: string) {
  if (layers.length === 0) return qpdf(tool, call, ['--warning-exit-0', base, out], [base], path.dirname(out));
  let text = layers[0]!.pdf;
  if (layers.length > 1) {
    text = path.join(call.dir, 'text-layer.pdf');
    await qpdf(tool, call, ['--warning-exit-0', '--empty', '--pages', ...layers.flatMap((l) => [l.pdf, '1-z']), '--', text], layers.map((l) => l.pdf), call.dir);
  }
  return qpdf(tool, call, ['--warning-exit-0', base, '--overlay', text, '--', out], [base, text], path.dirname(out));
}

/** pdf/ocr: a PDF or an image to a PDF with a text layer over each page. */
export async function ocrToPdf(call: EngineCall<OcrArgs>): Promise<EngineResult> {
  const [input] = call.inputs;
  const ocr = recognizer(call);
  const languages = ocrLanguages(call.payload.language, ocr.languages);
  const assembler = qpdfTool(call.config);
  if (!assembler) throw new EngineFailure('ENGINE_UNAVAILABLE', `OCR assembles its PDF with qpdf, and ${call.config.QPDF_PATH} was not found (QPDF_PATH).`);
  let base: string;
  let layers: TextLayer[];
  if (input!.format === 'pdf') {
    base = await normalized(call, input!.path);
    layers = await pdfLayers(call, base, ocr, languages);
  } else {
    ({ base, layers } = await imageLayers(call, input!, ocr, languages));
  }
  const [name] = call.names('pdf', 1);
  const out = call.output(name!);
  await overlay(assembler, call, base, layers, out);
  return { files: [{ path: out, filename: name!, contentType: 'application/pdf' }] };
}
