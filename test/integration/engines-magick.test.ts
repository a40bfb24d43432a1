/**
 * The imagemagick engine (ImageMagick in WebAssembly, lib/engines/image/magick.ts) through whole
 * jobs: every input format it lists, made in the test by magick-wasm, converted to PNG and read back
 * by sharp; every output format it lists, read back by a reader that is not ImageMagick
 * (test/support/image-readers.ts); its options; and an image bomb in a format only it reads,
 * refused from the header before anything is decoded.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_VERSIONS } from '#lib/engines/core/catalog.js';
import { SNIFF_BYTES, sniffFormat } from '#lib/engines/core/formats.js';
import { declaredSize } from '#lib/engines/image/magick-header.js';
import { coderOf, MAGICK_ONLY_INPUTS, MAGICK_OUTPUT_FORMATS, MAGICK_UNSNIFFED } from '#lib/engines/image/magick-formats.js';
import type { TaskRecord } from '#lib/file-api/records/model.js';
import { ffmpegPixels, ghostscriptPixels, psdPixels, qoiPixels, sharpPixels, wbmpPixels, type Pixels } from '../support/image-readers.js';
import { declaredHugePsd, frames, HEIGHT, icon, magick, pattern, WIDTH, written } from '../support/magick-images.js';
import { pdfPageImages } from '../support/pdf-text.js';
import { base64, startEngineHarness, type Harness } from './engines-harness.js';

let h: Harness;
let dir: string;
let png: Buffer;

beforeAll(async () => {
  h = await startEngineHarness();
  dir = mkdtempSync(path.join(tmpdir(), 'engines-magick-'));
  png = await pattern();
});
afterAll(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Formats that hold no colour: the red half comes out dark. */
const NO_COLOUR = new Set(['pgm', 'pbm', 'wbmp', 'xbm', 'otb', 'palm', 'wpg', 'vicar', 'pgx']);

/** The test picture as `format` was given it: its size, its left half red (or dark) and its right half white. */
function expectPicture(pixels: Pixels, format: string, size = { width: WIDTH, height: HEIGHT }) {
  expect({ width: pixels.width, height: pixels.height }, format).toEqual(size);
  const [r, g, b] = pixels.at(Math.floor(size.width / 8), Math.floor(size.height / 2));
  const right = pixels.at(Math.floor((size.width * 7) / 8), Math.floor(size.height / 2));
  if (NO_COLOUR.has(format)) expect((r + g + b) / 3, `${format}: the left half is dark`).toBeLessThan(110);
  else expect([r > 200, g < 60, b < 60], `${format}: the left half is red, not ${[r, g, b]}`).toEqual([true, true, true]);
  expect(Math.min(...right), `${format}: the right half is white, not ${right}`).toBeGreaterThan(200);
}

/** Runs one job converting each file to its output format; tasks by file name. */
async function convertAll(files: Array<{ name: string; bytes: Buffer; to: string; options?: Record<string, unknown> }>): Promise<Record<string, TaskRecord>> {
  const tasks: Record<string, Record<string, unknown>> = {};
  for (const [i, f] of files.entries()) {
    tasks[`in${i}`] = base64(f.bytes, f.name);
    tasks[`out${i}`] = { operation: 'convert', input: `in${i}`, output_format: f.to, ...f.options };
  }
  const t = await h.run(tasks);
  return Object.fromEntries(files.map((f, i) => [f.name, t[`out${i}`]!]));
}

const finished = (task: TaskRecord | undefined, name: string) =>
  expect(task, `${name}: ${task?.code} ${task?.message}`).toMatchObject({ status: 'finished', engine: 'imagemagick', engineVersion: BUNDLED_VERSIONS.imagemagick });

describe('imagemagick engine', () => {
  it('is the ImageMagick of the installed magick-wasm, as the catalog says', async () => {
    const m = await magick();
    expect(m.Magick.imageMagickVersion).toMatch(new RegExp(`^ImageMagick ${BUNDLED_VERSIONS.imagemagick} Q8 wasm32 `));
  });
});

