/**
 * The pdf-lib engine: text and image watermarks on PDF pages (real text, so it stays searchable),
 * merging PDFs and images into one PDF, images to PDF. pdf-lib is loaded on first use.
 */
import { readFile, writeFile } from 'node:fs/promises';
import type * as PdfLibModule from 'pdf-lib';
import type { PDFDocument, PDFFont, PDFImage, PDFPage } from 'pdf-lib';
import type { EngineCall, EngineResult, LocalFile } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { ensurePdfDecodable, type DecodeLimits } from '../core/pdf-streams.js';
import { loadSharp, type WatermarkSpec } from '../image/sharp.js';

type PdfLib = typeof PdfLibModule;
let loaded: Promise<PdfLib> | undefined;
const loadPdfLib = () => (loaded ??= import('pdf-lib'));

/** Page numbers (1-based) selected by `1-3,5,7-` among `count` pages; all pages without ranges. */
export function selectPages(ranges: string | undefined, count: number): number[] {
  if (!ranges || !ranges.trim()) return Array.from({ length: count }, (_, i) => i + 1);
  const out = new Set<number>();
  for (const part of ranges.split(',')) {
    // No two quantifiers share a run of spaces (linear time on any text).
    const m = /^\s*(\d+)\s*(?:(-)\s*(?:(\d+)\s*)?)?$/.exec(part);
    if (!m) continue;
    const from = Number(m[1]);
    const to = m[2] ? (m[3] ? Number(m[3]) : count) : from;
    for (let p = Math.max(1, from); p <= Math.min(count, to); p++) out.add(p);
  }
  return [...out].sort((a, b) => a - b);
}

/** A PDF in pdf-lib, once its streams are known to decode to a bounded size (pdf-lib expands some whole). */
async function loadPdf(file: LocalFile, limits: DecodeLimits): Promise<PDFDocument> {
  await ensurePdfDecodable(file.filename, file.path, limits);
  const { PDFDocument } = await loadPdfLib();
  try {
    return await PDFDocument.load(await readFile(file.path), { ignoreEncryption: false, updateMetadata: false });
  } catch (err) {
    const encrypted = /encrypt/i.test((err as Error).message);
    throw new EngineFailure(
      encrypted ? 'ENCRYPTED_INPUT' : 'INVALID_INPUT',
      encrypted ? `${file.filename} is encrypted; decrypt it first.` : `${file.filename} could not be read as a PDF: ${(err as Error).message}.`, { cause: err },
    );
  }
}

const STANDARD_FONTS: Record<string, [string, string, string, string]> = {
  // regular, bold, italic, bold italic
  helvetica: ['Helvetica', 'Helvetica-Bold', 'Helvetica-Oblique', 'Helvetica-BoldOblique'],
  times: ['Times-Roman', 'Times-Bold', 'Times-Italic', 'Times-BoldItalic'],
  courier: ['Courier', 'Courier-Bold', 'Courier-Oblique', 'Courier-BoldOblique'],
};

/** The PDF standard font for a font name of the file API (Arial and Verdana are drawn as Helvetica). */
export function standardFont(fontName = 'Helvetica'): string {
  const family = /times/i.test(fontName) ? 'times' : /courier/i.test(fontName) ? 'courier' : 'helvetica';
  const bold = /bold/i.test(fontName);
  const italic = /italic|oblique/i.test(fontName);
  return STANDARD_FONTS[family]![bold ? (italic ? 3 : 1) : italic ? 2 : 0];
}

const rgbOf = (hex = '#000000') => {
  const h = hex.length === 4 ? [...hex.slice(1)].map((c) => c + c).join('') : hex.slice(1);
  return [0, 2, 4].map((i) => Number.parseInt(h.slice(i, i + 2), 16) / 255) as [number, number, number];
};

interface Box {
  /** Width and height of the unrotated watermark. */
  width: number;
  height: number;
  /** Its centre, relative to its drawing origin. */
  cx: number;
  cy: number;
}

const rad = (deg: number) => (deg * Math.PI) / 180;
const turn = (x: number, y: number, deg: number): [number, number] => {
  const c = Math.cos(rad(deg));
  const s = Math.sin(rad(deg));
  return [x * c - y * s, x * s + y * c];
};

/** The page as it is seen: its crop box and rotation, and a map from seen coordinates to PDF ones. */
function viewOf(page: PDFPage) {
  const crop = page.getCropBox();
  const rotation = (((page.getRotation().angle % 360) + 360) % 360) as 0 | 90 | 180 | 270;
  const sideways = rotation === 90 || rotation === 270;
  const width = sideways ? crop.height : crop.width;
  const height = sideways ? crop.width : crop.height;
  const toPdf = (u: number, v: number): [number, number] => {
    const [a, b] =
      rotation === 90 ? [crop.width - v, u] : rotation === 180 ? [crop.width - u, crop.height - v] : rotation === 270 ? [v, crop.height - u] : [u, v];
    return [crop.x + a, crop.y + b];
  };
  return { width, height, rotation, toPdf };
}

