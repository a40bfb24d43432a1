/**
 * PostScript with Ghostscript: EPS, PS and AI (Illustrator files are a PDF, or PostScript in older
 * versions) to images and PDF, and PDF to PS and EPS (ps2write, eps2write).
 *
 * Why Ghostscript runs uploaded PostScript here when it never runs an uploaded PDF (ghostscript.ts):
 * a PDF has a safe path (qpdf rewrites it, and Ghostscript reads only the rewrite), PostScript has
 * none: it is a program, and drawing it is running it; no tool rewrites it without doing so. So the
 * program runs, under every bound this service has:
 * - `-dSAFER` (never `-dNOSAFER`: the arguments are ours): no file opened but the input itself
 *   (`--permit-file-read` names it alone), no file written but the output, no `%pipe%`, no device
 *   changes that reach the system; Ghostscript answers `/invalidfileaccess`;
 * - confined as every tool (bubblewrap: the task's folder only, no network; the WebAssembly build: its
 *   own in-memory file system holding the input alone);
 * - a time limit of its own (MAX_POSTSCRIPT_SECONDS: a PostScript loop runs forever) and a page limit
 *   (MAX_PDF_PAGES; Ghostscript stops after one page more, which is then refused);
 * - the rendered pages are opened by sharp under MAX_IMAGE_PIXELS, and every file written under the
 *   task's output bound.
 * An AI file that is a PDF (`%PDF-` first) takes the PDF path instead. EPS is drawn on its bounding
 * box (`-dEPSCrop`), not on a page.
 */