describe('imagemagick reads', () => {
  it('every format it lists, each made by ImageMagick here, into a PNG that sharp reads back', async () => {
    const files = [];
    for (const format of MAGICK_ONLY_INPUTS) {
      const bytes = format === 'ico' || format === 'cur' ? await icon(coderOf(format) as 'ICO' | 'CUR', [WIDTH]) : await written(png, coderOf(format));
      files.push({ name: `picture.${format}`, bytes, to: 'png' });
    }
    const t = await convertAll(files);
    for (const format of MAGICK_ONLY_INPUTS) {
      const name = `picture.${format}`;
      finished(t[name], name);
      const side = format === 'ico' || format === 'cur' ? { width: WIDTH, height: WIDTH } : undefined;
      expectPicture(await sharpPixels(await h.file(t[name]!)), format, side);
    }
  }, 300_000);

  it('PSD, BMP and ICO as people send them: PSD → PNG, BMP → WEBP, ICO → PNG (its largest icon)', async () => {
    const t = await convertAll([
      { name: 'layers.psd', bytes: await written(png, 'PSD'), to: 'png' },
      { name: 'scan.bmp', bytes: await written(png, 'BMP'), to: 'webp' },
      { name: 'favicon.ico', bytes: await icon('ICO', [16, 32, 48]), to: 'png' },
    ]);
    for (const name of ['layers.psd', 'scan.bmp', 'favicon.ico']) finished(t[name], name);
    expectPicture(await sharpPixels(await h.file(t['layers.psd']!)), 'png');
    expect(t['scan.bmp']!.result!.files![0]!.filename).toBe('scan.webp');
    expectPicture(await sharpPixels(await h.file(t['scan.bmp']!)), 'webp');
    expectPicture(await sharpPixels(await h.file(t['favicon.ico']!)), 'png', { width: 48, height: 48 });
  }, 120_000);
});

/** A reader that is not ImageMagick for each output format. */
async function readBack(format: string, file: string): Promise<Pixels> {
  const bytes = readFileSync(file);
  if (['jpg', 'png', 'webp', 'avif', 'tiff', 'gif'].includes(format)) return sharpPixels(bytes);
  if (format === 'qoi') return qoiPixels(bytes);
  if (format === 'wbmp') return wbmpPixels(bytes);
  if (format === 'psd') return psdPixels(bytes);
  if (format === 'eps') return ghostscriptPixels(file);
  if (format === 'ps') return ghostscriptPixels(file, { width: WIDTH, height: HEIGHT });
  return ffmpegPixels(file);
}

describe('imagemagick writes', () => {
  it('every format it lists, from a BMP, each read back by another program', async () => {
    const bmp = await written(png, 'BMP');
    const outputs = MAGICK_OUTPUT_FORMATS.filter((f) => f !== 'pdf');
    const t = await convertAll(outputs.map((to) => ({ name: `to-${to}.bmp`, bytes: bmp, to })));
    for (const to of outputs) {
      const task = t[`to-${to}.bmp`];
      finished(task, to);
      expect(task!.result!.files![0]!.filename).toBe(`to-${to}.${to}`);
      expectPicture(await readBack(to, await h.saveTo(dir, task!)), to);
    }
  }, 300_000);

  it('a PDF of the picture, one page drawing it, as PDF.js reads it', async () => {
    const t = await convertAll([{ name: 'scan.bmp', bytes: await written(png, 'BMP'), to: 'pdf' }]);
    finished(t['scan.bmp'], 'pdf');
    const pages = await pdfPageImages(await h.file(t['scan.bmp']!));
    expect(pages).toEqual([[{ width: WIDTH, height: HEIGHT, transparent: false }]]);
  }, 60_000);
});

describe('imagemagick limits', () => {
  it('refuses a 100-megapixel PSD (10000 × 10000 declared in a 40-byte header) quickly, with IMAGE_TOO_LARGE', async () => {
    const strict = await startEngineHarness({ MAX_IMAGE_PIXELS: '25000000' });
    try {
      const started = performance.now();
      const t = await strict.run({
        bomb: base64(declaredHugePsd(10_000, 10_000), 'bomb.psd'),
        png: { operation: 'convert', input: 'bomb', output_format: 'png' },
      });
      const ms = performance.now() - started;
      expect(t.png, String(t.png!.message)).toMatchObject({ status: 'error', code: 'IMAGE_TOO_LARGE' });
      expect(t.png!.message).toBe('bomb.psd declares 10000 × 10000 pixels (100 megapixels); images of up to 25 megapixels and 1000 frames are processed (MAX_IMAGE_PIXELS).');
      // Decoding would take 400 MB and seconds; the refusal reads the header. A generous bound for a busy machine.
      expect(ms).toBeLessThan(20_000);
    } finally {
      await strict.close();
    }
  }, 60_000);

  it('refuses a PSD that declares 30000 × 30000 pixels (its largest) at the default limit', async () => {
    const t = await convertAll([{ name: 'huge.psd', bytes: declaredHugePsd(30_000, 30_000), to: 'png' }]);
    expect(t['huge.psd'], String(t['huge.psd']!.message)).toMatchObject({ status: 'error', code: 'IMAGE_TOO_LARGE' });
    expect(t['huge.psd']!.message).toContain('MAX_IMAGE_PIXELS');
  }, 60_000);

  it('refuses a file that is not what its name says, naming the format, without guessing another coder', async () => {
    const t = await convertAll([{ name: 'not-really.bmp', bytes: png, to: 'png' }]);
    expect(t['not-really.bmp']).toMatchObject({ status: 'error', code: 'INVALID_INPUT' });
    expect(t['not-really.bmp']!.message).toMatch(/^not-really\.bmp could not be read as bmp: /);
  }, 60_000);
});

