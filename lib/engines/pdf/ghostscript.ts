/**
 * The Ghostscript engine: PDF optimization (pdfwrite with a quality profile), PDF pages to images,
 * PDF thumbnails. Runs the `gs` found by the registry with -dSAFER in the call's own folder.
 *
 * Ghostscript is a PostScript interpreter: given a file that does not start like a PDF it runs it as a
 * program. So it never parses the uploaded bytes: qpdf first rewrites the input into a new PDF in the
 * call's folder (its own header, objects and cross-reference table; qpdf parses PDF and executes
 * nothing), and Ghostscript reads that copy, after checking it starts with the PDF signature. Without
 * qpdf the engine is not available (catalog.ts).
 *
 * Two builds: the system `gs` (GHOSTSCRIPT_PATH), or Ghostscript compiled to WebAssembly
 * (@okathira/ghostpdl-wasm), run by wasm.ts in a confined node child with the same arguments; qpdf
 * likewise (qpdf.ts).
 */
import { copyFile, mkdir, open as openFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { EngineCall, EngineResult, Produced } from '../core/call.js';
import { mimeType, normalizeFormat } from '../core/formats.js';
import { pdfPageCount } from '../core/limits.js';
import { selectPages } from './pdf.js';
import { thumbnailFile, encode, open, resize, type ResizeOptions } from '../image/sharp.js';
import { outputIntent, pdfaIdentity, pdfaSwitches, type IntentColour } from './output-intent.js';
import { optimizeSwitches } from './optimize-profiles.js';
import { runQpdf } from './qpdf.js';
import { ghostscriptWasm, qpdfTool } from '../core/shipped.js';
import { runTool } from '../core/tool.js';
import { runWasm } from '../core/wasm.js';

const COLORSPACES: Record<string, string[]> = {
  gray: ['-sColorConversionStrategy=Gray', '-dProcessColorModel=/DeviceGray'],
  rgb: ['-sColorConversionStrategy=RGB', '-dProcessColorModel=/DeviceRGB'],
  cmyk: ['-sColorConversionStrategy=CMYK', '-dProcessColorModel=/DeviceCMYK'],
};

/**
 * Runs Ghostscript on `source` (qpdf's rewrite) with `args` before it, writing into `outDir`;
 * `programs` are files of this service's own the arguments name (pdfa.ts's output intent), read too.
 * With `progress`, Ghostscript is not quiet: it says on stdout which pages it will process, then
 * `Page N` as it starts each; the pages done over that count is reported.
 */
export function gs(call: EngineCall, args: string[], source: string, outDir: string, programs: string[] = [], progress = call.progress) {
  const all = ['-dSAFER', '-dBATCH', '-dNOPAUSE', ...(progress ? [] : ['-dQUIET']), ...args, source];
  const opts = { ...call.tool, ...(progress ? { onStdoutLine: pageCounter(progress) } : {}) };
  if (call.choice.installed.variant !== 'wasm') return runTool(call.choice.installed.executable!, all, opts);
  const engine = ghostscriptWasm();
  if (!engine) throw new Error('the Ghostscript WebAssembly build (@okathira/ghostpdl-wasm) is not installed');
  return runWasm('gs', engine, { args: all, inputs: [...programs, source], outputs: [outDir] }, opts);
}

/**
 * Reads Ghostscript's page messages: `Processing pages 1 through 12.` or `Processing pages 2,5,7.`
 * give the count, each `Page N` the start of one more page.
 */
export function pageCounter(progress: (fraction: number) => void): (line: string) => void {
  let total = 0;
  let started = 0;
  return (line) => {
    const range = /^Processing pages (\d+) through (\d+)\.$/.exec(line.trim());
    const list = range ? undefined : /^Processing pages ([\d,]+)\.$/.exec(line.trim());
    if (range) total = Math.max(0, Number(range[2]) - Number(range[1]) + 1);
    else if (list) total = list[1]!.split(',').filter(Boolean).length;
    else if (total > 0 && /^Page \d+$/.test(line.trim())) progress(started++ / total);
  };
}

/** qpdf's rewrite of the input, the only file Ghostscript is given (see the top of this module). */
export async function normalized(call: EngineCall, file: string): Promise<string> {
  const qpdf = qpdfTool(call.config);
  if (!qpdf) throw new Error(`Ghostscript reads PDFs only after qpdf has rewritten them, and ${call.config.QPDF_PATH} was not found (QPDF_PATH)`);
  const out = path.join(call.dir, `normalized-${path.basename(file)}.pdf`);
  await runQpdf(qpdf, ['--warning-exit-0'], file, out, call.tool);
  // Never a file Ghostscript could run as PostScript: qpdf's output starts with the PDF signature.
  const handle = await openFile(out, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(5), 0, 5, 0);
    if (bytesRead < 5 || buffer.toString('latin1') !== '%PDF-') throw new Error('qpdf wrote a file that does not start with %PDF-');
  } finally {
    await handle.close();
  }
  return out;
}

/** What the Ghostscript handlers read of a task's arguments. */
export interface PdfArgs extends ResizeOptions {
  output_format?: string;
  pages?: string;
  density?: number;
  quality?: number;
  profile?: string;
  colorspace?: string;
  flatten_signatures?: boolean;
}

