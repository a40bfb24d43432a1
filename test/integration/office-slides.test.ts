/**
 * Impress and Draw on the real LibreOffice (lib/engines/office/slides.ts): every input format converted
 * from a file generated here to PDF (page count by pdf-lib, text by pdf.js), every output format checked
 * by a reader that is not LibreOffice (jszip counting slides and pages, pdf.js, sharp for images and
 * SVG), and the PDF options.
 */
import JSZip from 'jszip';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, expect, it } from 'vitest';
import type { TaskRecord } from '#lib/file-api/records/model.js';
import { ApiError } from '#lib/kernel/errors.js';
import { textPdf } from '../fixtures/engine-fixtures.js';
import { flatOdf, pptx, sofficeConversions, svg, vsdx } from '../fixtures/slides-fixtures.js';
import { pdfText } from '../support/pdf-text.js';
import { engine, requires, tool } from '../support/requires.js';
import { base64, startEngineHarness, type Harness } from './engines-harness.js';

const office = requires(tool('soffice'), engine('libreoffice'), engine('ghostscript'));

const SLIDES = ['Alpha slide words', 'Beta slide words', 'Gamma slide words'];
const PAGES = ['Drawing page one', 'Drawing page two'];
const SLIDE_INPUTS = ['ppt', 'pptm', 'pps', 'ppsx', 'pot', 'potx', 'odp', 'otp'];
const SLIDE_TARGETS: Record<string, string> = { pptm: 'pptm:Impress MS PowerPoint 2007 XML VBA', pot: 'pot:MS PowerPoint 97 Vorlage' };

let h: Harness;
let t: Record<string, TaskRecord>;
const finished = (name: string) => {
  const task = t[name]!;
  expect(task, JSON.stringify({ status: task.status, code: task.code, message: task.message })).toMatchObject({ status: 'finished', engine: 'libreoffice' });
  return task;
};
const pageCount = async (pdf: Buffer) => (await PDFDocument.load(pdf)).getPageCount();
/** The slides of an OOXML presentation, or the pages of an ODF one. */
async function slideCount(bytes: Buffer): Promise<number> {
  const z = await JSZip.loadAsync(bytes);
  const ooxml = Object.keys(z.files).filter((n) => /^ppt\/slides\/slide\d+\.xml$/.test(n)).length;
  if (ooxml) return ooxml;
  return ((await z.file('content.xml')?.async('string')) ?? '').split('<draw:page ').length - 1;
}

