/**
 * OCR (lib/engines/ocr/ocr.ts) on each build of Tesseract this machine has: the system one and
 * tesseract.js (WebAssembly, trained data from npm packages). The input is a "scan": pages that are
 * only pictures of known text, with no text of their own. The output must keep every page as it was
 * (count, size, rotation, the picture) and carry the known words as text, where they are on the page;
 * nothing may be fetched from the network.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { degrees, PDFDocument } from 'pdf-lib';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '#lib/kernel/config.js';
import type { EngineCall } from '#lib/engines/core/call.js';
import { confinement } from '#lib/engines/core/confine.js';
import { EngineFailure } from '#lib/engines/core/errors.js';
import { ocrToPdf, type OcrArgs } from '#lib/engines/ocr/ocr.js';
import { systemTesseract, tesseractJs } from '#lib/engines/core/ocr-detect.js';
import { recognizeWithTesseractJs } from '#lib/engines/ocr/ocr-js.js';
import { ToolError } from '#lib/engines/core/tool.js';
import { createLogger } from '#lib/kernel/log.js';
import { pdfPageImages, pdfPageText, pdfText } from '../support/pdf-text.js';
import { NO_SYSTEM_TOOLS } from '../support/fresh-machine.js';
import { startReceiver } from '../support/receiver.js';
import { TEST_CONFIG_ENV } from '../support/recording-queue.js';
import { optionalBuild, requires, type Requirement, type Requirements } from '../support/requires.js';

const FIRST = ['The quick brown fox jumps', 'over the lazy dog 2026'];
const SECOND = ['Pack my box with five', 'dozen liquor jugs'];
const GERMAN = ['Zwölf Boxkämpfer jagen Viktor', 'quer über den großen Deich'];

/** A4 at 300 dpi. */
const A4_PX = { width: 2480, height: 3508 };
const A4_PT = { width: 595.28, height: 841.89 };

/** A scanned page: lines of black text on white, 90 px high (about 22 pt at 300 dpi), from x = 200 px, as a grey PNG. */
function scannedPage(lines: string[], size = A4_PX, fontSize = 90): Promise<Buffer> {
  const text = lines
    .map((line, i) => `<text x="200" y="${600 + i * 160}" font-family="DejaVu Sans" font-size="${fontSize}" fill="#000">${line}</text>`)
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}"><rect width="100%" height="100%" fill="#fff"/>${text}</svg>`;
  return sharp(Buffer.from(svg)).grayscale().png().toBuffer();
}

/**
 * A PDF of page pictures only (no text), each filling an A4 page. A page with `rotate` (90) is stored
 * as a scanner that fed it sideways would store it: the picture turned a quarter the other way on a
 * landscape page, with /Rotate 90 to show it upright.
 */
async function scannedPdf(pages: Array<{ png: Buffer; rotate?: 90 }>): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (const { png, rotate } of pages) {
    const size = rotate ? { width: A4_PT.height, height: A4_PT.width } : A4_PT;
    const page = doc.addPage([size.width, size.height]);
    const picture = rotate ? await sharp(png).rotate(-rotate).png().toBuffer() : png;
    page.drawImage(await doc.embedPng(picture), { x: 0, y: 0, ...size });
    if (rotate) page.setRotation(degrees(rotate));
  }
  return Buffer.from(await doc.save());
}

/** Where a point of a page's user space is shown, in points from the top left, when the page is turned by `rotation` (0 or 90). */
function shown(point: { x: number; y: number }, rotation: number, mediaHeight: number): { left: number; top: number } {
  // Turned a quarter clockwise, the user space's bottom edge becomes the left edge.
  return rotation === 90 ? { left: point.y, top: point.x } : { left: point.x, top: mediaHeight - point.y };
}