/**
 * optimize: a PDF rewritten by pdfwrite with the profile's image resolution and quality (a PDF/A kept
 * one); never larger than it was.
 */
export async function optimizePdf(call: EngineCall<PdfArgs>): Promise<EngineResult> {
  const [input] = call.inputs;
  const p = call.payload;
  const [name] = call.names('pdf', 1);
  const out = call.output(name!);
  const source = await normalized(call, input!.path);
  const colours = p.colorspace ? (COLORSPACES[String(p.colorspace)] ?? []) : [];
  // A PDF/A stays one, of the same part, with an output intent in its (new) colour space (pdfwrite
  // makes parts 1 to 3; a PDF/A-4 is optimized as a plain PDF).
  const declared = await pdfaIdentity(input!.path);
  const pdfa = declared && declared.part <= 3 ? declared : undefined;
  const colour: IntentColour = colours.length ? (String(p.colorspace) as IntentColour) : 'rgb';
  const intent = pdfa ? await outputIntent(call, 'pdfa', colour) : undefined;
  const profile = optimizeSwitches(p.profile, p.quality ?? undefined, call.choice.installed.variant === 'wasm');
  await gs(call, [
    '-sDEVICE=pdfwrite',
    '-dCompatibilityLevel=1.6',
    ...profile.switches,
    ...(pdfa ? pdfaSwitches(pdfa.part, colour, colours) : colours),
    '-dDetectDuplicateImages=true',
    '-dCompressFonts=true',
    // Signature fields (and the other annotations) drawn into the page instead of kept as fields.
    ...(p.flatten_signatures ? ['-dPreserveAnnots=false'] : []),
    `-sOutputFile=${out}`,
    ...(intent?.args ?? []),
    ...profile.program,
  ], source, path.dirname(out), intent?.programs);
  if ((await stat(out)).size >= input!.size && !p.colorspace && !p.flatten_signatures) {
    call.log.info('optimized PDF was not smaller; keeping the original bytes', { engine: 'ghostscript' });
    await copyFile(input!.path, out);
  }
  return { files: [{ path: out, filename: name!, contentType: 'application/pdf' }] };
}

/** Renders PDF pages to PNG files in `dir`, in page order. */
export async function render(call: EngineCall, file: string, pages: number[], density: number, dir: string, progress = call.progress): Promise<string[]> {
  await gs(call, [
    '-sDEVICE=png16m',
    `-r${density}`,
    '-dTextAlphaBits=4',
    '-dGraphicsAlphaBits=4',
    `-sPageList=${pages.join(',')}`,
    `-sOutputFile=${path.join(dir, 'page-%05d.png')}`,
  ], file, dir, [], progress);
  return (await readdir(dir))
    .filter((f) => f.startsWith('page-'))
    .sort()
    .map((f) => path.join(dir, f));
}

/** convert: PDF pages (all, or `pages`) to images, one file per page. */
export async function pdfToImages(call: EngineCall<PdfArgs>): Promise<EngineResult> {
  const [input] = call.inputs;
  const p = call.payload;
  const to = normalizeFormat(String(p.output_format));
  const source = await normalized(call, input!.path);
  const count = await pdfPageCount(source, { ...call.tool, qpdf: call.config.QPDF_PATH, limits: call.config });
  const pages = selectPages(p.pages, count);
  if (pages.length === 0) return { files: [] };
  const rendered = path.join(call.dir, 'pages');
  await mkdir(rendered);
  // Rendering (by Ghostscript's pages) the first four fifths, encoding the images (by page) the rest.
  const report = call.progress;
  const files = await render(call, source, pages, p.density ?? 150, rendered, report && ((f) => report(0.8 * f)));
  const names = call.names(to, files.length);
  const produced: Produced[] = [];
  for (const [i, file] of files.entries()) {
    const out = call.output(names[i]!);
    const image = resize(await open(file, call.config.MAX_IMAGE_PIXELS), { width: p.width, height: p.height, fit: p.fit });
    await encode(image, to, { quality: p.quality }).toFile(out);
    produced.push({ path: out, filename: names[i]!, contentType: mimeType(to) });
    report?.(0.8 + (0.2 * (i + 1)) / files.length);
    call.signal.throwIfAborted();
  }
  return { files: produced };
}

/** thumbnail: the first page of a PDF. */
export async function pdfThumbnail(call: EngineCall<PdfArgs>): Promise<EngineResult> {
  const [input] = call.inputs;
  const p = call.payload;
  const to = normalizeFormat(String(p.output_format));
  const rendered = path.join(call.dir, 'pages');
  await mkdir(rendered);
  // Enough pixels for the requested size: 150 dpi gives an A4 page 1240 px wide.
  const wanted = Math.max(p.width ?? 0, p.height ?? 0);
  const density = wanted > 1200 ? 300 : 150;
  const [first] = await render(call, await normalized(call, input!.path), [1], density, rendered, undefined);
  const [name] = call.names(to, 1);
  const out = call.output(name!);
  await thumbnailFile(first!, out, to, { width: p.width, height: p.height, fit: p.fit }, call.config.MAX_IMAGE_PIXELS);
  return { files: [{ path: out, filename: name!, contentType: mimeType(to) }] };
}
