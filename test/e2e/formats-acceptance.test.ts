/**
 * Issue 29's acceptance, through the official `cloudconvert` SDK against the whole platform with a
 * fresh machine's tools (every system tool path points nowhere): the conversions people send —
 * HEIC, camera RAW, PSD, BMP, ICO, FLV, WMV, WMA, AAC, MP4, 7z, RAR, tar.gz, TTF, WOFF2 — each one
 * job (import/base64 → convert or archive/extract → export/url), all run at once, each output read by
 * a reader that is not the engine that wrote it (sharp, MediaInfo, music-metadata, fflate, fontkit);
 * and the bombs refused with their codes: a zip bomb, a zip-slip zip, a RAR linking out, a PSD
 * declaring over 100 megapixels.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createFont } from 'fonteditor-core';
import * as fontkit from 'fontkit';
import mediaInfoFactory from 'mediainfo.js';
import { parseBuffer } from 'music-metadata';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shippedFfmpeg } from '#lib/engines/core/shipped.js';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { FIXTURE_DIR, HEIGHT as BARS_HEIGHT, WIDTH as BARS_WIDTH } from '../../scripts/fixtures/make-camera-fixtures.js';
import { ADVANCE_A, drawnOtf, FAMILY } from '../fixtures/font-fixtures.js';
import { gzip, readZip, sevenZipWrite, tarOf, TREE, zipOf } from '../support/archive-fixtures.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { NO_SYSTEM_TOOLS } from '../support/fresh-machine.js';
import { declaredHugePsd, HEIGHT, icon, pattern, WIDTH, written } from '../support/magick-images.js';
import { e2eOutput } from '../support/platform-output.js';
import { rar5 } from '../support/rar5.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'formats-e2e-'));
let platform: Emulator;
let cc: ReturnType<typeof cloudConvertClient>;

interface Ran {
  status: string;
  task: Record<string, unknown> & { result?: { files?: Array<{ filename: string; dir?: string }> } };
  /** The exported files by name (`dir/filename` where a folder was kept). */
  files: Record<string, Buffer>;
}

/** One job: `bytes` imported as `filename`, the task `op` on it, its outputs exported and downloaded. */
async function run(bytes: Buffer, filename: string, op: Record<string, unknown>): Promise<Ran> {
  const created = await cc.jobs.create({
    tasks: {
      in: { operation: 'import/base64', file: bytes.toString('base64'), filename },
      op: { input: 'in', ...op },
      out: { operation: 'export/url', input: 'op' },
    },
  } as never);
  const job = await cc.jobs.wait(created.id);
  const task = job.tasks.find((t) => t.name === 'op') as unknown as Ran['task'];
  const files: Record<string, Buffer> = {};
  if (task.status === 'finished') {
    for (const f of cc.jobs.getExportUrls(job) as Array<{ filename: string; url: string; dir?: string }>) {
      files[f.dir ? `${f.dir}/${f.filename}` : f.filename] = Buffer.from(await (await fetch(f.url)).arrayBuffer());
    }
  }
  return { status: String(task.status), task, files };
}

/** A short clip written by the shipped FFmpeg with `args` (a 64 × 48 test picture and a tone, or the tone alone). */
function clip(name: string, args: string[], video = true): Buffer {
  const file = path.join(dataDir, name);
  const picture = video ? ['-f', 'lavfi', '-i', 'testsrc=s=64x48:r=10:d=1'] : [];
  execFileSync(shippedFfmpeg()!.file, ['-hide_banner', '-loglevel', 'error', '-y', ...picture, '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-shortest', ...args, file]);
  return readFileSync(file);
}

const convert = (output_format: string) => ({ operation: 'convert', output_format });
const extract = { operation: 'archive/extract' };
const camera = (name: string) => readFileSync(path.join(FIXTURE_DIR, name));

/** Every job of this file, started together once the platform is up; each test awaits its own. */
const jobs = new Map<string, Promise<Ran>>();