office.beforeAll(async () => {
  const deck = await pptx(SLIDES);
  const slides = sofficeConversions(deck, 'deck.pptx', SLIDE_INPUTS.map((f) => SLIDE_TARGETS[f] ?? f));
  const fodg = flatOdf(PAGES);
  const drawings = sofficeConversions(fodg, 'drawing.fodg', ['odg', 'otg', 'emf', 'wmf']);
  // A hidden middle slide: pptxgenjs cannot write one, so its slide part gets PowerPoint's attribute.
  const hiddenDeck = await JSZip.loadAsync(await pptx(SLIDES));
  hiddenDeck.file('ppt/slides/slide2.xml', (await hiddenDeck.file('ppt/slides/slide2.xml')!.async('string')).replace('<p:sld ', '<p:sld show="0" '));
  const hidden = await hiddenDeck.generateAsync({ type: 'nodebuffer' });

  const files: Record<string, Buffer> = {
    pptx: deck,
    ...slides,
    fodp: flatOdf(SLIDES, 'presentation'),
    fodg,
    ...drawings,
    vsdx: await vsdx('Visio shape words'),
    svg: svg('Vector shape words'),
  };
  const tasks: Record<string, Record<string, unknown>> = {};
  for (const [format, bytes] of Object.entries(files)) {
    tasks[`in-${format}`] = base64(bytes, `sample.${format}`);
    // svg → pdf is pdf-lib's by default (an image in a page): Draw's is asked for by name.
    tasks[`${format}-pdf`] = { operation: 'convert', input: `in-${format}`, output_format: 'pdf', engine: 'libreoffice' };
  }
  const from = (input: string, output: string, extra: Record<string, unknown> = {}) => ({ operation: 'convert', input: `in-${input}`, output_format: output, engine: 'libreoffice', ...extra });
  for (const out of ['pptx', 'pptm', 'ppsx', 'potx', 'odp', 'otp', 'odg', 'ppt', 'pps', 'pot', 'png', 'jpg', 'svg']) tasks[`pptx-to-${out}`] = from('pptx', out);
  for (const out of ['odg', 'otg', 'png', 'svg']) tasks[`fodg-to-${out}`] = from('fodg', out);
  tasks['emf-to-png'] = from('emf', 'png');
  tasks['pptx-pages'] = from('pptx', 'pdf', { pages: '2-3' });
  tasks['pptx-png-pages'] = from('pptx', 'png', { pages: '2', width: 320 });
  tasks['pptx-pdfa'] = from('pptx', 'pdf', { pdf_a: true });
  tasks['in-hidden'] = base64(hidden, 'hidden.pptx');
  tasks['hidden-default'] = { operation: 'convert', input: 'in-hidden', output_format: 'pdf' };
  tasks['hidden-kept'] = { operation: 'convert', input: 'in-hidden', output_format: 'pdf', hidden_slides: true };
  tasks['in-twopages'] = base64(await textPdf(2), 'two.pdf');
  tasks['pdf-to-svg'] = { operation: 'convert', input: 'in-twopages', output_format: 'svg' };
  h = await startEngineHarness();
  t = await h.run(tasks);
}, 900_000);
afterAll(async () => {
  await h?.close();
});

office.describe('every presentation and drawing input converts to PDF', () => {
  it.each(['pptx', ...SLIDE_INPUTS, 'fodp'])('%s: one page per slide, with its text', async (format) => {
    const pdf = await h.file(finished(`${format}-pdf`));
    expect(await pageCount(pdf)).toBe(SLIDES.length);
    const text = await pdfText(pdf);
    for (const line of SLIDES) expect(text).toContain(line);
  });

  it.each(['fodg', 'odg', 'otg'])('%s: one page per drawing page, with its text', async (format) => {
    const pdf = await h.file(finished(`${format}-pdf`));
    expect(await pageCount(pdf)).toBe(PAGES.length);
    const text = await pdfText(pdf);
    for (const line of PAGES) expect(text).toContain(line);
  });

  it.each([
    ['vsdx', 'Visio shape words'],
    ['svg', 'Vector shape words'],
    // A metafile is one picture: LibreOffice wrote the first page.
    ['emf', PAGES[0]!],
    ['wmf', PAGES[0]!],
  ])('%s: a page with its text, as vectors', async (format, words) => {
    const pdf = await h.file(finished(`${format}-pdf`));
    expect(await pageCount(pdf)).toBe(1);
    expect(await pdfText(pdf)).toContain(words);
  });
});

