/**
 * Images and PDFs on their engines (sharp, pdf-lib, Ghostscript, qpdf, exiftool), in-process against
 * dynalite and s3rver: conversion sizes, thumbnails, watermarks, merge, optimize, metadata round
 * trips, and the limits that refuse a file before it is decoded.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_VERSIONS } from '#lib/engines/core/catalog.js';
import { findExecutable } from '#lib/engines/core/probe.js';
import { ApiError } from '#lib/kernel/errors.js';
import { declaredHugePng, imageHeavyPdf, jpeg, textPdf, transparentPng } from '../fixtures/engine-fixtures.js';
import { pdfPageImages, pdfPageText } from '../support/pdf-text.js';
import { engine, requires } from '../support/requires.js';
import { base64, startEngineHarness, type Harness } from './engines-harness.js';

let h: Harness;
let dir: string;
let photo: Buffer;

/** Ghostscript and qpdf: PDF optimization, and the engine choices these tests name. */
const pdfEngines = requires(engine('ghostscript'), engine('qpdf'));
const exiftool = requires(engine('exiftool'));

beforeAll(async () => {
  h = await startEngineHarness();
  dir = mkdtempSync(path.join(tmpdir(), 'engines-images-'));
  photo = await jpeg(1200, 800);
});
afterAll(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

const meta = (bytes: Buffer) => sharp(bytes).metadata();

describe('convert and thumbnail with sharp', () => {
  it('turns a JPEG into webp, avif and png of the requested size', async () => {
    const t = await h.run({
      photo: base64(photo, 'photo.jpg'),
      webp: { operation: 'convert', input: 'photo', output_format: 'webp', width: 600 },
      avif: { operation: 'convert', input: 'photo', output_format: 'avif', width: 300, height: 300, fit: 'crop' },
      png: { operation: 'convert', input: 'photo', output_format: 'png', height: 100 },
    });
    for (const name of ['webp', 'avif', 'png']) expect(t[name], name).toMatchObject({ status: 'finished', engine: 'sharp', engineVersion: BUNDLED_VERSIONS.sharp });
    expect(await meta(await h.file(t.webp!))).toMatchObject({ format: 'webp', width: 600, height: 400 });
    expect(await meta(await h.file(t.avif!))).toMatchObject({ format: 'heif', compression: 'av1', width: 300, height: 300 });
    expect(await meta(await h.file(t.png!))).toMatchObject({ format: 'png', width: 150, height: 100 });
    expect(t.webp!.result!.files![0]!.filename).toBe('photo.webp');
  });

  it('makes thumbnails that fit the box without enlarging, or fill it', async () => {
    const t = await h.run({
      photo: base64(photo, 'photo.jpg'),
      max: { operation: 'thumbnail', input: 'photo', output_format: 'jpg', width: 200, height: 200 },
      crop: { operation: 'thumbnail', input: 'photo', output_format: 'webp', width: 200, height: 200, fit: 'crop', filename: 'square.webp' },
      big: { operation: 'thumbnail', input: 'photo', output_format: 'png', width: 5000 },
    });
    expect(await meta(await h.file(t.max!))).toMatchObject({ format: 'jpeg', width: 200, height: 133 });
    expect(await meta(await h.file(t.crop!))).toMatchObject({ format: 'webp', width: 200, height: 200 });
    expect(t.crop!.result!.files![0]!.filename).toBe('square.webp');
    expect(await meta(await h.file(t.big!))).toMatchObject({ width: 1200, height: 800 });
  });
});

describe('limits', () => {
  it('fails a 1 KB image that declares 50000 × 50000 pixels quickly, without decoding it', async () => {
    const lie = declaredHugePng();
    expect(lie.length).toBeLessThan(1100);
    const started = performance.now();
    const t = await h.run({
      lie: base64(lie, 'lie.png'),
      thumb: { operation: 'thumbnail', input: 'lie', output_format: 'png', width: 100 },
    });
    const ms = performance.now() - started;
    expect(t.thumb).toMatchObject({ status: 'error', code: 'IMAGE_TOO_LARGE' });
    expect(t.thumb!.message).toContain('50000 × 50000');
    expect(t.thumb!.message).toContain('MAX_IMAGE_PIXELS');
    // The whole job (import, refusal) and not only the check: well under a second on an idle machine
    // (npm run bench); decoding 2.5 billion pixels would take minutes and gigabytes. A generous bound,
    // so that a busy machine does not fail the test.
    expect(ms).toBeLessThan(10_000);
  });

  it('refuses PDFs past the page limit before processing them', async () => {
    const strict = await startEngineHarness({ MAX_PDF_PAGES: '3' });
    try {
      const t = await strict.run({
        doc: base64(await textPdf(4), 'four.pdf'),
        mark: { operation: 'watermark', input: 'doc', text: 'X' },
      });
      expect(t.mark).toMatchObject({ status: 'error', code: 'TOO_MANY_PAGES' });
      expect(t.mark!.message).toBe('four.pdf has 4 pages; PDFs of up to 3 pages are processed (MAX_PDF_PAGES).');
    } finally {
      await strict.close();
    }
  });

  it('refuses PDFs past the size limit before downloading them', async () => {
    const strict = await startEngineHarness({ MAX_PDF_BYTES: '1000' });
    try {
      const t = await strict.run({
        doc: base64(await textPdf(2), 'two.pdf'),
        small: { operation: 'optimize', input: 'doc' },
      });
      expect(t.small).toMatchObject({ status: 'error', code: 'FILE_TOO_LARGE' });
      expect(t.small!.message).toMatch(/^two\.pdf is \d+ bytes; PDFs of up to 1000 bytes are processed \(MAX_PDF_BYTES\)\.$/);
    } finally {
      await strict.close();
    }
  });
});

describe('watermark', () => {
  it('writes real text on every PDF page, centred and rotated, keeping the page count', async () => {
    const t = await h.run({
      doc: base64(await textPdf(3), 'doc.pdf'),
      mark: { operation: 'watermark', input: 'doc', text: 'CONFIDENTIAL', font_size: 48, opacity: 50, rotation: -45, position_vertical: 'center', position_horizontal: 'center' },
    });
    expect(t.mark).toMatchObject({ status: 'finished', engine: 'pdf-lib', engineVersion: BUNDLED_VERSIONS.pdfLib });
    const bytes = await h.file(t.mark!);
    const doc = await PDFDocument.load(bytes);
    expect(doc.getPageCount()).toBe(3);
    const file = await h.saveTo(dir, t.mark!);
    for (let page = 1; page <= 3; page++) {
      const text = await pdfPageText(file, page);
      expect(text).toContain(`Page ${page} of 3`);
      expect(text.replace(/\s/g, '')).toContain('CONFIDENTIAL');
    }
  });

  it('puts an image watermark from another task on PDF pages', async () => {
    const t = await h.run({
      doc: base64(await textPdf(2), 'doc.pdf'),
      logo: base64(await transparentPng(120), 'logo.png'),
      mark: { operation: 'watermark', input: ['doc', 'logo'], image: 'logo', image_width_percent: 25, opacity: 40, position_vertical: 'bottom', position_horizontal: 'right' },
    });
    expect(t.mark).toMatchObject({ status: 'finished', engine: 'pdf-lib' });
    const file = await h.saveTo(dir, t.mark!);
    // One image drawn on each page, the logo's size, with its transparency kept (a soft mask); the text still there.
    expect(await pdfPageImages(file)).toEqual([[{ width: 120, height: 120, transparent: true }], [{ width: 120, height: 120, transparent: true }]]);
    expect(await pdfPageText(file, 2)).toContain('Page 2 of 2');
  });

  it('marks only the selected pages, below the content when asked', async () => {
    const t = await h.run({
      doc: base64(await textPdf(4), 'doc.pdf'),
      mark: { operation: 'watermark', input: 'doc', text: 'DRAFT', pages: '2-3', layer: 'below', font_name: 'Times New Roman Bold' },
    });
    const file = await h.saveTo(dir, t.mark!);
    expect(await Promise.all([1, 2, 3, 4].map(async (p) => (await pdfPageText(file, p)).includes('DRAFT')))).toEqual([false, true, true, false]);
  });

  it('puts a transparent image watermark from another task on an image, where it was asked', async () => {
    const base = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#ffffff' } }).jpeg().toBuffer();
    const t = await h.run({
      photo: base64(base, 'white.jpg'),
      logo: base64(await transparentPng(200), 'logo.png'),
      mark: { operation: 'watermark', input: ['photo', 'logo'], image: 'logo', image_width: 100, position_vertical: 'top', position_horizontal: 'left', margin_vertical: 10, margin_horizontal: 20 },
    });
    expect(t.mark).toMatchObject({ status: 'finished', engine: 'sharp' });
    expect(t.mark!.result!.files).toHaveLength(1);
    const out = sharp(await h.file(t.mark!));
    expect(await out.metadata()).toMatchObject({ format: 'jpeg', width: 800, height: 600 });
    const { data, info } = await out.raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
    // The disc's centre is red; its transparent corner kept the white underneath; far away is untouched.
    const [r, g, b] = at(20 + 50, 10 + 50);
    expect(r).toBeGreaterThan(200);
    expect(g! + b!).toBeLessThan(100);
    expect(at(22, 12)).toEqual([255, 255, 255]);
    expect(at(400, 300)).toEqual([255, 255, 255]);
  });

  it('scales text to a share of the width and applies the opacity', async () => {
    const white = await sharp({ create: { width: 1000, height: 400, channels: 3, background: '#ffffff' } }).png().toBuffer();
    const t = await h.run({
      img: base64(white, 'white.png'),
      mark: { operation: 'watermark', input: 'img', text: 'WIDE TEXT', font_width_percent: 50, font_color: '#000000', opacity: 50, margin_horizontal: 0 },
    });
    const { data, info } = await sharp(await h.file(t.mark!)).raw().toBuffer({ resolveWithObject: true });
    let minX = info.width;
    let maxX = 0;
    let darkest = 255;
    for (let y = 0; y < info.height; y++) {
      for (let x = 0; x < info.width; x++) {
        const v = data[(y * info.width + x) * info.channels]!;
        if (v < 250) {
          minX = Math.min(minX, x);
          maxX = Math.max(maxX, x);
          darkest = Math.min(darkest, v);
        }
      }
    }
    expect(maxX - minX).toBeGreaterThan(470);
    expect(maxX - minX).toBeLessThan(530);
    // Black at 50 % over white is mid-grey, never black.
    expect(darkest).toBeGreaterThan(110);
    expect(darkest).toBeLessThan(145);
  });

  it('without input, produces the watermark alone as a transparent PNG', async () => {
    const t = await h.run({ mark: { operation: 'watermark', text: 'Sample', font_size: 60, rotation: 30 } });
    expect(t.mark).toMatchObject({ status: 'finished', engine: 'sharp' });
    expect(t.mark!.result!.files![0]!.filename).toBe('watermark.png');
    const png = sharp(await h.file(t.mark!));
    const info = await png.metadata();
    expect(info).toMatchObject({ format: 'png', hasAlpha: true });
    const { data } = await png.raw().toBuffer({ resolveWithObject: true });
    // Corners of a rotated text box are transparent, some pixels are not.
    expect(data[3]).toBe(0);
    expect([...data].some((v, i) => i % 4 === 3 && v === 255)).toBe(true);
  });
});

describe('merge, optimize, metadata', () => {
  it('merges PDFs and images into one PDF in input order', async () => {
    const t = await h.run({
      a: base64(await textPdf(2, 'A'), 'a.pdf'),
      img: base64(await sharp(await jpeg(400, 300)).withMetadata({ density: 144 }).toBuffer(), 'pic.jpg'),
      b: base64(await textPdf(1, 'B'), 'b.pdf'),
      all: { operation: 'merge', input: ['a', 'img', 'b'], output_format: 'pdf' },
    });
    expect(t.all).toMatchObject({ status: 'finished', engine: 'pdf-lib' });
    expect(t.all!.result!.files![0]!.filename).toBe('merged.pdf');
    const file = await h.saveTo(dir, t.all!);
    const doc = await PDFDocument.load(await h.file(t.all!));
    expect(doc.getPageCount()).toBe(4);
    expect(await pdfPageText(file, 1)).toContain('Page 1 of 2 A');
    expect(await pdfPageText(file, 2)).toContain('Page 2 of 2 A');
    expect(await pdfPageText(file, 3)).toBe('');
    // 400 × 300 pixels at 144 dpi: 200 × 150 points.
    expect(doc.getPage(2).getSize()).toEqual({ width: 200, height: 150 });
    expect(await pdfPageText(file, 4)).toContain('Page 1 of 1 B');
  });

  pdfEngines.it('optimizes a PDF to a smaller file with Ghostscript, and losslessly with qpdf when pinned', async () => {
    const heavy = await imageHeavyPdf();
    const t = await h.run({
      doc: base64(heavy, 'heavy.pdf'),
      gs: { operation: 'optimize', input: 'doc', profile: 'web' },
      qpdf: { operation: 'optimize', input: 'doc', engine: 'qpdf' },
    });
    expect(t.gs).toMatchObject({ status: 'finished', engine: 'ghostscript' });
    expect(t.gs!.engineVersion).toMatch(/^\d+\.\d+/);
    const smaller = await h.file(t.gs!);
    expect(smaller.length).toBeLessThan(heavy.length / 3);
    expect((await PDFDocument.load(smaller)).getPageCount()).toBe(2);
    expect(t.qpdf).toMatchObject({ status: 'finished', engine: 'qpdf' });
    expect((await h.file(t.qpdf!)).length).toBeLessThanOrEqual(heavy.length);
  });

  pdfEngines.it('flattens form and signature fields into the page when optimizing with flatten_signatures', async () => {
    const form = await PDFDocument.create();
    const page = form.addPage([400, 300]);
    const field = form.getForm().createTextField('signature');
    field.setText('Signed by Ada');
    field.addToPage(page, { x: 50, y: 150, width: 250, height: 40 });
    const bytes = Buffer.from(await form.save());
    const t = await h.run({
      doc: base64(bytes, 'form.pdf'),
      gs: { operation: 'optimize', input: 'doc', flatten_signatures: true },
      qpdf: { operation: 'optimize', input: 'doc', engine: 'qpdf', flatten_signatures: true },
      kept: { operation: 'optimize', input: 'doc', engine: 'qpdf' },
    });
    const fieldsOf = async (task: typeof t.gs) => (await PDFDocument.load(await h.file(task!))).getForm().getFields().length;
    expect(await fieldsOf(t.kept)).toBe(1);
    for (const name of ['gs', 'qpdf'] as const) {
      expect(t[name], name).toMatchObject({ status: 'finished' });
      expect(await fieldsOf(t[name]), name).toBe(0);
      expect(await pdfPageText(await h.saveTo(dir, t[name]!), 1), name).toContain('Signed by Ada');
    }
  });

  it('optimizes PNG and JPG with sharp', async () => {
    const png = await sharp(await jpeg(600, 400, { noise: 4 })).png({ compressionLevel: 0 }).toBuffer();
    const t = await h.run({
      png: base64(png, 'big.png'),
      jpg: base64(photo, 'photo.jpg'),
      png2: { operation: 'optimize', input: 'png' },
      jpg2: { operation: 'optimize', input: 'jpg', profile: 'max' },
    });
    expect(t.png2).toMatchObject({ status: 'finished', engine: 'sharp' });
    expect((await h.file(t.png2!)).length).toBeLessThan(png.length);
    expect((await h.file(t.jpg2!)).length).toBeLessThan(photo.length);
  });

  exiftool.it('writes metadata and reads it back', async () => {
    const t = await h.run({
      photo: base64(photo, 'photo.jpg'),
      doc: base64(await textPdf(1), 'doc.pdf'),
      tagged: { operation: 'metadata/write', input: 'photo', metadata: { Artist: 'Ada Lovelace', 'XMP:Title': 'Engines' } },
      taggedPdf: { operation: 'metadata/write', input: 'doc', metadata: { Author: 'Grace Hopper', Title: 'Compilers' } },
      read: { operation: 'metadata', input: 'tagged' },
      readPdf: { operation: 'metadata', input: 'taggedPdf' },
    });
    // The Perl ExifTool where there is perl, else ExifTool in WebAssembly: the same results.
    const version = findExecutable('perl') ? BUNDLED_VERSIONS.exiftool : BUNDLED_VERSIONS.exiftoolWasm;
    expect(t.tagged).toMatchObject({ status: 'finished', engine: 'exiftool', engineVersion: version });
    expect(t.read, JSON.stringify(t.read?.message)).toMatchObject({ status: 'finished' });
    expect(t.read!.result!.metadata).toMatchObject({ Artist: 'Ada Lovelace', Title: 'Engines', FileName: 'photo.jpg', ImageWidth: 1200 });
    expect(t.read!.result!.metadata).not.toHaveProperty('SourceFile');
    expect(t.read!.result!.files).toEqual([]);
    expect(t.readPdf!.result!.metadata).toMatchObject({ Author: 'Grace Hopper', Title: 'Compilers', PageCount: 1 });
  });
});

describe('temporary folders', () => {
  it('removes each engine call’s folder afterwards, when it worked and when it failed', async () => {
    const tmp = mkdtempSync(path.join(tmpdir(), 'engine-tmp-'));
    const own = await startEngineHarness({ ENGINE_TMP_DIR: tmp });
    try {
      const t = await own.run({
        photo: base64(photo, 'photo.jpg'),
        pdf: { operation: 'convert', input: 'photo', output_format: 'pdf' },
        lie: base64(declaredHugePng(), 'lie.png'),
        refused: { operation: 'convert', input: 'lie', output_format: 'webp' },
      });
      expect(t.pdf).toMatchObject({ status: 'finished', engine: 'pdf-lib' });
      expect((await PDFDocument.load(await own.file(t.pdf!))).getPageCount()).toBe(1);
      expect(t.refused).toMatchObject({ status: 'error', code: 'IMAGE_TOO_LARGE' });
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      await own.close();
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('engine choice', () => {
  pdfEngines.it('refuses an unknown or mismatched engine and version at creation, naming the choices', async () => {
    const fields = async (task: Record<string, unknown>) => {
      try {
        await h.run({ photo: base64(photo, 'photo.jpg'), t: { input: 'photo', ...task } });
      } catch (err) {
        if (err instanceof ApiError) return err.fields ?? {};
        throw err;
      }
      throw new Error('expected a 422');
    };
    expect(await fields({ operation: 'convert', output_format: 'webp', engine: 'gimp' })).toEqual({
      // The input's format is not known before the import has run: every engine that makes webp.
      'tasks.t.engine': ['There is no engine gimp for convert; choose one of: sharp, ghostscript, imagemagick.'],
    });
    expect(await fields({ operation: 'optimize', input_format: 'pdf', engine: 'sharp' })).toEqual({
      'tasks.t.engine': ['The engine sharp cannot run optimize from pdf; choose one of: ghostscript, qpdf.'],
    });
    expect(await fields({ operation: 'convert', input_format: 'jpg', output_format: 'webp', engine_version: '0.1' })).toEqual({
      // imagemagick makes jpg → webp too, after sharp.
      'tasks.t.engine_version': [`There is no version 0.1 of the engines for convert; choose one of: sharp ${BUNDLED_VERSIONS.sharp}, imagemagick ${BUNDLED_VERSIONS.imagemagick}.`],
    });
    expect(await fields({ operation: 'convert', output_format: 'webp', engine_version: '0.1' })).toEqual({
      'tasks.t.engine_version': [expect.stringMatching(new RegExp(`^There is no version 0.1 of the engines for convert; choose one of: sharp ${BUNDLED_VERSIONS.sharp}, ghostscript \\d`))],
    });
    expect(await fields({ operation: 'convert', output_format: 'xyz' })).toMatchObject({
      'tasks.t.output_format': [expect.stringMatching(/^convert cannot produce xyz on this installation; output formats: .*webp/)],
    });
  });

  it('runs a task pinned to a version with that version', async () => {
    const t = await h.run({
      photo: base64(photo, 'photo.jpg'),
      pinned: { operation: 'convert', input: 'photo', output_format: 'png', engine: 'sharp', engine_version: '0.35' },
    });
    expect(t.pinned).toMatchObject({ status: 'finished', engine: 'sharp', engineVersion: BUNDLED_VERSIONS.sharp });
  });
});
