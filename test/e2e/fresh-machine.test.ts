/**
 * What a fresh machine serves after `npm ci && npm start`: no FFmpeg, ffprobe, Ghostscript, qpdf,
 * LibreOffice or perl of the system (every tool path points nowhere, as on a machine that never ran
 * apt-get), so the engines are the ones npm installed. Driven through the official `cloudconvert` SDK
 * against the whole platform: a video thumbnail, a video conversion, a PDF optimize, a PDF page to PNG,
 * an image metadata write and read, a PDF metadata write. Office conversion is the one thing absent,
 * and discovery says so.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { BUNDLED_VERSIONS } from '#lib/engines/core/catalog.js';
import { setEngineRegistry, newEngineRegistry } from '#lib/file-api/operations/engines.js';
import { shippedFfprobe } from '#lib/engines/core/shipped.js';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { colourVideo, imageHeavyPdf, jpeg, textPdf } from '../fixtures/engine-fixtures.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { NO_SYSTEM_TOOLS } from '../support/fresh-machine.js';
import { e2eOutput } from '../support/platform-output.js';


const dataDir = mkdtempSync(path.join(tmpdir(), 'fresh-e2e-'));
const work = mkdtempSync(path.join(tmpdir(), 'fresh-e2e-files-'));
let platform: Emulator;
let cc: ReturnType<typeof cloudConvertClient>;
let video: Buffer;

beforeAll(async () => {
  // The fixture video comes from the FFmpeg this test process finds with the same settings: the shipped one.
  setEngineRegistry(newEngineRegistry(parseEngineConfig(NO_SYSTEM_TOOLS)));
  const saved = { ...process.env };
  Object.assign(process.env, NO_SYSTEM_TOOLS);
  try {
    video = colourVideo();
  } finally {
    for (const name of Object.keys(NO_SYSTEM_TOOLS)) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  }
  platform = await startEmulator({ dataDir, output: e2eOutput, env: { LOG_LEVEL: 'warn', ...NO_SYSTEM_TOOLS } });
  cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
}, 420_000);

afterAll(async () => {
  setEngineRegistry(undefined);
  await platform?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

const download = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());

/** Runs a job to its end through the SDK; each task by name, and the bytes of each exported file by task name. */
async function run(tasks: Record<string, Record<string, unknown>>, upload?: { task: string; bytes: Buffer; filename: string }) {
  const created = await cc.jobs.create({ tasks } as never);
  if (upload) {
    const task = created.tasks.find((t) => t.name === upload.task)!;
    await cc.tasks.upload(task, Readable.from([upload.bytes]), upload.filename, upload.bytes.length);
  }
  const job = await cc.jobs.wait(created.id);
  const byName = Object.fromEntries(job.tasks.map((t) => [t.name, t as unknown as Record<string, any>]));
  for (const [name, task] of Object.entries(byName)) expect(task.status, `${name}: ${task.message}`).toBe('finished');
  const files: Record<string, Buffer> = {};
  for (const task of job.tasks.filter((t) => t.operation === 'export/url')) {
    const [file] = task.result!.files!;
    files[task.name] = await download(file!.url!);
  }
  return { tasks: byName, files };
}

/** Duration and frame size of a video, by the shipped ffprobe. */
function probe(bytes: Buffer, name: string) {
  const file = path.join(work, name);
  writeFileSync(file, bytes);
  const info = JSON.parse(execFileSync(shippedFfprobe()!.file, ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], { encoding: 'utf8' })) as {
    format: { duration: string; format_name: string };
    streams: Array<{ codec_type: string; codec_name: string; width?: number; height?: number }>;
  };
  const v = info.streams.find((s) => s.codec_type === 'video')!;
  return { duration: Number(info.format.duration), format: info.format.format_name, codec: v.codec_name, width: v.width, height: v.height };
}

