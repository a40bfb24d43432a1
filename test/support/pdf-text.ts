/**
 * What a reader sees in a PDF, read with PDF.js (pdfjs-dist, its legacy build for Node 20) so that
 * no test needs poppler or any other system tool to check an output: the text of a page in content
 * order, and the images drawn on each page.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { getDocument, ImageKind, OPS, type PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';

const require = createRequire(import.meta.url);
const pdfjsRoot = path.dirname(require.resolve('pdfjs-dist/package.json'));

async function open(pdf: string | Uint8Array): Promise<PDFDocumentProxy> {
  const bytes = typeof pdf === 'string' ? await readFile(pdf) : pdf;
  return getDocument({
    // PDF.js takes ownership of the buffer it is given: pass a copy.
    data: new Uint8Array(bytes),
    // Fonts that are not embedded (pdf-lib's standard fonts) are looked up here, not on the system.
    standardFontDataUrl: path.join(pdfjsRoot, 'standard_fonts') + path.sep,
    cMapUrl: path.join(pdfjsRoot, 'cmaps') + path.sep,
    cMapPacked: true,
    disableFontFace: true,
    isEvalSupported: false,
    verbosity: 0,
  }).promise;
}

/**
 * The text of one page (1-based) in content order, whitespace collapsed. Rotated text may come out
 * with spaces between its characters: compare it with whitespace removed.
 */
export async function pdfPageText(pdf: string | Uint8Array, page: number): Promise<string> {
  const doc = await open(pdf);
  try {
    if (page < 1 || page > doc.numPages) throw new Error(`the PDF has ${doc.numPages} pages, not a page ${page}`);
    const content = await (await doc.getPage(page)).getTextContent();
    const parts = content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : ''));
    return parts.join('').replace(/\s+/g, ' ').trim();
  } finally {
    await doc.destroy();
  }
}

/** The text of every page, pages separated by a line break. */
export async function pdfText(pdf: string | Uint8Array): Promise<string> {
  const doc = await open(pdf);
  try {
    const pages: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const content = await (await doc.getPage(n)).getTextContent();
      pages.push(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join(''));
    }
    return pages.join('\n');
  } finally {
    await doc.destroy();
  }
}

/** One image a page draws: its size in pixels, and whether any of it is see-through (a soft mask). */
export interface DrawnImage {
  width: number;
  height: number;
  transparent: boolean;
}

/** The images each page draws (XObject and inline images), decoded by PDF.js, by page. */
export async function pdfPageImages(pdf: string | Uint8Array): Promise<DrawnImage[][]> {
  const doc = await open(pdf);
  const painting = new Set<number>([OPS.paintImageXObject, OPS.paintInlineImageXObject, OPS.paintImageXObjectRepeat]);
  try {
    const pages: DrawnImage[][] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const list = await page.getOperatorList();
      const images: DrawnImage[] = [];
      for (const [i, fn] of list.fnArray.entries()) {
        if (!painting.has(fn)) continue;
        const arg = list.argsArray[i][0] as string | DecodedImage;
        // Images used on several pages are kept in the document's shared objects (ids `g_…`).
        const image = typeof arg === 'string' ? await decoded(arg.startsWith('g_') ? page.commonObjs : page.objs, arg) : arg;
        images.push({ width: image.width, height: image.height, transparent: hasAlpha(image) });
      }
      pages.push(images);
    }
    return pages;
  } finally {
    await doc.destroy();
  }
}

interface DecodedImage {
  width: number;
  height: number;
  kind?: number;
  data?: Uint8Array | Uint8ClampedArray;
}

/** An image PDF.js has decoded for a page (it resolves them while building the operator list). */
function decoded(objs: { get(id: string, callback: (value: unknown) => void): unknown }, id: string): Promise<DecodedImage> {
  return new Promise((resolve) => objs.get(id, (value) => resolve(value as DecodedImage)));
}

/** RGBA pixels (PDF.js decodes an image with a soft mask so) with at least one not fully opaque. */
function hasAlpha(image: DecodedImage): boolean {
  if (image.kind !== ImageKind.RGBA_32BPP || !image.data) return false;
  for (let i = 3; i < image.data.length; i += 4) if (image.data[i]! < 255) return true;
  return false;
}

/** The decoded pixels of every image the pages draw (RGB or RGBA, PDF.js's `kind`), to look for a colour in them. */
export async function pdfImagePixels(pdf: string | Uint8Array): Promise<Array<{ width: number; height: number; channels: number; data: Uint8Array | Uint8ClampedArray }>> {
  const doc = await open(pdf);
  const painting = new Set<number>([OPS.paintImageXObject, OPS.paintInlineImageXObject, OPS.paintImageXObjectRepeat]);
  try {
    const found: Array<{ width: number; height: number; channels: number; data: Uint8Array | Uint8ClampedArray }> = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const list = await page.getOperatorList();
      for (const [i, fn] of list.fnArray.entries()) {
        if (!painting.has(fn)) continue;
        const arg = list.argsArray[i][0] as string | DecodedImage;
        const image = typeof arg === 'string' ? await decoded(arg.startsWith('g_') ? page.commonObjs : page.objs, arg) : arg;
        const channels = image.kind === ImageKind.RGBA_32BPP ? 4 : image.kind === ImageKind.RGB_24BPP ? 3 : 0;
        if (image.data && channels) found.push({ width: image.width, height: image.height, channels, data: image.data });
      }
    }
    return found;
  } finally {
    await doc.destroy();
  }
}
