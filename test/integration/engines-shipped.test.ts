/**
 * The engines shipped in npm packages, as a fresh machine after `npm ci` has them: every system tool
 * path points nowhere (no ffmpeg, ffprobe, gs, qpdf or perl), so FFmpeg and ffprobe are the static
 * builds of @ffmpeg-installer and @ffprobe-installer, Ghostscript, qpdf and ExifTool run as
 * WebAssembly, and the `native` metadata engine is there to be pinned. Confined as usual (bubblewrap
 * where the machine has it).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { BUNDLED_VERSIONS } from '#lib/engines/core/catalog.js';
import { setEngineRegistry, newEngineRegistry } from '#lib/file-api/operations/engines.js';
import { shippedFfmpeg, shippedFfprobe } from '#lib/engines/core/shipped.js';
import { imageHeavyPdf, jpeg, textPdf } from '../fixtures/engine-fixtures.js';
import { base64, startEngineHarness, type Harness } from './engines-harness.js';
import { NO_SYSTEM_TOOLS } from '../support/fresh-machine.js';

let h: Harness;
let dir: string;
let video: Buffer;

/** A 10-second 320×240 H.264 video with sound, red 4 s, green 2 s, blue 4 s, made by the shipped FFmpeg. */
function colourVideo(): Buffer {
  const out = path.join(dir, 'video.mp4');
  execFileSync(shippedFfmpeg()!.file, [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', 'color=c=red:s=320x240:r=25:d=4'],
    ...['-f', 'lavfi', '-i', 'color=c=lime:s=320x240:r=25:d=2'],
    ...['-f', 'lavfi', '-i', 'color=c=blue:s=320x240:r=25:d=4'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=10'],
    ...['-filter_complex', '[0:v][1:v][2:v]concat=n=3:v=1:a=0[v]', '-map', '[v]', '-map', '3:a'],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', '25', '-c:a', 'aac', '-shortest', out],
  ]);
  return readFileSync(out);
}

/** Duration and frame size of a video, by the shipped ffprobe. */
function probe(bytes: Buffer): { duration: number; width?: number; height?: number } {
  const file = path.join(dir, `probe-${Math.random().toString(36).slice(2)}.mp4`);
  writeFileSync(file, bytes);
  const info = JSON.parse(execFileSync(shippedFfprobe()!.file, ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], { encoding: 'utf8' })) as {
    format: { duration: string };
    streams: Array<{ codec_type: string; width?: number; height?: number }>;
  };
  const v = info.streams.find((s) => s.codec_type === 'video');
  return { duration: Number(info.format.duration), width: v?.width, height: v?.height };
}

async function meanColour(bytes: Buffer): Promise<number[]> {
  const { channels } = await sharp(bytes).stats();
  return channels.slice(0, 3).map((c) => Math.round(c.mean));
}

beforeAll(async () => {
  setEngineRegistry(newEngineRegistry(parseEngineConfig(NO_SYSTEM_TOOLS)));
  h = await startEngineHarness(NO_SYSTEM_TOOLS);
  dir = mkdtempSync(path.join(tmpdir(), 'engines-shipped-'));
  video = colourVideo();
});
afterAll(async () => {
  setEngineRegistry(undefined);
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('video with the static FFmpeg and ffprobe of @ffmpeg-installer and @ffprobe-installer', () => {
  it('takes a thumbnail at a timestamp', async () => {
    const t = await h.run({
      clip: base64(video, 'clip.mp4'),
      at5: { operation: 'thumbnail', input: 'clip', output_format: 'png', timestamp: 5 },
    });
    expect(t.at5).toMatchObject({ status: 'finished', engine: 'ffmpeg', engineVersion: '4.1.0' });
    const [r, g, b] = await meanColour(await h.file(t.at5!));
    expect(g).toBeGreaterThan(200);
    expect(r! + b!).toBeLessThan(60);
    expect(await sharp(await h.file(t.at5!)).metadata()).toMatchObject({ format: 'png', width: 320, height: 240 });
  });

  it('converts a video to a smaller H.264 video and to WebM, keeping its length', async () => {
    const t = await h.run({
      clip: base64(video, 'clip.mp4'),
      small: { operation: 'convert', input: 'clip', output_format: 'mp4', width: 160, preset: 'ultrafast' },
      web: { operation: 'convert', input: 'clip', output_format: 'webm', width: 160 },
    });
    expect(t.small).toMatchObject({ status: 'finished', engine: 'ffmpeg', engineVersion: '4.1.0' });
    expect(t.web).toMatchObject({ status: 'finished', engine: 'ffmpeg' });
    const small = probe(await h.file(t.small!));
    expect(small).toMatchObject({ width: 160, height: 120 });
    expect(small.duration).toBeCloseTo(10, 0);
    expect((await h.file(t.web!)).subarray(0, 4)).toEqual(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]));
  });

  it('reads the duration and frame size of a video without exiftool', async () => {
    const t = await h.run({ clip: base64(video, 'clip.mp4'), meta: { operation: 'metadata', engine: 'native', input: 'clip' } });
    expect(t.meta).toMatchObject({ status: 'finished', engine: 'native' });
    expect(t.meta!.result!.metadata).toMatchObject({ ImageWidth: 320, ImageHeight: 240, FileName: 'clip.mp4', MIMEType: 'video/mp4' });
    expect(Number(t.meta!.result!.metadata!.Duration)).toBeCloseTo(10, 0);
  });
});