describe('imagemagick headers', () => {
  it('reads the size each slow-to-ping format declares from its header, as ImageMagick wrote it', async () => {
    const wide = await pattern(300, 200);
    for (const format of ['bmp', 'psd', 'psb', 'pcx', 'sgi', 'ppm', 'pgm', 'pbm', 'pnm', 'pam', 'exr', 'xpm', 'xbm', 'miff', 'ico', 'cur', 'palm', 'vips']) {
      // ImageMagick writes the first picture only to a CUR file.
      const sizes = format === 'ico' ? [16, 256, 48] : [256];
      const bytes = format === 'ico' || format === 'cur' ? await icon(coderOf(format) as 'ICO' | 'CUR', sizes) : await written(wide, coderOf(format));
      const file = path.join(dir, `header.${format}`);
      writeFileSync(file, bytes);
      const size = format === 'ico' || format === 'cur' ? { width: 256, height: 256 } : { width: 300, height: 200 };
      expect(await declaredSize(file, format), format).toEqual(size);
    }
    expect(await declaredSize(path.join(dir, 'header.bmp'), 'jp2')).toBeUndefined();
  }, 60_000);

  it('knows each format with a magic number from its first bytes, and converts a file named without an extension', async () => {
    // ImageMagick's CUR files say type 1 (an icon) in their header, as ICO files do.
    const sniffed: Record<string, string> = { pnm: 'ppm', ras: 'sun', cur: 'ico' };
    const noMagic = new Set(['tga', 'pcx', 'xbm', 'wbmp', ...MAGICK_UNSNIFFED]);
    for (const format of MAGICK_ONLY_INPUTS.filter((f) => !noMagic.has(f))) {
      const bytes = format === 'ico' || format === 'cur' ? await icon(coderOf(format) as 'ICO' | 'CUR', [32]) : await written(png, coderOf(format));
      expect(sniffFormat(bytes.subarray(0, SNIFF_BYTES)), format).toBe(sniffed[format] ?? format);
    }
    const t = await convertAll([{ name: 'scan', bytes: await written(png, 'BMP'), to: 'png' }]);
    finished(t.scan, 'scan');
    expectPicture(await sharpPixels(await h.file(t.scan!)), 'png');
  }, 60_000);

  it('refuses a 2 KB PCX declaring 40000 × 40000 pixels before ImageMagick reads it', async () => {
    const pcx = Buffer.alloc(2048);
    pcx.set([0x0a, 5, 1, 8]);
    pcx.writeUInt16LE(39_999, 8);
    pcx.writeUInt16LE(39_999, 10);
    pcx[65] = 3;
    pcx.writeUInt16LE(40_000, 66);
    const started = performance.now();
    const t = await convertAll([{ name: 'bomb.pcx', bytes: pcx, to: 'png' }]);
    expect(t['bomb.pcx'], String(t['bomb.pcx']!.message)).toMatchObject({ status: 'error', code: 'IMAGE_TOO_LARGE' });
    expect(t['bomb.pcx']!.message).toContain('40000 × 40000 pixels (1,600 megapixels)');
    expect(performance.now() - started).toBeLessThan(20_000);
  }, 60_000);

  it('refuses a 2 KB Palm bitmap and a 2 KB VIPS file declaring 60000 × 60000 pixels before ImageMagick reads them', async () => {
    // ImageMagick's Palm and VIPS readers walk every row even to ping: seconds for a file that holds no pixels.
    const palm = Buffer.alloc(2048);
    palm.writeUInt16BE(60_000, 0);
    palm.writeUInt16BE(60_000, 2);
    palm.writeUInt16BE(7_500, 4);
    palm[9] = 8;
    const vips = Buffer.from(await written(png, 'VIPS').then((b) => b.subarray(0, 2048)));
    vips.writeInt32BE(60_000, 4);
    vips.writeInt32BE(60_000, 8);
    const started = performance.now();
    const t = await convertAll([
      { name: 'bomb.palm', bytes: palm, to: 'png' },
      { name: 'bomb.vips', bytes: vips, to: 'png' },
    ]);
    for (const name of ['bomb.palm', 'bomb.vips']) {
      expect(t[name], String(t[name]!.message)).toMatchObject({ status: 'error', code: 'IMAGE_TOO_LARGE' });
      expect(t[name]!.message).toContain('60000 × 60000 pixels (3,600 megapixels)');
    }
    expect(performance.now() - started).toBeLessThan(20_000);
  }, 60_000);
});