office.describe('every output format, read back by another reader', () => {
  it.each(['pptx', 'pptm', 'ppsx', 'potx', 'odp', 'otp', 'odg'])('pptx → %s keeps the three slides', async (format) => {
    const out = await h.file(finished(`pptx-to-${format}`));
    expect(await slideCount(out)).toBe(SLIDES.length);
  });

  it.each(['ppt', 'pps', 'pot'])('pptx → %s: a PowerPoint 97 file (OLE2) holding the slides’ text', async (format) => {
    const out = await h.file(finished(`pptx-to-${format}`));
    expect([...out.subarray(0, 8)]).toEqual([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    // PowerPoint 97 keeps text as 8-bit or UTF-16 runs.
    for (const line of SLIDES) expect(out.includes(Buffer.from(line, 'latin1')) || out.includes(Buffer.from(line, 'utf16le'))).toBe(true);
  });

  it.each(['png', 'jpg'])('pptx → %s: one image per slide', async (format) => {
    const task = finished(`pptx-to-${format}`);
    expect(task.result?.files).toHaveLength(SLIDES.length);
    for (let i = 0; i < SLIDES.length; i++) {
      const meta = await sharp(await h.file(task, i)).metadata();
      expect(meta.format).toBe(format === 'jpg' ? 'jpeg' : 'png');
      expect(meta.width).toBeGreaterThan(meta.height!);
    }
  });

  it('pptx → svg: one SVG per slide, each with its slide’s text and no script', async () => {
    const task = finished('pptx-to-svg');
    expect(task.result?.files).toHaveLength(SLIDES.length);
    for (const [i, line] of SLIDES.entries()) {
      const out = await h.file(task, i);
      expect((await sharp(out).metadata()).format).toBe('svg');
      const text = out.toString('utf8');
      expect(text).toContain(line);
      expect(text).not.toMatch(/<script/i);
    }
  });

  it('drawings: fodg → odg and otg keep both pages; → png and svg give one file per page', async () => {
    for (const format of ['odg', 'otg']) expect(await slideCount(await h.file(finished(`fodg-to-${format}`)))).toBe(PAGES.length);
    expect(finished('fodg-to-png').result?.files).toHaveLength(PAGES.length);
    const svgs = finished('fodg-to-svg');
    expect(svgs.result?.files).toHaveLength(PAGES.length);
    expect((await h.file(svgs, 1)).toString('utf8')).toContain(PAGES[1]);
  });

  it('emf → png: a picture, drawn', async () => {
    const png = await h.file(finished('emf-to-png'));
    const { channels, isOpaque } = await sharp(png).stats();
    expect((await sharp(png).metadata()).format).toBe('png');
    // Not one flat colour: the rectangle's outline and text are there.
    expect(isOpaque === false || channels.some((c) => c.min !== c.max)).toBe(true);
  });

  it('pdf → svg: one SVG per page through Draw', async () => {
    const task = finished('pdf-to-svg');
    expect(task.result?.files).toHaveLength(2);
    for (let i = 0; i < 2; i++) expect((await sharp(await h.file(task, i)).metadata()).format).toBe('svg');
  });
});

office.describe('the PDF and page options', () => {
  it('pages: only the slides asked for', async () => {
    const pdf = await h.file(finished('pptx-pages'));
    expect(await pageCount(pdf)).toBe(2);
    const text = await pdfText(pdf);
    expect(text).not.toContain(SLIDES[0]);
    expect(text).toContain(SLIDES[2]);
  });

  it('pages and width for images: one image of the second slide, 320 px wide', async () => {
    const task = finished('pptx-png-pages');
    expect(task.result?.files).toHaveLength(1);
    expect((await sharp(await h.file(task)).metadata()).width).toBe(320);
  });

  it('pdf_a: a PDF/A-2b', async () => {
    const pdf = (await h.file(finished('pptx-pdfa'))).toString('latin1');
    expect(pdf).toMatch(/pdfaid:part(="|>)2/);
  });

  it('hidden_slides: left out by default, kept when asked', async () => {
    expect(await pdfText(await h.file(finished('hidden-default')))).not.toContain(SLIDES[1]);
    const kept = await h.file(finished('hidden-kept'));
    expect(await pageCount(kept)).toBe(3);
    expect(await pdfText(kept)).toContain(SLIDES[1]);
  });

  it('refuses a pdf_a that is not a boolean at creation, naming the field', async () => {
    const refused = await h.run({ in: base64(Buffer.from('x'), 'a.pptx'), c: { operation: 'convert', input: 'in', output_format: 'pdf', pdf_a: 'yes' } }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApiError);
    expect(Object.keys((refused as ApiError).fields ?? {})).toEqual(['tasks.c.pdf_a']);
  });
});