describe('PDFs with Ghostscript and qpdf compiled to WebAssembly', () => {
  it('optimizes an image-heavy PDF with Ghostscript: much smaller, the same pages', async () => {
    const input = await imageHeavyPdf(2, 1600);
    const t = await h.run({
      doc: base64(input, 'photos.pdf'),
      small: { operation: 'optimize', input: 'doc', profile: 'web' },
    });
    expect(t.small).toMatchObject({ status: 'finished', engine: 'ghostscript', engineVersion: BUNDLED_VERSIONS.ghostscriptWasm });
    const out = await h.file(t.small!);
    expect(out.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(out.length).toBeLessThan(input.length / 5);
    expect((await PDFDocument.load(out)).getPageCount()).toBe(2);
  });

  it('optimizes a PDF losslessly with qpdf', async () => {
    const input = await textPdf(3);
    const t = await h.run({
      doc: base64(input, 'text.pdf'),
      lossless: { operation: 'optimize', input: 'doc', engine: 'qpdf' },
    });
    expect(t.lossless).toMatchObject({ status: 'finished', engine: 'qpdf', engineVersion: BUNDLED_VERSIONS.qpdfWasm });
    const out = await h.file(t.lossless!);
    expect(out.length).toBeLessThanOrEqual(input.length);
    expect((await PDFDocument.load(out)).getPageCount()).toBe(3);
  });

  it('renders a PDF page to a PNG of the page size', async () => {
    const t = await h.run({
      doc: base64(await textPdf(3), 'doc.pdf'),
      png: { operation: 'convert', input: 'doc', output_format: 'png', pages: '2', width: 300 },
    });
    expect(t.png).toMatchObject({ status: 'finished', engine: 'ghostscript', engineVersion: BUNDLED_VERSIONS.ghostscriptWasm });
    expect(t.png!.result!.files!.map((f) => f.filename)).toEqual(['doc.png']);
    const png = await h.file(t.png!);
    expect(await sharp(png).metadata()).toMatchObject({ format: 'png', width: 300, height: 424 });
    // A rendered page: mostly white, with dark text on it.
    const { channels } = await sharp(png).stats();
    expect(channels[0]!.max).toBe(255);
    expect(channels[0]!.min).toBeLessThan(100);
  });
});

// Without perl, ExifTool in WebAssembly is the default (engines-exiftool-wasm.test.ts); the native engine
// stays for where that is off, and is pinned here.
describe('metadata without perl (the native engine)', () => {
  it('writes EXIF into a JPEG and reads it back', async () => {
    const t = await h.run({
      photo: base64(await jpeg(640, 480), 'photo.jpg'),
      tagged: {
        operation: 'metadata/write',
        engine: 'native',
        input: 'photo',
        metadata: { Artist: 'Ann Example', Copyright: '(c) 2026 Ann', Description: 'A test card', DateTimeOriginal: '2025:12:31 23:59:58' },
      },
      meta: { operation: 'metadata', engine: 'native', input: 'tagged' },
    });
    expect(t.tagged).toMatchObject({ status: 'finished', engine: 'native', engineVersion: BUNDLED_VERSIONS.exifr });
    expect(t.tagged!.result!.files![0]!.filename).toBe('photo.jpg');
    expect(await sharp(await h.file(t.tagged!)).metadata()).toMatchObject({ format: 'jpeg', width: 640, height: 480 });
    expect(t.meta).toMatchObject({ status: 'finished', engine: 'native' });
    expect(t.meta!.result!.metadata).toMatchObject({
      Artist: 'Ann Example',
      Creator: 'Ann Example',
      Copyright: '(c) 2026 Ann',
      ImageDescription: 'A test card',
      Description: 'A test card',
      DateTimeOriginal: '2025:12:31 23:59:58',
      ImageWidth: 640,
      ImageHeight: 480,
      FileType: 'JPEG',
      FileName: 'photo.jpg',
    });
  });

  it('writes the Info of a PDF, read back by pdf-lib and by the metadata task', async () => {
    const t = await h.run({
      doc: base64(await textPdf(2), 'doc.pdf'),
      tagged: { operation: 'metadata/write', engine: 'native', input: 'doc', metadata: { Title: 'Quarterly report', 'PDF:Author': 'Ann Example', Keywords: 'engines, npm' } },
      meta: { operation: 'metadata', engine: 'native', input: 'tagged' },
    });
    expect(t.tagged).toMatchObject({ status: 'finished', engine: 'native' });
    const doc = await PDFDocument.load(await h.file(t.tagged!), { updateMetadata: false });
    expect(doc.getTitle()).toBe('Quarterly report');
    expect(doc.getAuthor()).toBe('Ann Example');
    expect(doc.getKeywords()).toBe('engines, npm');
    expect(doc.getPageCount()).toBe(2);
    expect(t.meta!.result!.metadata).toMatchObject({ Title: 'Quarterly report', Author: 'Ann Example', PageCount: 2, FileType: 'PDF' });
  });

  it('refuses, by name, a tag it cannot write into an image', async () => {
    const t = await h.run({
      photo: base64(await jpeg(64, 48), 'photo.jpg'),
      tagged: { operation: 'metadata/write', engine: 'native', input: 'photo', metadata: { Artist: 'Ann', 'XMP-dc:Title': 'Card' } },
    });
    expect(t.tagged).toMatchObject({ status: 'error', code: 'INVALID_INPUT' });
    expect(t.tagged!.message).toMatch(/^The native metadata engine cannot write XMP-dc:Title into jpg files; it writes ImageDescription, /);
  });
});