/** Words as PDF.js finds them on a page, with where their text starts (in the page's unrotated space, points from the bottom left). */
async function words(pdf: Buffer, pageNumber: number): Promise<Array<{ str: string; x: number; y: number }>> {
  const doc = await getDocument({ data: new Uint8Array(pdf), isEvalSupported: false, verbosity: 0 }).promise;
  try {
    const content = await (await doc.getPage(pageNumber)).getTextContent();
    return content.items.flatMap((item) => ('str' in item ? [{ str: item.str, x: item.transform[4] as number, y: item.transform[5] as number }] : []));
  } finally {
    await doc.destroy();
  }
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

let dir: string;
let scan: Buffer;
let german: Buffer;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ocr-test-'));
  scan = await scannedPdf([{ png: await scannedPage(FIRST) }, { png: await scannedPage(SECOND), rotate: 90 }]);
  german = await scannedPdf([{ png: await scannedPage(GERMAN) }]);
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type Variant = 'system' | 'wasm';

/** An engine call of `pdf/ocr` on `bytes`, as the task machinery would prepare it. */
function ocrCall(variant: Variant, bytes: Buffer, filename: string, payload: OcrArgs = {}, settings: Record<string, string> = {}): EngineCall<OcrArgs> {
  // The task's work folder holds the call's folder, as the task machinery arranges it.
  const workDir = path.join(dir, `task-${randomUUID().slice(0, 8)}`);
  const callDir = path.join(workDir, 'call');
  mkdirSync(path.join(callDir, 'out'), { recursive: true });
  const input = path.join(callDir, `0-${filename}`);
  writeFileSync(input, bytes);
  const config = parseConfig({ ...TEST_CONFIG_ENV, ...settings });
  const js = tesseractJs();
  const system = systemTesseract(config.TESSERACT_PATH);
  const installed =
    variant === 'wasm' ? { version: js?.version ?? '?', executable: js?.folder, variant } : { version: system?.version ?? '?', executable: system?.executable, variant };
  const ac = new AbortController();
  const format = path.extname(filename).slice(1);
  return {
    operation: 'pdf/ocr',
    payload,
    choice: { engine: 'tesseract', version: installed.version, installed, capability: { operation: 'pdf/ocr', inputs: ['pdf', 'png', 'jpg'], outputs: ['pdf'], options: ['language'] } },
    inputs: [{ path: input, filename, format: format === 'jpeg' ? 'jpg' : format, size: bytes.length, taskId: 't' }],
    extras: [],
    dir: callDir,
    tool: { cwd: callDir, workDir, confinement: confinement(config), signal: ac.signal },
    signal: ac.signal,
    config,
    log: createLogger({}, { level: 'silent' }),
    output: (name) => path.join(callDir, 'out', name),
    names: (ext) => [`${path.parse(filename).name}.${ext}`],
  };
}

async function ocr(call: EngineCall<OcrArgs>): Promise<Buffer> {
  const result = await ocrToPdf(call);
  expect(result.files).toHaveLength(1);
  expect(result.files[0]).toMatchObject({ filename: `${path.parse(call.inputs[0]!.filename).name}.pdf`, contentType: 'application/pdf' });
  return readFileSync(result.files[0]!.path);
}

const systemOcr: Requirement = {
  name: 'tesseract',
  missing: () =>
    systemTesseract('tesseract')?.languages.includes('deu')
      ? undefined
      : 'Tesseract (tesseract) with English and German not found on PATH; install: apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu',
};
const jsOcr: Requirement = {
  name: 'tesseract.js',
  missing: () => (tesseractJs() ? undefined : 'tesseract.js with @tesseract.js-data/eng and /deu not installed; run npm ci'),
};

describe('what is installed', () => {
  it('tesseract.js and the languages of the @tesseract.js-data packages, found without loading them', () => {
    const js = tesseractJs();
    expect(js).toMatchObject({ version: '7.0.0', languages: ['deu', 'eng'] });
    expect(js!.data.eng).toMatch(/@tesseract\.js-data\/eng\/4\.0\.0_best_int\/eng\.traineddata\.gz$/);
    // What the child must be able to read: tesseract.js, its WebAssembly core and their dependencies.
    expect(js!.readOnly.map((f) => path.basename(f))).toEqual(expect.arrayContaining(['tesseract.js', 'tesseract.js-core', 'node-fetch']));
  });

  it('no system Tesseract at a path that does not exist', () => {
    expect(systemTesseract('/nonexistent/tesseract')).toBeUndefined();
  });

  optionalBuild(systemOcr).it('the system Tesseract with its version and the languages of its tessdata folder', () => {
    const found = systemTesseract('tesseract');
    expect(found!.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(found!.languages).toEqual(expect.arrayContaining(['eng', 'deu']));
    expect(found!.languages).not.toContain('osd');
  });
});

/** The builds: tesseract.js always (npm ci installs it), the system one when present (else left out). */
const VARIANTS: Array<[Variant, Requirements]> = [
  ['system', optionalBuild(systemOcr)],
  ['wasm', requires(jsOcr)],
];

for (const [variant, need] of VARIANTS) {
  need.describe(`OCR on ${variant === 'system' ? 'the system Tesseract' : 'tesseract.js'}`, () => {
    it('a scanned two-page PDF gets its words as text, over the same page pictures, page sizes and rotation', async () => {
      expect(squash(await pdfText(scan))).toBe('');
      const out = await ocr(ocrCall(variant, scan, 'scan.pdf'));
      const doc = await PDFDocument.load(out);
      expect(doc.getPageCount()).toBe(2);
      expect(doc.getPages().map((p) => [Math.round(p.getWidth()), Math.round(p.getHeight()), p.getRotation().angle])).toEqual([
        [595, 842, 0],
        [842, 595, 90],
      ]);
      expect(squash(await pdfPageText(out, 1))).toContain(FIRST.join(' '));
      expect(squash(await pdfPageText(out, 2))).toContain(SECOND.join(' '));
      // Each page still draws its picture, at full resolution.
      expect(await pdfPageImages(out)).toEqual([[{ ...A4_PX, transparent: false }], [{ width: A4_PX.height, height: A4_PX.width, transparent: false }]]);
      // The words lie where the picture shows them: the first word starts 200 px (48 pt) from the
      // left, its baseline 600 px (144 pt) from the top, on the page as it is shown.
      for (const [i, page] of doc.getPages().entries()) {
        const first = (await words(out, i + 1)).find((w) => /^(The|Pack)/.test(w.str));
        expect(first, `page ${i + 1}`).toBeDefined();
        const at = shown(first!, page.getRotation().angle, page.getHeight());
        expect(at.left).toBeGreaterThan(40);
        expect(at.left).toBeLessThan(56);
        expect(at.top).toBeGreaterThan(136);
        expect(at.top).toBeLessThan(152);
      }
    }, 120_000);

    it('an image becomes a one-page PDF of its size with its words as text', async () => {
      const png = await sharp(await scannedPage(FIRST, { width: 1600, height: 1000 }, 70)).withMetadata({ density: 150 }).toBuffer();
      const out = await ocr(ocrCall(variant, png, 'photo.png'));
      const doc = await PDFDocument.load(out);
      expect(doc.getPageCount()).toBe(1);
      // At the image's 150 dpi, 1600 × 1000 px are 768 × 480 pt.
      expect([doc.getPage(0).getWidth(), doc.getPage(0).getHeight()]).toEqual([768, 480]);
      expect(squash(await pdfPageText(out, 1))).toContain(FIRST.join(' '));
      expect(await pdfPageImages(out)).toEqual([[{ width: 1600, height: 1000, transparent: false }]]);
    }, 120_000);

    it('reads German with language deu', async () => {
      const out = await ocr(ocrCall(variant, german, 'brief.pdf', { language: ['deu'] }));
      const text = squash(await pdfPageText(out, 1));
      // The words with umlauts and ß, which only the German model spells right (the case of a
      // capital-looking letter may vary between the builds' models).
      for (const word of ['Zwölf', 'Boxkämpfer', 'Viktor', 'über', 'großen', 'Deich']) expect(text).toContain(word);
    }, 120_000);

    it('refuses a language that is not installed, naming those that are', async () => {
      const call = ocrCall(variant, scan, 'scan.pdf', { language: 'eng+xyz' });
      const err = await ocrToPdf(call).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EngineFailure);
      expect(err).toMatchObject({ code: 'INVALID_INPUT' });
      expect((err as Error).message).toMatch(/^OCR has no language xyz on this installation; languages: .*deu, eng/);
    });
  });
}

requires(jsOcr).describe('tesseract.js without network', () => {
  it('runs on a fresh machine (Ghostscript and qpdf in WebAssembly too) and leaves no downloaded or cached data', async () => {
    const call = ocrCall('wasm', scan, 'scan.pdf', {}, NO_SYSTEM_TOOLS);
    const out = await ocr(call);
    expect(squash(await pdfPageText(out, 1))).toContain(FIRST.join(' '));
    expect(squash(await pdfPageText(out, 2))).toContain(SECOND.join(' '));
    const files = readdirSync(call.dir, { recursive: true }).map(String);
    expect(files.filter((f) => f.endsWith('.traineddata'))).toEqual([]);
  }, 180_000);

  it('cannot reach the network even when told to load its trained data from a URL', async () => {
    const receiver = await startReceiver();
    try {
      // Unconfined, so that only the child's own guard stands between it and the loopback server.
      const call = ocrCall('wasm', scan, 'scan.pdf', {}, { ENGINE_CONFINEMENT: 'none' });
      const image = path.join(call.dir, 'page.png');
      writeFileSync(image, await scannedPage(FIRST));
      const output = path.join(call.dir, 'page.pdf');
      const err = await recognizeWithTesseractJs(tesseractJs()!, [{ image, dpi: 300, output }], ['eng'], call.tool, { langPath: `${receiver.url}/tessdata` }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ToolError);
      expect((err as ToolError).stderr).toContain('OCR runs without network access');
      expect(receiver.requests).toEqual([]);
      expect(existsSync(output)).toBe(false);
    } finally {
      await receiver.close();
    }
  }, 60_000);
});