/** The drawing origin (in seen coordinates) that puts a rotated `box` where `spec` wants it. */
function origin(spec: WatermarkSpec, view: { width: number; height: number }, box: Box, angle: number): [number, number] {
  const c = Math.abs(Math.cos(rad(angle)));
  const s = Math.abs(Math.sin(rad(angle)));
  const ex = (box.width * c + box.height * s) / 2;
  const ey = (box.width * s + box.height * c) / 2;
  const mh = spec.margin_horizontal ?? 25;
  const mv = spec.margin_vertical ?? 25;
  const h = spec.position_horizontal ?? 'center';
  const v = spec.position_vertical ?? 'center';
  const tx = h === 'left' ? mh + ex : h === 'right' ? view.width - mh - ex : view.width / 2;
  const ty = v === 'top' ? view.height - mv - ey : v === 'bottom' ? mv + ey : view.height / 2;
  const [rx, ry] = turn(box.cx, box.cy, angle);
  return [tx - rx, ty - ry];
}

/** The rotated box's width per unit of size, for `*_width_percent`. */
const rotatedWidth = (box: Box, angle: number) => box.width * Math.abs(Math.cos(rad(angle))) + box.height * Math.abs(Math.sin(rad(angle)));

/** Characters the standard font cannot show become `?` (standard fonts only cover WinAnsi). */
function encodable(font: PDFFont, text: string): string {
  const supported = new Set(font.getCharacterSet());
  return [...text].map((ch) => (ch === '\n' || supported.has(ch.codePointAt(0)!) ? ch : '?')).join('');
}

/** Moves the content stream just drawn to the front of the page's contents: the watermark goes below. */
function sendToBack(pdf: PdfLib, page: PDFPage): void {
  const { PDFArray } = pdf;
  const contents = page.node.Contents();
  if (!(contents instanceof PDFArray) || contents.size() < 2) return;
  const last = contents.get(contents.size() - 1);
  contents.remove(contents.size() - 1);
  contents.insert(0, last);
}

/** Wraps the page's existing content in q/Q, so that whatever state it leaves behind cannot move the watermark. */
function isolateContent(doc: PDFDocument, page: PDFPage): void {
  page.node.normalize();
  const start = doc.context.register(doc.context.flateStream('q\n'));
  const end = doc.context.register(doc.context.flateStream('\nQ\n'));
  page.node.wrapContentStreams(start, end);
}

