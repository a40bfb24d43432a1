/**
 * Documents and media on their native engines (LibreOffice, Ghostscript, FFmpeg), in-process against
 * dynalite and s3rver. An engine this machine lacks skips its tests with the reason; CI installs the
 * Debian packages and sets REQUIRE_ALL_TOOLS=1 (.ci/run), so there none of this is skipped.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { colourVideo, docx, runningCommands, textPdf } from '../fixtures/engine-fixtures.js';
import { pdfPageText } from '../support/pdf-text.js';
import { engine, requires } from '../support/requires.js';
import { base64, startEngineHarness, type Harness } from './engines-harness.js';

let h: Harness;
let dir: string;
let video: Buffer;
const office = requires(engine('libreoffice'));
const ghostscript = requires(engine('ghostscript'));
const ffmpeg = requires(engine('ffmpeg'));

beforeAll(async () => {
  h = await startEngineHarness();
  dir = mkdtempSync(path.join(tmpdir(), 'engines-media-'));
  if (ffmpeg.met) video = colourVideo();
});
afterAll(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The mean colour of an image, as [r, g, b]. */
async function meanColour(bytes: Buffer): Promise<number[]> {
  const { channels } = await sharp(bytes).stats();
  return channels.slice(0, 3).map((c) => Math.round(c.mean));
}

office.describe('office documents with LibreOffice', () => {
  it('turns a docx into a PDF', async () => {
    const t = await h.run({
      doc: base64(await docx(['Quarterly report', 'Engines at work']), 'report.docx'),
      pdf: { operation: 'convert', input: 'doc', output_format: 'pdf' },
    });
    expect(t.pdf).toMatchObject({ status: 'finished', engine: 'libreoffice' });
    expect(t.pdf!.engineVersion).toMatch(/^\d+\.\d+/);
    expect(t.pdf!.result!.files![0]!.filename).toBe('report.pdf');
    const file = await h.saveTo(dir, t.pdf!);
    expect(await pdfPageText(file, 1)).toContain('Quarterly report Engines at work');
  });
});

ghostscript.describe('PDF pages with Ghostscript', () => {
  it('renders the selected pages to images, one file each', async () => {
    const t = await h.run({
      doc: base64(await textPdf(3), 'doc.pdf'),
      png: { operation: 'convert', input: 'doc', output_format: 'png', pages: '1,3', width: 300 },
    });
    expect(t.png).toMatchObject({ status: 'finished', engine: 'ghostscript' });
    expect(t.png!.result!.files!.map((f) => f.filename)).toEqual(['doc-1.png', 'doc-2.png']);
    const first = await sharp(await h.file(t.png!, 0)).metadata();
    expect(first).toMatchObject({ format: 'png', width: 300, height: 424 });
  });

  it('makes a thumbnail of the first page', async () => {
    const t = await h.run({
      doc: base64(await textPdf(2), 'doc.pdf'),
      thumb: { operation: 'thumbnail', input: 'doc', output_format: 'jpg', width: 120 },
    });
    expect(t.thumb).toMatchObject({ status: 'finished', engine: 'ghostscript' });
    expect(await sharp(await h.file(t.thumb!)).metadata()).toMatchObject({ format: 'jpeg', width: 120, height: 170 });
  });
});

