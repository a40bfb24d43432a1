/**
 * pdf/ocr through the official `cloudconvert` SDK against the whole platform (serverless-offline,
 * queues, the pdf family's consumer, object storage): a "scan" (a PDF whose page is only a picture of
 * known text) and a bare image come back as PDFs whose text layer holds the known words, on each build
 * of Tesseract the machine has; an unknown language ends the task in error naming it, and a malformed
 * one is refused with 422 naming `language`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, expect } from 'vitest';
import { BUNDLED_VERSIONS } from '#lib/engines/core/catalog.js';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { pdfText } from '../support/pdf-text.js';
import { engine, optionalBuild, requires, tool } from '../support/requires.js';
import { e2eOutput } from '../support/platform-output.js';

/** The SDK (3.0.0) types list no pdf/ocr among its operation names; the API takes it. */
const PDF_OCR = 'pdf/ocr' as never;
const WORDS = ['The quick brown fox jumps', 'over the lazy dog 2026'];
const dataDir = mkdtempSync(path.join(tmpdir(), 'ocr-e2e-'));
let platform: Emulator;
let cc: ReturnType<typeof cloudConvertClient>;
let scanPng: Buffer;
let scanPdf: Buffer;

const ocr = requires(engine('tesseract'));
const systemOcr = optionalBuild(engine('tesseract'), tool('tesseract'));

/** A scanned strip of a page at 300 dpi: black text on white, as a grey PNG. */
function scannedImage(lines: string[]): Promise<Buffer> {
  const width = 1800;
  const height = 200 + lines.length * 160;
  const text = lines.map((line, i) => `<text x="100" y="${180 + i * 160}" font-family="DejaVu Sans" font-size="90" fill="#000">${line}</text>`).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/>${text}</svg>`;
  return sharp(Buffer.from(svg)).grayscale().png().toBuffer();
}

/** A PDF whose only page is the picture (at 300 dpi), with no text of its own. */
async function imageOnlyPdf(png: Buffer): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const image = await doc.embedPng(png);
  const size = { width: (image.width * 72) / 300, height: (image.height * 72) / 300 };
  doc.addPage([size.width, size.height]).drawImage(image, { x: 0, y: 0, ...size });
  return Buffer.from(await doc.save());
}

const words = (text: string) => text.replace(/\s+/g, ' ').toLowerCase();
const download = async (url: string) => new Uint8Array(await (await fetch(url)).arrayBuffer());
const api = (route: string, init: RequestInit = {}) =>
  fetch(`${platform.baseUrl}${route}`, { ...init, headers: { authorization: `Bearer ${platform.apiKey}`, 'content-type': 'application/json', ...init.headers } });

beforeAll(async () => {
  scanPng = await scannedImage(WORDS);
  scanPdf = await imageOnlyPdf(scanPng);
  // The scan has no text before OCR.
  expect(await pdfText(scanPdf)).toBe('');
  platform = await startEmulator({ dataDir, output: e2eOutput, env: { LOG_LEVEL: 'warn' } });
  cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
});

afterAll(async () => {
  await platform?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** import/base64 → pdf/ocr (with `args`) → export/url; the finished job's OCR task and its PDF. */
async function runOcr(file: Buffer, filename: string, args: Record<string, unknown>) {
  const created = await cc.jobs.create({
    tasks: {
      scan: { operation: 'import/base64', file: file.toString('base64'), filename },
      ocr: { operation: PDF_OCR, input: 'scan', ...args },
      out: { operation: 'export/url', input: 'ocr' },
    },
  });
  const job = await cc.jobs.wait(created.id);
  const task = job.tasks.find((t) => t.name === 'ocr') as any;
  expect(job.status, JSON.stringify(task)).toBe('finished');
  const [out] = cc.jobs.getExportUrls(job);
  return { task, filename: out!.filename, bytes: await download(out!.url!) };
}

ocr.describe('pdf/ocr through the SDK', () => {
  const expectWords = async (bytes: Uint8Array) => {
    const text = words(await pdfText(bytes));
    for (const line of WORDS) expect(text).toContain(line.toLowerCase());
  };

  ocr.it('a scanned PDF (a page that is only a picture) comes back with the known words as text, the page kept', async () => {
    const { task, filename, bytes } = await runOcr(scanPdf, 'scan.pdf', { language: 'eng' });
    expect(task).toMatchObject({ engine: 'tesseract', credits: 1 });
    expect(filename).toBe('scan.pdf');
    const doc = await PDFDocument.load(bytes);
    expect(doc.getPageCount()).toBe(1);
    const original = (await PDFDocument.load(scanPdf)).getPage(0).getSize();
    expect(doc.getPage(0).getSize().width).toBeCloseTo(original.width, 1);
    await expectWords(bytes);
  });

  ocr.it('an image (PNG) becomes a one-page searchable PDF; language as a list', async () => {
    const { filename, bytes } = await runOcr(scanPng, 'scan.png', { language: ['eng'] });
    expect(filename).toBe('scan.pdf');
    expect((await PDFDocument.load(bytes)).getPageCount()).toBe(1);
    await expectWords(bytes);
  });

  ocr.it('tesseract.js (engine_version of the WebAssembly build) reads the same words', async () => {
    const { task, bytes } = await runOcr(scanPdf, 'scan.pdf', { engine: 'tesseract', engine_version: BUNDLED_VERSIONS.tesseractJs });
    expect(task).toMatchObject({ engine: 'tesseract', engine_version: BUNDLED_VERSIONS.tesseractJs });
    await expectWords(bytes);
  });

  ocr.it('ends the task in error for a language that is not installed, naming it', async () => {
    const task = await cc.tasks.create('import/base64', { file: scanPdf.toString('base64'), filename: 'scan.pdf' });
    const run = await cc.tasks.create(PDF_OCR, { input: task.id, language: 'xyz' } as never);
    const done = await cc.tasks.wait(run.id);
    expect(done).toMatchObject({ status: 'error' });
    expect(done.message).toMatch(/language xyz/);
  });

  ocr.it('answers 422 naming language for a malformed language', async () => {
    await expect(cc.tasks.create(PDF_OCR, { input: 'nothing', language: '../eng' } as never)).rejects.toThrow();
    const res = await api('/v2/jobs', {
      method: 'POST',
      body: JSON.stringify({ tasks: { scan: { operation: 'import/url', url: 'https://example.com/a.pdf' }, ocr: { operation: 'pdf/ocr', input: 'scan', language: ['eng', 'de u'] } } }),
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { errors: Record<string, string[]> };
    expect(Object.keys(body.errors).join(' ')).toMatch(/tasks\.ocr\.language/);
  });
});

systemOcr.describe('pdf/ocr on the system Tesseract', () => {
  systemOcr.it('picks the system build first and names its version', async () => {
    const { task } = await runOcr(scanPng, 'scan.png', {});
    expect(task.engine).toBe('tesseract');
    expect(task.engine_version).not.toBe(BUNDLED_VERSIONS.tesseractJs);
  });
});