/** watermark: text or an image on the selected pages of a PDF. */
export async function watermarkPdf(call: EngineCall<WatermarkSpec & { pages?: string }>, watermarkImagePath?: string): Promise<EngineResult> {
  const pdf = await loadPdfLib();
  const [input] = call.inputs;
  const spec = call.payload as WatermarkSpec & { pages?: string };
  const doc = await loadPdf(input!, call.config);
  const opacity = Math.max(0, Math.min(100, spec.opacity ?? 100)) / 100;
  const angle = spec.rotation ?? 0;

  let image: PDFImage | undefined;
  let font: PDFFont | undefined;
  let lines: string[] = [];
  if (watermarkImagePath) {
    const sharp = await loadSharp();
    const png = await sharp(watermarkImagePath, { limitInputPixels: call.config.MAX_IMAGE_PIXELS }).rotate().ensureAlpha().png().toBuffer();
    image = await doc.embedPng(png);
  } else {
    font = await doc.embedFont(standardFont(spec.font_name));
    lines = encodable(font, spec.text ?? '').split('\n');
  }

  const pages = doc.getPages();
  for (const number of selectPages(spec.pages, pages.length)) {
    const page = pages[number - 1]!;
    const view = viewOf(page);
    const available = Math.max(1, view.width - 2 * (spec.margin_horizontal ?? 25));
    const drawAngle = angle + view.rotation;
    isolateContent(doc, page);

    if (image) {
      let width = spec.image_width ?? image.width * 0.75;
      let height = spec.image_height ?? (spec.image_width ? (image.height * spec.image_width) / image.width : image.height * 0.75);
      if (spec.image_width_percent !== undefined) {
        const unit: Box = { width: 1, height: height / width, cx: 0.5, cy: height / width / 2 };
        const scale = (available * spec.image_width_percent) / 100 / rotatedWidth(unit, angle);
        height = (height / width) * scale;
        width = scale;
      }
      const box: Box = { width, height, cx: width / 2, cy: height / 2 };
      const [u, v] = origin(spec, view, box, angle);
      const [x, y] = view.toPdf(u, v);
      page.drawImage(image, { x, y, width, height, rotate: pdf.degrees(drawAngle), opacity });
    } else {
      const measure = (size: number): Box & { lineHeight: number; widths: number[] } => {
        const widths = lines.map((l) => font!.widthOfTextAtSize(l, size));
        const ascent = font!.heightAtSize(size, { descender: false });
        const lineHeight = size * 1.2;
        const width = Math.max(...widths, 0);
        const down = (lines.length - 1) * lineHeight;
        return { width, height: ascent + down, cx: width / 2, cy: (ascent - down) / 2, lineHeight, widths };
      };
      let size = spec.font_size ?? 40;
      if (spec.font_width_percent !== undefined) {
        const perUnit = rotatedWidth(measure(1), angle);
        if (perUnit > 0) size = (available * spec.font_width_percent) / 100 / perUnit;
      }
      const box = measure(size);
      const [u0, v0] = origin(spec, view, box, angle);
      const [r, g, b] = rgbOf(spec.font_color);
      lines.forEach((line, i) => {
        const align = spec.font_align ?? 'center';
        const dx = align === 'left' ? 0 : align === 'right' ? box.width - box.widths[i]! : (box.width - box.widths[i]!) / 2;
        const [ox, oy] = turn(dx, -i * box.lineHeight, angle);
        const [x, y] = view.toPdf(u0 + ox, v0 + oy);
        page.drawText(line, { x, y, size, font: font!, color: pdf.rgb(r, g, b), opacity, rotate: pdf.degrees(drawAngle) });
      });
    }
    if (spec.layer === 'below') sendToBack(pdf, page);
    call.signal.throwIfAborted();
  }

  const [name] = call.names('pdf', 1);
  const out = call.output(name!);
  await writeFile(out, await doc.save({ useObjectStreams: true }));
  return { files: [{ path: out, filename: name!, contentType: 'application/pdf' }] };
}

/** An image as something pdf-lib embeds: JPEG and PNG as they are (unless rotated by EXIF), others through sharp. */
async function embedImage(doc: PDFDocument, file: LocalFile, limit: number): Promise<{ image: PDFImage; widthPt: number; heightPt: number }> {
  const sharp = await loadSharp();
  const meta = await sharp(file.path, { limitInputPixels: limit }).metadata();
  const upright = (meta.orientation ?? 1) === 1;
  let image: PDFImage;
  if (file.format === 'jpg' && upright) image = await doc.embedJpg(await readFile(file.path));
  else if (file.format === 'png' && upright) image = await doc.embedPng(await readFile(file.path));
  else if (file.format === 'jpg') image = await doc.embedJpg(await sharp(file.path, { limitInputPixels: limit }).rotate().jpeg({ quality: 92 }).toBuffer());
  else image = await doc.embedPng(await sharp(file.path, { limitInputPixels: limit, animated: false }).rotate().png().toBuffer());
  // Pixels at the image's own resolution (96 dpi when it has none) as points.
  const dpi = meta.density && meta.density >= 30 ? meta.density : 96;
  return { image, widthPt: (image.width * 72) / dpi, heightPt: (image.height * 72) / dpi };
}

/** PDFs and images into one PDF, in input order. */
async function combine(call: EngineCall): Promise<EngineResult> {
  const { PDFDocument } = await loadPdfLib();
  const doc = await PDFDocument.create();
  for (const file of call.inputs) {
    if (file.format === 'pdf') {
      const source = await loadPdf(file, call.config);
      const copied = await doc.copyPages(source, source.getPageIndices());
      for (const page of copied) doc.addPage(page);
    } else {
      const { image, widthPt, heightPt } = await embedImage(doc, file, call.config.MAX_IMAGE_PIXELS);
      const page = doc.addPage([widthPt, heightPt]);
      page.drawImage(image, { x: 0, y: 0, width: widthPt, height: heightPt });
    }
    call.signal.throwIfAborted();
  }
  const [name] = call.names('pdf', 1);
  const out = call.output(name!);
  await writeFile(out, await doc.save({ useObjectStreams: true }));
  return { files: [{ path: out, filename: name!, contentType: 'application/pdf' }] };
}

/** merge: every input into one PDF, in input order. */
export const mergeToPdf = (call: EngineCall<{ filename?: string }>): Promise<EngineResult> => {
  const named = call.payload.filename ? call : { ...call, names: () => ['merged.pdf'] };
  return combine(call.inputs.length === 1 ? call : named);
};

/** convert: an image to a one-page PDF. */
export const imageToPdf = (call: EngineCall): Promise<EngineResult> => combine(call);