ffmpeg.describe('video and audio with FFmpeg', () => {
  it('takes a thumbnail of a 10-second video at timestamp 5 s, and several spread from there', async () => {
    const t = await h.run({
      clip: base64(video, 'clip.mp4'),
      at5: { operation: 'thumbnail', input: 'clip', output_format: 'png', timestamp: 5 },
      early: { operation: 'thumbnail', input: 'clip', output_format: 'jpg', timestamp: '00:00:01', width: 160 },
      spread: { operation: 'thumbnail', input: 'clip', output_format: 'webp', timestamp: '10%', count: 3 },
    });
    expect(t.at5).toMatchObject({ status: 'finished', engine: 'ffmpeg' });
    // Seconds 4 to 6 are green, before red, after blue.
    const [r, g, b] = await meanColour(await h.file(t.at5!));
    expect(g).toBeGreaterThan(200);
    expect(r! + b!).toBeLessThan(60);
    expect(await sharp(await h.file(t.at5!)).metadata()).toMatchObject({ width: 320, height: 240 });
    const early = await meanColour(await h.file(t.early!));
    expect(early[0]).toBeGreaterThan(200);
    expect(await sharp(await h.file(t.early!)).metadata()).toMatchObject({ format: 'jpeg', width: 160, height: 120 });
    // 1 s, then evenly to the end: red, red, green-or-blue.
    expect(t.spread!.result!.files!.map((f) => f.filename)).toEqual(['clip-1.webp', 'clip-2.webp', 'clip-3.webp']);
    expect((await meanColour(await h.file(t.spread!, 0)))[0]).toBeGreaterThan(200);
    expect((await meanColour(await h.file(t.spread!, 2)))[2]).toBeGreaterThan(200);
  });

  it('refuses a timestamp past the end of the video', async () => {
    const t = await h.run({
      clip: base64(video, 'clip.mp4'),
      late: { operation: 'thumbnail', input: 'clip', output_format: 'png', timestamp: 30 },
    });
    expect(t.late).toMatchObject({ status: 'error', code: 'INVALID_INPUT' });
    expect(t.late!.message).toMatch(/^The timestamp 30 is past the end of the video \(10\.\d+ s\)\.$/);
  });

  it('converts video to a smaller video and to audio', async () => {
    const t = await h.run({
      clip: base64(video, 'clip.mp4'),
      small: { operation: 'convert', input: 'clip', output_format: 'mp4', width: 160, preset: 'ultrafast' },
      sound: { operation: 'convert', input: 'clip', output_format: 'mp3', audio_bitrate: 64 },
    });
    expect(t.small).toMatchObject({ status: 'finished', engine: 'ffmpeg' });
    expect(t.sound).toMatchObject({ status: 'finished', engine: 'ffmpeg' });
    const thumb = await h.run({
      small: base64(await h.file(t.small!), 'small.mp4'),
      frame: { operation: 'thumbnail', input: 'small', output_format: 'png', timestamp: 1 },
    });
    expect(await sharp(await h.file(thumb.frame!)).metadata()).toMatchObject({ width: 160, height: 120 });
    const mp3 = await h.file(t.sound!);
    expect(mp3.subarray(0, 3).toString('latin1') === 'ID3' || (mp3[0] === 0xff && (mp3[1]! & 0xe0) === 0xe0)).toBe(true);
    // 10 s at 64 kbit/s is about 80 KB.
    expect(mp3.length).toBeGreaterThan(60_000);
    expect(mp3.length).toBeLessThan(110_000);
  });

  it('watermarks a video: the mark is on the frames, the length stays', async () => {
    const t = await h.run({
      clip: base64(video, 'clip.mp4'),
      mark: { operation: 'watermark', input: 'clip', text: 'LIVE', font_color: '#ffffff', font_size: 48, position_vertical: 'top', position_horizontal: 'left', margin_vertical: 0, margin_horizontal: 0 },
      frame: { operation: 'thumbnail', input: 'mark', output_format: 'png', timestamp: 2 },
      meta: { operation: 'metadata', input: 'mark' },
    });
    expect(t.mark).toMatchObject({ status: 'finished', engine: 'ffmpeg' });
    expect(t.mark!.result!.files![0]!.filename).toBe('clip.mp4');
    const frame = sharp(await h.file(t.frame!));
    const { data, info } = await frame.raw().toBuffer({ resolveWithObject: true });
    // White text in the top left corner of a red frame, the rest red.
    let white = 0;
    for (let y = 0; y < 48; y++) for (let x = 0; x < 140; x++) if (data[(y * info.width + x) * info.channels + 1]! > 200) white++;
    expect(white).toBeGreaterThan(100);
    expect(data[(200 * info.width + 300) * info.channels + 1]!).toBeLessThan(40);
    expect(Number.parseFloat(String(t.meta!.result!.metadata!.Duration))).toBeCloseTo(10, 0);
  });
});

ffmpeg.describe('timeouts', () => {
  it('kills FFmpeg when the task times out, and leaves nothing behind', async () => {
    const tmp = mkdtempSync(path.join(tmpdir(), 'engine-tmp-'));
    const own = await startEngineHarness({ ENGINE_TMP_DIR: tmp });
    try {
      const started = performance.now();
      const t = await own.run({
        clip: base64(video, 'clip.mp4'),
        slow: { operation: 'convert', input: 'clip', output_format: 'mkv', video_codec: 'h265', preset: 'veryslow', timeout: 1 },
      });
      expect(t.slow).toMatchObject({ status: 'error', code: 'TIMEOUT' });
      expect(performance.now() - started).toBeLessThan(5000);
      // The encoder was killed with its process group, and the call's folder removed.
      await vi.waitFor(() => {
        const running = runningCommands().filter((l) => l.includes(tmp));
        expect(running).toEqual([]);
        expect(readdirSync(tmp)).toEqual([]);
      });
    } finally {
      await own.close();
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

office.describe('a PDF made by one engine, read by another', () => {
  it('merges a converted docx with a PDF', async () => {
    const t = await h.run({
      doc: base64(await docx(['From Word']), 'a.docx'),
      pdf: { operation: 'convert', input: 'doc', output_format: 'pdf' },
      other: base64(await textPdf(1), 'b.pdf'),
      both: { operation: 'merge', input: ['pdf', 'other'], output_format: 'pdf', filename: 'both.pdf' },
    });
    expect(t.both).toMatchObject({ status: 'finished' });
    expect(t.both!.result!.files![0]!.filename).toBe('both.pdf');
    expect((await PDFDocument.load(await h.file(t.both!))).getPageCount()).toBe(2);
  });
});
