/**
 * The pdfjs engine's convert: a PDF's text to txt, html, docx or odt, with npm packages alone (a fresh
 * machine has it). pdf.js reads the PDF in a confined child (extract.ts), after the checks every PDF
 * engine makes before a parser sees the file (size, signature, what its streams decode to); the text
 * it finds is laid out in lines, paragraphs and headings (layout.ts) and written here (writers.ts,
 * odt.ts). Kept: the text in reading order, paragraphs, headings told by their font size, page breaks.
 * Lost: the layout (columns become one flow, positions and spacing), tables (their cells become
 * paragraphs), images, fonts and their styles, links. A scanned PDF has no text: OCR it first.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EngineCall, EngineResult } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { mimeType, normalizeFormat } from '../core/formats.js';
import { checkPdfBytes, checkPdfSignature } from '../core/limits.js';
import { ensurePdfDecodable } from '../core/pdf-streams.js';
import { pdfjsPackage } from '../core/pdfjs-package.js';
import { selectPages } from '../pdf/pdf.js';
import { extractRuns } from './extract.js';
import { PDF_TEXT_OUTPUTS, type PdfTextOutput } from './formats.js';
import { layout, type TextPage } from './layout.js';
import { writeOdt } from './odt.js';
import { toDocx, toHtml, toText } from './writers.js';

export interface PdfTextArgs {
  output_format?: string;
  pages?: string | null;
}

async function write(to: PdfTextOutput, pages: TextPage[], title: string, out: string): Promise<void> {
  if (to === 'txt') await writeFile(out, toText(pages));
  else if (to === 'html') await writeFile(out, toHtml(pages, title));
  else if (to === 'docx') await writeFile(out, await toDocx(pages, title));
  else await writeOdt(pages, title, out);
}

export async function pdfToText(call: EngineCall<PdfTextArgs>): Promise<EngineResult> {
  const [input] = call.inputs;
  const to = normalizeFormat(String(call.payload.output_format)) as PdfTextOutput;
  if (!PDF_TEXT_OUTPUTS.includes(to)) throw new EngineFailure('UNSUPPORTED_FORMAT', `pdfjs does not write ${to}.`);
  const pdfjs = pdfjsPackage();
  if (!pdfjs) throw new EngineFailure('ENGINE_UNAVAILABLE', 'pdf.js (pdfjs-dist) is not installed.');
  checkPdfBytes(input!.filename, input!.size, call.config);
  await checkPdfSignature(input!.filename, input!.path);
  await ensurePdfDecodable(input!.filename, input!.path, call.config);
  // Within MAX_PDF_PAGES, an open range (`7-`) runs to the last page of any PDF that is read at all.
  const wanted = call.payload.pages ? selectPages(call.payload.pages, call.config.MAX_PDF_PAGES) : undefined;
  const { count, pages } = await extractRuns(call, input!, pdfjs, wanted);
  if (!pages.length) throw new EngineFailure('INVALID_INPUT', `${input!.filename} has ${count} pages; pages ${call.payload.pages} selects none of them.`);
  const title = path.parse(input!.filename).name;
  const [name] = call.names(to, 1);
  const out = call.output(name!);
  await write(to, layout(pages), title, out);
  return { files: [{ path: out, filename: name!, contentType: mimeType(to) }] };
}