import { copyFile, mkdir, open as openFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { EngineCall, EngineResult, Produced } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { isPdfHead, mimeType, normalizeFormat } from '../core/formats.js';
import { checkPdfPages, pdfPageCount } from '../core/limits.js';
import { ToolError, type ToolOptions } from '../core/tool.js';
import { encode, open, resize } from '../image/sharp.js';
import { gs, normalized, pdfToImages, type PdfArgs } from './ghostscript.js';
import { selectPages } from './pdf.js';
import { POSTSCRIPT_INPUTS, POSTSCRIPT_OUTPUTS } from './postscript-formats.js';


const isPostScriptInput = (format: string | null | undefined) => (POSTSCRIPT_INPUTS as readonly string[]).includes(String(format));

/** convert on the Ghostscript engine: PDF pages to images, PostScript to images and PDF, PDF to PostScript. */
export async function ghostscriptConvert(call: EngineCall<PdfArgs>): Promise<EngineResult> {
  const [input] = call.inputs;
  const to = normalizeFormat(String(call.payload.output_format));
  if (isPostScriptInput(input!.format)) {
    if (input!.format === 'ai' && (await startsAsPdf(input!.path))) return illustratorPdf(call, to);
    return postScriptConvert(call, to);
  }
  if ((POSTSCRIPT_OUTPUTS as readonly string[]).includes(to)) return pdfToPostScript(call, to);
  return pdfToImages(call);
}

async function startsAsPdf(file: string): Promise<boolean> {
  const handle = await openFile(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(8), 0, 8, 0);
    return isPdfHead(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/** An Illustrator file that is a PDF: the PDF checks and path (qpdf's rewrite only). */
async function illustratorPdf(call: EngineCall<PdfArgs>, to: string): Promise<EngineResult> {
  const [input] = call.inputs;
  await checkPdfPages(input!.filename, input!.path, call.config, call.tool);
  if (to !== 'pdf') return pdfToImages(call);
  const [name] = call.names('pdf', 1);
  await copyFile(await normalized(call, input!.path), call.output(name!));
  return { files: [{ path: call.output(name!), filename: name!, contentType: 'application/pdf' }] };
}

/** Runs Ghostscript on the uploaded PostScript under its time limit, with reading allowed of the input alone. */
async function runPostScript(call: EngineCall<PdfArgs>, args: string[], outDir: string): Promise<void> {
  const [input] = call.inputs;
  const seconds = call.config.MAX_POSTSCRIPT_SECONDS;
  const signal = AbortSignal.any([call.signal, AbortSignal.timeout(seconds * 1000)]);
  const eps = input!.format === 'eps' ? ['-dEPSCrop'] : [];
  // The program's own output and Ghostscript's error report go to stderr; of them only the error's name is kept and shown.
  let said: string | undefined;
  const place: ToolOptions = { ...call.tool, signal, onStderrLine: (line) => (said ??= /^Error: (\/\w+)/.exec(line.trim())?.[1]) };
  try {
    await gs({ ...call, tool: place }, [`--permit-file-read=${input!.path}`, '-sstdout=%stderr', ...eps, ...args], input!.path, outDir, [], undefined);
  } catch (err) {
    call.signal.throwIfAborted();
    if (signal.aborted) throw new EngineFailure('CONVERSION_FAILED', `${input!.filename} ran longer than ${seconds} s; PostScript programs are stopped there (MAX_POSTSCRIPT_SECONDS).`);
    if (!(err instanceof ToolError)) throw err;
    throw new EngineFailure('INVALID_INPUT', `${input!.filename} could not be drawn as PostScript${said ? ` (Ghostscript: ${said})` : ''}.`, { cause: err });
  }
}

const tooManyPages = (filename: string, max: number) =>
  new EngineFailure('TOO_MANY_PAGES', `${filename} draws more than ${max} pages; PostScript of up to ${max} pages is converted (MAX_PDF_PAGES).`);

/** EPS, PS or AI (PostScript) to images (one per page) or a PDF. */
async function postScriptConvert(call: EngineCall<PdfArgs>, to: string): Promise<EngineResult> {
  const [input] = call.inputs;
  const p = call.payload;
  const max = call.config.MAX_PDF_PAGES;
  // The pages asked for (within the limit), else every page up to one past the limit, which is refused.
  const chosen = p.pages ? selectPages(p.pages, max) : undefined;
  const pages = chosen ? [`-sPageList=${chosen.join(',')}`] : [`-dLastPage=${max + 1}`];
  if (chosen?.length === 0) return { files: [] };
  if (to === 'pdf') {
    const [name] = call.names('pdf', 1);
    const out = call.output(name!);
    await runPostScript(call, ['-sDEVICE=pdfwrite', '-dCompatibilityLevel=1.6', ...pages, `-sOutputFile=${out}`], path.dirname(out));
    const count = await pdfPageCount(out, { ...call.tool, qpdf: call.config.QPDF_PATH, limits: call.config });
    if (count > max) throw tooManyPages(input!.filename, max);
    return { files: [{ path: out, filename: name!, contentType: 'application/pdf' }] };
  }
  const dir = path.join(call.dir, 'pages');
  await mkdir(dir);
  const args = ['-sDEVICE=png16m', `-r${p.density ?? 150}`, '-dTextAlphaBits=4', '-dGraphicsAlphaBits=4', ...pages];
  await runPostScript(call, [...args, `-sOutputFile=${path.join(dir, 'page-%05d.png')}`], dir);
  const files = (await readdir(dir)).filter((f) => f.startsWith('page-')).sort();
  if (files.length > max) throw tooManyPages(input!.filename, max);
  if (files.length === 0) throw new EngineFailure('INVALID_INPUT', `${input!.filename} draws no page.`);
  const names = call.names(to, files.length);
  const produced: Produced[] = [];
  for (const [i, file] of files.entries()) {
    const out = call.output(names[i]!);
    const image = resize(await open(path.join(dir, file), call.config.MAX_IMAGE_PIXELS), { width: p.width, height: p.height, fit: p.fit });
    await encode(image, to, { quality: p.quality }).toFile(out);
    produced.push({ path: out, filename: names[i]!, contentType: mimeType(to) });
    call.signal.throwIfAborted();
  }
  return { files: produced };
}

/** PDF to PostScript (ps2write, the pages asked for) or EPS (eps2write, the first page asked for: an EPS is one page). */
async function pdfToPostScript(call: EngineCall<PdfArgs>, to: string): Promise<EngineResult> {
  const [input] = call.inputs;
  const source = await normalized(call, input!.path);
  const count = await pdfPageCount(source, { ...call.tool, qpdf: call.config.QPDF_PATH, limits: call.config });
  const pages = selectPages(call.payload.pages, count);
  if (pages.length === 0) return { files: [] };
  const [name] = call.names(to, 1);
  const out = call.output(name!);
  const range = to === 'eps' ? [`-dFirstPage=${pages[0]}`, `-dLastPage=${pages[0]}`] : [`-sPageList=${pages.join(',')}`];
  await gs(call, [`-sDEVICE=${to === 'eps' ? 'eps2write' : 'ps2write'}`, ...range, `-sOutputFile=${out}`], source, path.dirname(out), [], undefined);
  return { files: [{ path: out, filename: name!, contentType: mimeType(to) }] };
}
