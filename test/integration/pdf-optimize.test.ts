/**
 * PDF optimize on Ghostscript (lib/engines/pdf/ghostscript.ts, optimize-profiles.ts), on each build: the
 * system `gs` when this machine has it, the WebAssembly build (what a fresh machine runs) always. The
 * inputs are made here: a photo PDF (one 900×900 JPEG at quality 100, which Ghostscript used to pass
 * through untouched), a 300 dpi grey raster page and a text PDF. The outputs are read back with PDF.js
 * (page count, the images a page draws and their size, the text), never with the engine.
 */
import { statSync } from 'node:fs';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_VERSIONS } from '#lib/engines/core/catalog.js';
import { ghostscriptWasm } from '#lib/engines/core/shipped.js';
import { optimizePdf, type PdfArgs } from '#lib/engines/pdf/ghostscript.js';
import { jpeg, textPdf } from '../fixtures/engine-fixtures.js';
import { engineCall, type HandCall } from '../support/engine-call.js';
import { pdfPageImages, pdfText } from '../support/pdf-text.js';
import { optionalBuild, tool } from '../support/requires.js';

const systemGs = optionalBuild(tool('gs'));

/** Two A4 pages, the first drawing one 900×900 JPEG at quality 100 (about 110 dpi on the page). */
async function photoPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const image = await doc.embedJpg(await jpeg(900, 900, { quality: 100 }));
  for (let i = 1; i <= 2; i++) {
    const page = doc.addPage([595.28, 841.89]);
    page.drawText(`Holiday photo page ${i}`, { x: 72, y: 800, size: 14, font });
    if (i === 1) page.drawImage(image, { x: 0, y: 100, width: 595, height: 595 });
  }
  return Buffer.from(await doc.save());
}

/** One page drawing a noisy grey 1200×1200 raster on 4 inches: a 300 dpi scan. */
async function scannedPdf(): Promise<Buffer> {
  const side = 1200;
  const pixels = Buffer.alloc(side * side);
  for (let i = 0; i < pixels.length; i++) pixels[i] = 200 + Math.floor(Math.random() * 55) - ((i % side) % 97 < 3 ? 180 : 0);
  const png = await sharp(pixels, { raw: { width: side, height: side, channels: 1 } }).png().toBuffer();
  const doc = await PDFDocument.create();
  const page = doc.addPage([288, 288]);
  page.drawImage(await doc.embedPng(png), { x: 0, y: 0, width: 288, height: 288 });
  return Buffer.from(await doc.save());
}

let photo: Buffer;
let scanned: Buffer;
let text: Buffer;
const calls: HandCall<PdfArgs>[] = [];

beforeAll(async () => {
  [photo, scanned, text] = await Promise.all([photoPdf(), scannedPdf(), textPdf(3, 'of the quarterly report')]);
});
afterEach(() => {
  for (const c of calls.splice(0)) c.remove();
});

type Build = 'system' | 'wasm';

/** Optimizes `bytes` on one Ghostscript build; the output path and its size. */
async function optimize(build: Build, bytes: Buffer, payload: PdfArgs): Promise<{ path: string; size: number }> {
  const hand = engineCall<PdfArgs>('ghostscript', 'optimize', payload, [{ filename: 'doc.pdf', data: bytes, format: 'pdf' }]);
  calls.push(hand);
  const wasm = { version: BUNDLED_VERSIONS.ghostscriptWasm, variant: 'wasm' as const, executable: ghostscriptWasm()!.file };
  const installed = build === 'wasm' ? wasm : hand.call.choice.installed;
  if (build === 'system') expect(installed.variant).not.toBe('wasm');
  const { files } = await optimizePdf({ ...hand.call, choice: { ...hand.call.choice, installed } });
  return { path: files[0]!.path, size: statSync(files[0]!.path).size };
}

const builds: Array<[Build, typeof systemGs | undefined]> = [['system', systemGs], ['wasm', undefined]];

for (const [build, needs] of builds) {
  const suite = needs ? (name: string, fn: () => void) => needs.describe(name, fn) : describe;
  suite(`optimize on the ${build} Ghostscript`, () => {
    it('web recompresses a quality-100 JPEG: the photo PDF shrinks, its two pages and the 900×900 image still there', async () => {
      const out = await optimize(build, photo, { profile: 'web' });
      expect(out.size).toBeLessThan(photo.length / 3);
      const images = await pdfPageImages(out.path);
      expect(images).toHaveLength(2);
      expect(images[0]).toEqual([{ width: 900, height: 900, transparent: false }]);
      expect(images[1]).toEqual([]);
      expect(await pdfText(out.path)).toContain('Holiday photo page 2');
    }, 120_000);

    it('keeps more the more the profile promises: max < web < print < input, archive keeps the JPEG as it was', async () => {
      const size = async (profile: string) => (await optimize(build, photo, { profile })).size;
      const [max, web, print, archive] = [await size('max'), await size('web'), await size('print'), await size('archive')];
      expect(max).toBeLessThan(web);
      expect(web).toBeLessThan(print);
      expect(print).toBeLessThan(photo.length);
      // Nothing lossy in archive: the JPEG is not re-encoded, so nothing smaller came out and the input is kept.
      expect(archive).toBe(photo.length);
    }, 240_000);

    it('a lower quality gives a smaller file than the profile\'s own', async () => {
      const web = await optimize(build, photo, { profile: 'web' });
      const low = await optimize(build, photo, { profile: 'web', quality: 20 });
      expect(low.size).toBeLessThan(web.size * 0.8);
      expect((await pdfPageImages(low.path))[0]).toHaveLength(1);
    }, 120_000);

    it('downsamples a 300 dpi scan to the profile\'s resolution: web 150 dpi, max 72, print keeps 300', async () => {
      const width = async (profile: string) => {
        const out = await optimize(build, scanned, { profile });
        expect(out.size).toBeLessThan(scanned.length);
        return (await pdfPageImages(out.path))[0]![0]!.width;
      };
      expect(await width('web')).toBe(600);
      expect(await width('max')).toBe(288);
      expect(await width('print')).toBe(1200);
    }, 240_000);

    it('keeps the text of a text PDF with every profile', async () => {
      for (const profile of ['web', 'print', 'archive', 'mrc', 'max']) {
        const out = await optimize(build, text, { profile });
        expect(out.size).toBeLessThanOrEqual(text.length);
        expect(await pdfText(out.path)).toContain('Page 3 of 3 of the quarterly report');
      }
    }, 240_000);
  });
}