describe('a fresh machine after npm ci, through the SDK', () => {
  it('takes a video thumbnail and converts the video with the npm-shipped FFmpeg', async () => {
    const { tasks, files } = await run(
      {
        clip: { operation: 'import/upload' },
        thumb: { operation: 'thumbnail', input: 'clip', output_format: 'png', width: 160, timestamp: 5 },
        small: { operation: 'convert', input: 'clip', output_format: 'webm', width: 160 },
        thumbOut: { operation: 'export/url', input: 'thumb' },
        smallOut: { operation: 'export/url', input: 'small' },
      },
      { task: 'clip', bytes: video, filename: 'clip.mp4' },
    );
    expect(tasks.thumb).toMatchObject({ engine: 'ffmpeg', engine_version: '4.1.0' });
    expect(tasks.small).toMatchObject({ engine: 'ffmpeg', engine_version: '4.1.0' });
    // At 5 s the video is green.
    expect(await sharp(files.thumbOut!).metadata()).toMatchObject({ format: 'png', width: 160, height: 120 });
    const [r, g, b] = (await sharp(files.thumbOut!).stats()).channels.map((c) => c.mean);
    expect(g).toBeGreaterThan(200);
    expect(r! + b!).toBeLessThan(60);
    const webm = probe(files.smallOut!, 'small.webm');
    expect(webm).toMatchObject({ codec: 'vp9', width: 160, height: 120 });
    expect(webm.format).toContain('webm');
    expect(webm.duration).toBeCloseTo(10, 0);
  });

  it('optimizes a PDF and renders a page to PNG with Ghostscript as WebAssembly', async () => {
    const photos = await imageHeavyPdf(2, 1600);
    const { tasks, files } = await run(
      {
        photos: { operation: 'import/upload' },
        report: { operation: 'import/base64', file: (await textPdf(3, 'of the fresh report')).toString('base64'), filename: 'report.pdf' },
        smaller: { operation: 'optimize', input: 'photos', profile: 'web' },
        page2: { operation: 'convert', input: 'report', output_format: 'png', pages: '2', width: 300 },
        smallerOut: { operation: 'export/url', input: 'smaller' },
        page2Out: { operation: 'export/url', input: 'page2' },
      },
      { task: 'photos', bytes: photos, filename: 'photos.pdf' },
    );
    expect(tasks.smaller).toMatchObject({ engine: 'ghostscript', engine_version: BUNDLED_VERSIONS.ghostscriptWasm });
    expect(tasks.page2).toMatchObject({ engine: 'ghostscript', engine_version: BUNDLED_VERSIONS.ghostscriptWasm });
    expect(files.smallerOut!.length).toBeLessThan(photos.length / 5);
    expect((await PDFDocument.load(files.smallerOut!)).getPageCount()).toBe(2);
    expect(await sharp(files.page2Out!).metadata()).toMatchObject({ format: 'png', width: 300, height: 424 });
    const { channels } = await sharp(files.page2Out!).stats();
    expect(channels[0]!.max).toBe(255);
    expect(channels[0]!.min).toBeLessThan(100);
  });

  it('writes metadata into an image and reads it back, and writes the Info of a PDF, without perl', async () => {
    const { tasks, files } = await run({
      photo: { operation: 'import/base64', file: (await jpeg(640, 480)).toString('base64'), filename: 'photo.jpg' },
      doc: { operation: 'import/base64', file: (await textPdf(2)).toString('base64'), filename: 'doc.pdf' },
      tagged: { operation: 'metadata/write', input: 'photo', metadata: { Artist: 'Ann Example', Copyright: '(c) 2026 Ann' } },
      read: { operation: 'metadata', input: 'tagged' },
      taggedPdf: { operation: 'metadata/write', input: 'doc', metadata: { Title: 'Fresh report', Author: 'Ann Example' } },
      taggedOut: { operation: 'export/url', input: 'tagged' },
      taggedPdfOut: { operation: 'export/url', input: 'taggedPdf' },
    });
    expect(tasks.read!.result.metadata).toMatchObject({ Artist: 'Ann Example', Copyright: '(c) 2026 Ann', ImageWidth: 640, ImageHeight: 480 });
    expect(await sharp(files.taggedOut!).metadata()).toMatchObject({ format: 'jpeg', width: 640, height: 480 });
    const pdf = await PDFDocument.load(files.taggedPdfOut!, { updateMetadata: false });
    expect(pdf.getTitle()).toBe('Fresh report');
    expect(pdf.getAuthor()).toBe('Ann Example');
    expect(pdf.getPageCount()).toBe(2);
  });

  it('offers no office conversion, and says so', async () => {
    const res = await fetch(`${platform.baseUrl}/v2/convert/formats?filter[input_format]=docx&filter[output_format]=pdf`, {
      headers: { authorization: `Bearer ${platform.apiKey}` },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown[] }).data).toEqual([]);
    const job = {
      tasks: {
        doc: { operation: 'import/url', url: 'https://example.com/letter.docx' },
        pdf: { operation: 'convert', input: 'doc', input_format: 'docx', output_format: 'pdf' },
      },
    };
    const refused = await fetch(`${platform.baseUrl}/v2/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(job),
    });
    expect(refused.status).toBe(422);
    const body = (await refused.json()) as { code: string; errors: Record<string, string[]> };
    expect(body.code).toBe('INVALID_DATA');
    expect(Object.keys(body.errors).every((field) => field.startsWith('tasks.pdf.'))).toBe(true);
    await expect(cc.jobs.create(job as never)).rejects.toThrow();
  });
});