beforeAll(async () => {
  platform = await startEmulator({ dataDir, output: e2eOutput, env: { LOG_LEVEL: 'warn', ...NO_SYSTEM_TOOLS } });
  cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
  const png = await pattern();
  const ttf = createFont(drawnOtf(), { type: 'otf' }).write({ type: 'ttf', toBuffer: true }) as Buffer;
  const tree = await tarOf([
    { name: 'docs/', type: 'directory' },
    { name: 'docs/deep/', type: 'directory' },
    ...Object.entries(TREE).map(([name, data]) => ({ name, data })),
  ]);
  const inputs: Record<string, [Buffer, string, Record<string, unknown>]> = {
    heic: [camera('bars.heic'), 'phone.heic', convert('jpg')],
    cr2: [camera('bars.cr2'), 'camera.cr2', convert('png')],
    psd: [await written(png, 'PSD'), 'layers.psd', convert('png')],
    bmp: [await written(png, 'BMP'), 'picture.bmp', convert('webp')],
    ico: [await icon('ICO', [16, 32]), 'favicon.ico', convert('png')],
    flv: [clip('in.flv', ['-c:v', 'flv', '-c:a', 'libmp3lame', '-ar', '44100', '-f', 'flv']), 'clip.flv', convert('mp4')],
    wmv: [clip('in.wmv', ['-c:v', 'wmv2', '-c:a', 'wmav2', '-f', 'asf']), 'clip.wmv', convert('webm')],
    wma: [clip('in.wma', ['-c:a', 'wmav2', '-f', 'asf'], false), 'track.wma', convert('mp3')],
    aac: [clip('in.aac', ['-c:a', 'aac', '-f', 'adts'], false), 'track.aac', convert('ogg')],
    mp4: [clip('in.mp4', ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-f', 'mp4']), 'clip.mp4', convert('mp3')],
    '7z': [await sevenZipWrite('7z', TREE), 'tree.7z', convert('zip')],
    rar: [rar5([{ name: 'docs', folder: true }, ...Object.entries(TREE).map(([name, data]) => ({ name, data: Buffer.from(data) }))]), 'tree.rar', extract],
    'tar.gz': [gzip(tree), 'tree.tar.gz', extract],
    ttf: [ttf, 'probe.ttf', convert('woff2')],
    'zip bomb': [zipOf({ 'zeros.bin': Buffer.alloc(64 * 2 ** 20) }, 9), 'bomb.zip', extract],
    'zip slip': [zipOf({ '../../evil.txt': 'gotcha', 'fine.txt': 'ok' }), 'slip.zip', extract],
    'rar link': [rar5([{ name: 'a.txt', data: Buffer.from('a') }, { name: 'passwd', symlink: '../../etc/passwd' }]), 'link.rar', extract],
    'psd bomb': [declaredHugePsd(10_240, 10_240), 'bomb.psd', convert('png')],
  };
  for (const [name, [bytes, filename, op]] of Object.entries(inputs)) jobs.set(name, run(bytes, filename, op));
  // WOFF2 → OTF starts from the platform's own WOFF2, as a user's second job would.
  jobs.set('woff2', jobs.get('ttf')!.then((woff2) => run(Object.values(woff2.files)[0] ?? Buffer.alloc(0), 'probe.woff2', convert('otf'))));
  // A failed job must not be an unhandled rejection before its test looks at it.
  for (const job of jobs.values()) job.catch(() => undefined);
}, 420_000);

afterAll(async () => {
  await platform?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The finished job `name` and its one output. */
async function finished(name: string): Promise<{ ran: Ran; bytes: Buffer; filename: string }> {
  const ran = await jobs.get(name)!;
  expect(ran.status, String(ran.task.message)).toBe('finished');
  const [filename, bytes] = Object.entries(ran.files)[0]!;
  return { ran, bytes, filename };
}

/** Mean of R, G and B in a `width`-wide band at either side of the picture: tells a picture from a blank. */
async function sides(bytes: Buffer): Promise<{ format?: string; width: number; height: number; left: number[]; right: number[] }> {
  const meta = await sharp(bytes).metadata();
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (x: number) => Array.from(data.subarray((Math.floor(info.height / 2) * info.width + x) * 3, (Math.floor(info.height / 2) * info.width + x) * 3 + 3));
  return { format: meta.format, width: info.width, height: info.height, left: at(Math.floor(info.width / 8)), right: at(Math.floor((info.width * 7) / 8)) };
}

/** The test picture of test/support/magick-images.ts: its size, its left half red and its right half white. */
async function expectPattern(bytes: Buffer, format: string, size = { width: WIDTH, height: HEIGHT }) {
  const s = await sides(bytes);
  expect({ format: s.format, width: s.width, height: s.height }).toEqual({ format, ...size });
  expect([s.left[0]! > 180, s.left[1]! < 80, s.left[2]! < 80], `left ${s.left}`).toEqual([true, true, true]);
  expect(Math.min(...s.right), `right ${s.right}`).toBeGreaterThan(180);
}

/** The colour bars of the camera fixtures (white at the left, blue at the right), near their size. */
async function expectBars(bytes: Buffer, format: string) {
  const s = await sides(bytes);
  expect(s.format).toBe(format);
  expect(Math.abs(s.width - BARS_WIDTH), `width ${s.width}`).toBeLessThanOrEqual(12);
  expect(Math.abs(s.height - BARS_HEIGHT), `height ${s.height}`).toBeLessThanOrEqual(12);
  expect(Math.min(...s.left), `left ${s.left}`).toBeGreaterThan(150);
  expect([s.right[2]! > s.right[0]! + 60, s.right[2]! > s.right[1]! + 60], `right ${s.right}`).toEqual([true, true]);
}

type Track = { '@type': string; Format?: string };
async function mediaTracks(bytes: Buffer): Promise<Track[]> {
  const info = await mediaInfoFactory({ format: 'object' });
  try {
    const result = await info.analyzeData(bytes.length, (size, offset) => bytes.subarray(offset, offset + size));
    return (result.media?.track ?? []) as unknown as Track[];
  } finally {
    info.close();
  }
}
const formatOf = (tracks: Track[], type: string) => tracks.find((t) => t['@type'] === type)?.Format;

async function expectAudio(bytes: Buffer, mimeType: string, container: RegExp) {
  const { format } = await parseBuffer(bytes, { mimeType }, { duration: true });
  expect(format.container).toMatch(container);
  expect(format.duration, 'about the second it was given').toBeGreaterThan(0.8);
  expect(format.duration).toBeLessThan(1.5);
}

/** An archive/extract task's files: each one exported, as `dir/filename`, with its content. */
async function expectTree(name: string) {
  const ran = await jobs.get(name)!;
  expect(ran.status, String(ran.task.message)).toBe('finished');
  expect(ran.task.result!.files!.find((f) => f.filename === 'data.csv')).toMatchObject({ dir: 'docs/deep' });
  expect(Object.fromEntries(Object.entries(ran.files).map(([k, v]) => [k, v.toString()]))).toEqual(TREE);
}

const readFont = (bytes: Buffer) => {
  const font = fontkit.create(bytes);
  return { type: font.type, glyphs: font.numGlyphs, family: font.familyName, advanceA: font.glyphForCodePoint(65).advanceWidth };
};

describe('what people send, through the cloudconvert SDK on a fresh machine', () => {
  it('HEIC → JPG', async () => expectBars((await finished('heic')).bytes, 'jpeg'), 300_000);
  it('CR2 → PNG', async () => expectBars((await finished('cr2')).bytes, 'png'), 300_000);
  it('PSD → PNG', async () => expectPattern((await finished('psd')).bytes, 'png'), 300_000);
  it('BMP → WEBP', async () => expectPattern((await finished('bmp')).bytes, 'webp'), 300_000);
  it('ICO → PNG (its largest icon)', async () => expectPattern((await finished('ico')).bytes, 'png', { width: 32, height: 32 }), 300_000);

  it('FLV → MP4', async () => {
    const tracks = await mediaTracks((await finished('flv')).bytes);
    expect([formatOf(tracks, 'General'), formatOf(tracks, 'Video'), formatOf(tracks, 'Audio')]).toEqual(['MPEG-4', 'AVC', 'AAC']);
  }, 300_000);

  it('WMV → WEBM', async () => {
    const tracks = await mediaTracks((await finished('wmv')).bytes);
    expect(formatOf(tracks, 'General')).toBe('WebM');
    expect(formatOf(tracks, 'Video')).toMatch(/^VP[89]$/);
    expect(formatOf(tracks, 'Audio')).toMatch(/^(Opus|Vorbis)$/);
  }, 300_000);

  it('WMA → MP3', async () => expectAudio((await finished('wma')).bytes, 'audio/mpeg', /^MPEG$/), 300_000);
  it('AAC → OGG', async () => expectAudio((await finished('aac')).bytes, 'audio/ogg', /^Ogg$/), 300_000);
  it('MP4 → MP3 (the sound of a video)', async () => expectAudio((await finished('mp4')).bytes, 'audio/mpeg', /^MPEG$/), 300_000);

  it('7z → zip', async () => {
    const { bytes, filename } = await finished('7z');
    expect(filename).toBe('tree.zip');
    expect(readZip(bytes)).toEqual(TREE);
  }, 300_000);

  it('RAR archive/extract: one file per entry, its folders as dir', async () => expectTree('rar'), 300_000);
  it('tar.gz archive/extract of a directory tree: one file per entry, its folders as dir', async () => expectTree('tar.gz'), 300_000);

  it('TTF → WOFF2 → OTF', async () => {
    expect(readFont((await finished('ttf')).bytes)).toEqual({ type: 'WOFF2', glyphs: 4, family: FAMILY, advanceA: ADVANCE_A });
    expect(readFont((await finished('woff2')).bytes)).toEqual({ type: 'TTF', glyphs: 4, family: FAMILY, advanceA: ADVANCE_A });
  }, 300_000);
});

describe('bombs and escapes refused with their codes', () => {
  const refused = async (name: string, code: string) => {
    const ran = await jobs.get(name)!;
    expect({ status: ran.status, code: ran.task.code }, String(ran.task.message)).toEqual({ status: 'error', code });
  };
  it('a zip bomb', () => refused('zip bomb', 'ARCHIVE_TOO_LARGE'), 300_000);
  it('a zip-slip zip', () => refused('zip slip', 'UNSAFE_ARCHIVE'), 300_000);
  it('a RAR with a symbolic link out of its folder', () => refused('rar link', 'UNSAFE_ARCHIVE'), 300_000);
  it('a PSD declaring over 100 megapixels', () => refused('psd bomb', 'IMAGE_TOO_LARGE'), 300_000);
});