describe('imagemagick options', () => {
  it('selects frames with pages (one file per frame for a one-picture format), the largest icon by default', async () => {
    const gif = await frames('GIF', [40, 50, 64]);
    const ico = await icon('ICO', [16, 32]);
    const t = await convertAll([
      { name: 'anim.gif', bytes: gif, to: 'bmp', options: { pages: '2-3' } },
      { name: 'small.ico', bytes: ico, to: 'png', options: { pages: '1' } },
      { name: 'all.gif', bytes: gif, to: 'tga' },
      { name: 'none.gif', bytes: gif, to: 'tga', options: { pages: '7-9' } },
    ]);
    finished(t['anim.gif'], 'anim.gif');
    expect(t['anim.gif']!.result!.files!.map((f) => f.filename)).toEqual(['anim-1.bmp', 'anim-2.bmp']);
    expectPicture(await ffmpegPixels(await h.saveTo(dir, t['anim.gif']!, 0)), 'bmp', { width: 50, height: HEIGHT });
    expectPicture(await ffmpegPixels(await h.saveTo(dir, t['anim.gif']!, 1)), 'bmp', { width: 64, height: HEIGHT });
    expectPicture(await sharpPixels(await h.file(t['small.ico']!)), 'png', { width: 16, height: 16 });
    // A one-picture output without pages: the first frame.
    expectPicture(await ffmpegPixels(await h.saveTo(dir, t['all.gif']!)), 'tga', { width: 40, height: HEIGHT });
    expect(t['none.gif']).toMatchObject({ status: 'error', code: 'INVALID_INPUT' });
    expect(t['none.gif']!.message).toContain('selects none of the 3 frames');
  }, 120_000);

  it('resizes (max, crop, scale), turns grey, sets the quality and keeps sharp first where it makes the pair', async () => {
    const tga = await written(await pattern(640, 480), 'TGA');
    const t = await convertAll([
      { name: 'max.tga', bytes: tga, to: 'png', options: { width: 320, height: 320 } },
      { name: 'crop.tga', bytes: tga, to: 'png', options: { width: 100, height: 100, fit: 'crop' } },
      { name: 'scale.tga', bytes: tga, to: 'png', options: { width: 100, height: 30, fit: 'scale' } },
      { name: 'grey.tga', bytes: tga, to: 'jpg', options: { colorspace: 'gray' } },
      { name: 'low.tga', bytes: tga, to: 'jpg', options: { quality: 10 } },
      { name: 'high.tga', bytes: tga, to: 'jpg', options: { quality: 95 } },
      { name: 'photo.png', bytes: png, to: 'webp' },
      { name: 'icon.tga', bytes: tga, to: 'ico' },
    ]);
    for (const name of ['max.tga', 'crop.tga', 'scale.tga', 'grey.tga', 'low.tga', 'high.tga']) finished(t[name], name);
    expectPicture(await sharpPixels(await h.file(t['max.tga']!)), 'png', { width: 320, height: 240 });
    const crop = await sharpPixels(await h.file(t['crop.tga']!));
    expect([crop.width, crop.height]).toEqual([100, 100]);
    const scale = await sharpPixels(await h.file(t['scale.tga']!));
    expect([scale.width, scale.height]).toEqual([100, 30]);
    const grey = await sharp(await h.file(t['grey.tga']!)).metadata();
    expect({ channels: grey.channels, space: grey.space }).toEqual({ channels: 1, space: 'b-w' });
    expect((await h.file(t['low.tga']!)).length).toBeLessThan((await h.file(t['high.tga']!)).length);
    expect(t['photo.png']).toMatchObject({ status: 'finished', engine: 'sharp' });
    // An icon holds at most 256 × 256 pixels: a larger picture is made to fit.
    expectPicture(await ffmpegPixels(await h.saveTo(dir, t['icon.tga']!)), 'ico', { width: 256, height: 192 });
  }, 120_000);

  it('reads what sharp reads too when only ImageMagick writes the output (jpg, png, webp, avif, tiff, gif → tga)', async () => {
    const sources: Record<string, Buffer> = {
      jpg: await sharp(png).jpeg({ quality: 95 }).toBuffer(),
      png,
      webp: await sharp(png).webp({ lossless: true }).toBuffer(),
      avif: await sharp(png).avif({ lossless: true }).toBuffer(),
      tiff: await sharp(png).tiff().toBuffer(),
      gif: await sharp(png).gif().toBuffer(),
    };
    const t = await convertAll(Object.entries(sources).map(([format, bytes]) => ({ name: `picture.${format}`, bytes, to: 'tga' })));
    for (const format of Object.keys(sources)) {
      finished(t[`picture.${format}`], format);
      expectPicture(await ffmpegPixels(await h.saveTo(dir, t[`picture.${format}`]!)), format);
    }
  }, 120_000);
});
