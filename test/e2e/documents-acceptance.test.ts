/**
 * Issue 30's acceptance, through the official `cloudconvert` SDK against the whole platform with the
 * CI toolset: slides, drawings, e-books and vector, each one job (import/base64 → convert →
 * export/url), all started at once, each output read by a reader that is not the engine that wrote it
 * (PDF.js and pdf-lib, sharp, jszip, the PalmDB header). Spreadsheets: office-documents-acceptance;
 * markup: markup-acceptance; PDF to Word and text: pdf-out-fresh-machine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import JSZip from 'jszip';
import { handmadeEpub } from '../support/ebook-writers.js';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { flatOdf, pptx, sofficeConversions, vsdx } from '../fixtures/slides-fixtures.js';
import { cloudConvertClient, convertJob, type ConvertedJob } from '../support/cloudconvert.js';
import { pdfText } from '../support/pdf-text.js';
import { e2eOutput } from '../support/platform-output.js';
import { engine, requires } from '../support/requires.js';

const documents = requires(engine('libreoffice'), engine('calibre'), engine('pandoc'));

const dataDir = mkdtempSync(path.join(tmpdir(), 'documents-e2e-'));
let platform: Emulator;
let cc: ReturnType<typeof cloudConvertClient>;

type Ran = ConvertedJob;
const run = (bytes: Buffer, filename: string, to: string) => convertJob(cc, bytes, filename, to);

// The inputs, each made by a library that is not the engine that converts it.
/** An EPUB 3 written by hand (test/support/ebook-writers.ts), one chapter. */
const epub = () => handmadeEpub({ title: 'Tides', chapter: '<h1>Tides</h1><p>The moon pulls the seawater twice a day.</p>' });

const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" viewBox="0 0 200 100"><rect x="0" y="0" width="100" height="100" fill="#d00000"/><text x="110" y="55" font-family="DejaVu Sans" font-size="14">Vectorword</text></svg>';

const jobs = new Map<string, Promise<Ran>>();

documents.beforeAll(async () => {
  platform = await startEmulator({ dataDir, output: e2eOutput, env: { LOG_LEVEL: 'warn' } });
  cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
  const deck = await pptx(['Oneslide', 'Twoslide', 'Threeslide']);
  const inputs: Record<string, [Buffer, string, string]> = {
    'pptx→pdf': [deck, 'deck.pptx', 'pdf'],
    'pptx→png': [deck, 'deck.pptx', 'png'],
    'epub→mobi': [await epub(), 'tides.epub', 'mobi'],
    'vsdx→pdf': [await vsdx('Visio shape words'), 'shapes.vsdx', 'pdf'],
    'emf→png': [sofficeConversions(flatOdf(['Metafile words']), 'drawing.fodg', ['emf']).emf!, 'drawing.emf', 'png'],
    'svg→pdf': [Buffer.from(SVG), 'shape.svg', 'pdf'],
  };
  for (const [name, [bytes, filename, to]] of Object.entries(inputs)) jobs.set(name, run(bytes, filename, to));
  // Second jobs start from the platform's own outputs, as a user's next job would.
  const then = (first: string, filename: string, to: string) => jobs.get(first)!.then((ran) => run(ran.files[0]?.bytes ?? Buffer.alloc(0), filename, to));
  jobs.set('mobi→epub', then('epub→mobi', 'tides.mobi', 'epub'));
  for (const job of jobs.values()) job.catch(() => undefined);
}, 600_000);

afterAll(async () => {
  await platform?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The finished job `name` and its outputs. */
async function finished(name: string): Promise<Ran['files']> {
  const ran = await jobs.get(name)!;
  expect(ran.status, ran.message).toBe('finished');
  expect(ran.files.length).toBeGreaterThan(0);
  return ran.files;
}
const one = async (name: string) => (await finished(name))[0]!.bytes;
const pages = async (pdf: Buffer) => (await PDFDocument.load(pdf)).getPageCount();

/** The text of every XHTML part of an EPUB, tags removed. */
async function epubText(bytes: Buffer): Promise<string> {
  const zip = await JSZip.loadAsync(bytes);
  expect(await zip.file('mimetype')?.async('string')).toBe('application/epub+zip');
  const parts = Object.keys(zip.files).filter((n) => /\.x?html?$/i.test(n));
  const texts = await Promise.all(parts.map((n) => zip.file(n)!.async('string')));
  return texts.join(' ').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
}

documents.describe('slides, drawings, e-books and vector, through the cloudconvert SDK with the CI toolset', () => {
  it('PPTX → PDF: one page per slide', async () => {
    const pdf = await one('pptx→pdf');
    expect(await pages(pdf)).toBe(3);
    expect(await pdfText(pdf)).toMatch(/Oneslide\s+Twoslide\s+Threeslide/);
  }, 600_000);

  it('PPTX → PNG: one file per slide', async () => {
    const files = await finished('pptx→png');
    expect(files).toHaveLength(3);
    for (const f of files) expect((await sharp(f.bytes).metadata()).format).toBe('png');
  }, 600_000);

  it('EPUB → MOBI → EPUB: the text is kept', async () => {
    const mobi = await one('epub→mobi');
    // A PalmDB whose type and creator say Mobipocket, and whose first record is a MOBI header.
    expect(mobi.subarray(60, 68).toString('latin1')).toBe('BOOKMOBI');
    const first = mobi.readUInt32BE(78);
    expect(mobi.subarray(first + 16, first + 20).toString('latin1')).toBe('MOBI');
    expect(await epubText(await one('mobi→epub'))).toContain('The moon pulls the seawater twice a day.');
  }, 600_000);

  it('VSDX → PDF', async () => {
    const pdf = await one('vsdx→pdf');
    expect(await pages(pdf)).toBe(1);
    expect(await pdfText(pdf)).toContain('Visio shape words');
  }, 600_000);

  it('EMF → PNG: a picture, drawn', async () => {
    const png = await one('emf→png');
    expect((await sharp(png).metadata()).format).toBe('png');
    const { data } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
    // Not a blank page: some pixels are dark (the drawing's text and shapes).
    expect(data.some((v) => v < 100)).toBe(true);
  }, 600_000);

  it('SVG → PDF', async () => {
    const pdf = await one('svg→pdf');
    expect(await pages(pdf)).toBe(1);
    expect(await pdfText(pdf)).toContain('Vectorword');
  }, 600_000);
});
