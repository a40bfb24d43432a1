/**
 * PDF out on the pdfjs engine (lib/engines/pdfjs/): pdf → txt, html, docx and odt through the convert
 * operation in-process against dynalite and s3rver, with npm packages alone (pdf.js in a confined node
 * child). The PDFs are drawn here with pdf-lib (a heading, paragraphs of several lines, three pages) and,
 * where LibreOffice is installed, made by LibreOffice from a Word file written with `docx`. Each output
 * is read by a reader the engine does not use: plain string checks for txt, @xmldom/xmldom (strict, so
 * the page must be well-formed) for html, mammoth for docx, jszip with @xmldom/xmldom for odt. Bombs
 * and broken files end with a task error code, quickly.
 */
import { DOMParser } from '@xmldom/xmldom';
import { Document as DocxDocument, HeadingLevel, Packer, Paragraph } from 'docx';
import JSZip from 'jszip';
import mammoth from 'mammoth';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pdfPageText } from '../support/pdf-text.js';
import { startReceiver } from '../support/receiver.js';
import { engine, requires, tool } from '../support/requires.js';
import { base64, startEngineHarness, type Harness } from './engines-harness.js';

/** The document drawn on three pages: a heading (or none) and its paragraphs, each paragraph's lines as drawn. */
const PAGES: Array<{ heading?: { text: string; size: number }; paragraphs: string[][] }> = [
  {
    heading: { text: 'Quarterly Report', size: 24 },
    paragraphs: [
      ['The first paragraph opens the report and runs', 'over two lines of body text here.'],
      ['A second paragraph follows after a blank line,', 'then a second line, and a third one', 'that ends it.'],
    ],
  },
  {
    heading: { text: 'Second Section', size: 18 },
    paragraphs: [['Page two holds one paragraph', 'of two lines.']],
  },
  { paragraphs: [['The last page has a single line.'], ['And a closing paragraph.']] },
];
const joined = (lines: string[]) => lines.join(' ');

async function drawnPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  for (const spec of PAGES) {
    const page = doc.addPage([595, 842]);
    let y = 770;
    if (spec.heading) {
      page.drawText(spec.heading.text, { x: 72, y, size: spec.heading.size, font: bold });
      y -= spec.heading.size * 2;
    }
    for (const lines of spec.paragraphs) {
      for (const line of lines) {
        page.drawText(line, { x: 72, y, size: 12, font });
        y -= 14.4;
      }
      // A blank line between paragraphs.
      y -= 14.4;
    }
  }
  return Buffer.from(await doc.save());
}

/** The same with `count` pages of one line each. */
async function pagesPdf(count: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= count; n++) doc.addPage([300, 300]).drawText(`Page number ${n}`, { x: 30, y: 250, size: 12, font });
  return Buffer.from(await doc.save());
}

/** A hand-written PDF whose page tree declares `count` pages (one real one): what pdf.js reports as its page count. */
function declaredPagesPdf(count: number): Buffer {
  return handWritten([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [3 0 R] /Count ${count} >>`,
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>',
  ]);
}

/** A PDF of these objects (1 is the catalog), with a correct cross-reference table. */
function handWritten(objects: string[]): Buffer {
  let body = '%PDF-1.7\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

const strict = (message: string) => {
  throw new Error(`not well-formed: ${message}`);
};
const xml = (text: string) => new DOMParser({ errorHandler: { error: strict, fatalError: strict } }).parseFromString(text, 'text/xml');
const texts = (doc: ReturnType<typeof xml>, tag: string) => Array.from(doc.getElementsByTagName(tag)).map((e) => (e.textContent ?? '').replace(/\s+/g, ' ').trim());

let h: Harness;
let pdf: Buffer;

beforeAll(async () => {
  h = await startEngineHarness();
  pdf = await drawnPdf();
});
afterAll(() => h?.close());

const convert = (output_format: string, extra: Record<string, unknown> = {}) => ({ operation: 'convert', input: 'in', input_format: 'pdf', output_format, ...extra });

describe('pdf → txt', () => {
  it('keeps the reading order, one blank line between paragraphs, a form feed between pages', async () => {
    const t = await h.run({ in: base64(pdf, 'report.pdf'), out: convert('txt') });
    expect(t.out!.status, t.out!.message ?? '').toBe('finished');
    expect(t.out!.engine).toBe('pdfjs');
    expect(t.out!.result!.files![0]!.filename).toBe('report.txt');
    const text = (await h.file(t.out!)).toString('utf8');
    const pages = text.split('\f');
    expect(pages).toHaveLength(3);
    PAGES.forEach((spec, i) => {
      const expected = [...(spec.heading ? [spec.heading.text] : []), ...spec.paragraphs.map(joined)];
      expect(pages[i]!.trim().split('\n\n')).toEqual(expected);
    });
  });

  it('converts only the pages asked for', async () => {
    const t = await h.run({ in: base64(pdf, 'report.pdf'), out: convert('txt', { pages: '2-3' }) });
    const text = (await h.file(t.out!)).toString('utf8');
    expect(text.split('\f')).toHaveLength(2);
    expect(text).not.toContain('Quarterly Report');
    expect(text).toContain('Second Section');
    expect(text).toContain('And a closing paragraph.');
  });

  it('reads the last pages of a 1,000-page document (the checks before any engine pass long ordinary PDFs)', async () => {
    const t = await h.run({ in: base64(await pagesPdf(1000), 'long.pdf'), out: convert('txt', { pages: '999-1000' }) });
    expect(t.out!.status, t.out!.message ?? '').toBe('finished');
    expect((await h.file(t.out!)).toString('utf8').split('\f').map((p) => p.trim())).toEqual(['Page number 999', 'Page number 1000']);
  }, 60_000);
});

describe('pdf → html', () => {
  it('writes a well-formed page per PDF page with headings and paragraphs, and nothing that runs or fetches', async () => {
    const t = await h.run({ in: base64(pdf, 'report.pdf'), out: convert('html') });
    expect(t.out!.status, t.out!.message ?? '').toBe('finished');
    const html = (await h.file(t.out!)).toString('utf8');
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    const doc = xml(html);
    expect(doc.getElementsByTagName('section')).toHaveLength(3);
    expect(texts(doc, 'h1')).toEqual(['Quarterly Report']);
    expect(texts(doc, 'h2')).toEqual(['Second Section']);
    expect(texts(doc, 'p')).toEqual(PAGES.flatMap((p) => p.paragraphs.map(joined)));
    expect(doc.getElementsByTagName('script')).toHaveLength(0);
    expect(html).not.toMatch(/\b(?:src|href)\s*=|url\(/i);
  });
});

describe('pdf → docx', () => {
  it('keeps the text, the paragraphs, the headings and the page breaks (read by mammoth)', async () => {
    const t = await h.run({ in: base64(pdf, 'report.pdf'), out: convert('docx') });
    expect(t.out!.status, t.out!.message ?? '').toBe('finished');
    const docx = await h.file(t.out!);
    const { value: html } = await mammoth.convertToHtml({ buffer: docx });
    const doc = xml(`<body>${html}</body>`);
    expect(texts(doc, 'h1')).toEqual(['Quarterly Report']);
    expect(texts(doc, 'h2')).toEqual(['Second Section']);
    expect(texts(doc, 'p')).toEqual(PAGES.flatMap((p) => p.paragraphs.map(joined)));
    // Each PDF page after the first starts a new section on a new page, A4 as the PDF's.
    const zip = await JSZip.loadAsync(docx);
    const body = await zip.file('word/document.xml')!.async('string');
    expect(body.match(/<w:sectPr\b/g)).toHaveLength(3);
    expect(body).toMatch(/<w:pgSz w:w="11900" w:h="16840"/);
  });
});

describe('pdf → odt', () => {
  it('writes an OpenDocument text with the headings, paragraphs and page breaks (read with jszip and an XML parser)', async () => {
    const t = await h.run({ in: base64(pdf, 'report.pdf'), out: convert('odt') });
    expect(t.out!.status, t.out!.message ?? '').toBe('finished');
    const odt = await h.file(t.out!);
    // The package's first entry is its media type, stored uncompressed (what readers sniff).
    expect(odt.subarray(30, 38).toString('latin1')).toBe('mimetype');
    expect(odt.readUInt16LE(8)).toBe(0);
    const zip = await JSZip.loadAsync(odt);
    expect(await zip.file('mimetype')!.async('string')).toBe('application/vnd.oasis.opendocument.text');
    expect(await zip.file('META-INF/manifest.xml')!.async('string')).toContain('manifest:full-path="content.xml"');
    const content = xml(await zip.file('content.xml')!.async('string'));
    xml(await zip.file('styles.xml')!.async('string'));
    const headings = Array.from(content.getElementsByTagName('text:h'));
    expect(headings.map((e) => [e.textContent, e.getAttribute('text:outline-level')])).toEqual([
      ['Quarterly Report', '1'],
      ['Second Section', '2'],
    ]);
    expect(texts(content, 'text:p')).toEqual(PAGES.flatMap((p) => p.paragraphs.map(joined)));
    // The first block of pages 2 and 3 breaks the page.
    const breaking = [...headings, ...Array.from(content.getElementsByTagName('text:p'))].filter((e) => /Break/.test(e.getAttribute('text:style-name') ?? ''));
    expect(breaking.map((e) => e.textContent)).toEqual(['Second Section', 'The last page has a single line.']);
  });
});

const office = requires(engine('libreoffice'));
office.describe('a PDF made by LibreOffice', () => {
  it('docx → pdf (LibreOffice) → docx and txt (pdfjs) keeps the heading and the paragraphs', async () => {
    const word = new DocxDocument({
      sections: [
        {
          children: [
            new Paragraph({ text: 'Annual Summary', heading: HeadingLevel.HEADING_1 }),
            new Paragraph({ text: 'Revenue grew in every region this year, and the company opened two new offices in the north, hired forty people and closed the old warehouse by the river.' }),
            new Paragraph({ text: 'Costs stayed flat.' }),
          ],
        },
      ],
    });
    const t = await h.run({
      in: base64(await Packer.toBuffer(word), 'summary.docx'),
      pdf: { operation: 'convert', input: 'in', output_format: 'pdf' },
      docx: { operation: 'convert', input: 'pdf', output_format: 'docx', engine: 'pdfjs' },
      txt: { operation: 'convert', input: 'pdf', output_format: 'txt', engine: 'pdfjs' },
    });
    expect(t.docx!.status, t.docx!.message ?? '').toBe('finished');
    const { value: html } = await mammoth.convertToHtml({ buffer: await h.file(t.docx!) });
    const doc = xml(`<body>${html}</body>`);
    expect(texts(doc, 'h1')).toEqual(['Annual Summary']);
    expect(texts(doc, 'p')).toEqual(['Revenue grew in every region this year, and the company opened two new offices in the north, hired forty people and closed the old warehouse by the river.', 'Costs stayed flat.']);
    const text = (await h.file(t.txt!)).toString('utf8');
    expect(text.trim().split('\n\n')).toEqual(['Annual Summary', 'Revenue grew in every region this year, and the company opened two new offices in the north, hired forty people and closed the old warehouse by the river.', 'Costs stayed flat.']);
  });
});

office.describe('the ODT written here, opened by LibreOffice', () => {
  it('odt → pdf keeps every block, one PDF page per page of the input', async () => {
    const t = await h.run({ in: base64(pdf, 'report.pdf'), odt: convert('odt'), back: { operation: 'convert', input: 'odt', output_format: 'pdf' } });
    expect(t.back!.status, t.back!.message ?? '').toBe('finished');
    const saved = await h.file(t.back!);
    for (const [i, spec] of PAGES.entries()) {
      const page = await pdfPageText(saved, i + 1);
      for (const block of [...(spec.heading ? [spec.heading.text] : []), ...spec.paragraphs.map(joined)]) expect(page).toContain(block);
    }
  });
});

describe('bad input', () => {
  it('refuses a PDF past MAX_PDF_PAGES, and a page tree that doubles at each level to 4,096 pages from 16 objects', async () => {
    const small = await startEngineHarness({ MAX_PDF_PAGES: '2' });
    try {
      const t = await small.run({ in: base64(await pagesPdf(3), 'three.pdf'), out: convert('txt') });
      expect([t.out!.status, t.out!.code]).toEqual(['error', 'TOO_MANY_PAGES']);
      expect(t.out!.message).toMatch(/3 pages.*MAX_PDF_PAGES/);
    } finally {
      await small.close();
    }
    // Object 3 + i has twice object 4 + i as its kids; the last level is the one page, 2^12 times.
    const levels = 12;
    const nodes = Array.from({ length: levels }, (_, i) => `<< /Type /Pages /Parent ${i === 0 ? 2 : i + 2} 0 R /Kids [${i + 4} 0 R ${i + 4} 0 R] /Count ${2 ** (levels - i)} >>`);
    const bomb = handWritten([
      '<< /Type /Catalog /Pages 2 0 R >>',
      `<< /Type /Pages /Kids [3 0 R] /Count ${2 ** levels} >>`,
      ...nodes,
      `<< /Type /Page /Parent ${levels + 2} 0 R /MediaBox [0 0 200 200] >>`,
    ]);
    const t = await h.run({ in: base64(bomb, 'tree.pdf'), out: convert('docx') });
    expect([t.out!.status, t.out!.code]).toEqual(['error', 'TOO_MANY_PAGES']);
  }, 60_000);

  it('reads the pages a PDF has, not the billion its page tree claims', async () => {
    const t = await h.run({ in: base64(declaredPagesPdf(1_000_000_000), 'claims.pdf'), out: convert('txt') });
    // qpdf, where installed, believes the count and refuses it; pdf-lib and pdf.js count the one page.
    if (t.out!.status === 'error') expect(t.out!.code).toBe('TOO_MANY_PAGES');
    else expect((await h.file(t.out!)).toString('utf8')).toBe('\n');
  }, 60_000);

  it('stops pdf.js at MAX_PDF_TEXT_SECONDS: two hundred pages of 250 lines take it several seconds', async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    // Few pages, many lines: what makes pdf.js slow is the text on a page.
    for (let p = 0; p < 200; p++) {
      const page = doc.addPage([300, 800]);
      for (let l = 0; l < 250; l++) page.drawText(`line ${l} of page ${p} with some words`, { x: 20, y: 790 - l * 3.1, size: 3, font });
    }
    const hurried = await startEngineHarness({ MAX_PDF_TEXT_SECONDS: '1' });
    try {
      const t = await hurried.run({ in: base64(Buffer.from(await doc.save()), 'long.pdf'), out: convert('txt') });
      expect([t.out!.status, t.out!.code], t.out!.message ?? '').toEqual(['error', 'CONVERSION_FAILED']);
      expect(t.out!.message).toBe('long.pdf took longer than 1 s to read; PDFs are read for that long at most (MAX_PDF_TEXT_SECONDS).');
    } finally {
      await hurried.close();
    }
  }, 180_000);

  it('ends a corrupt PDF and a file that is no PDF with INVALID_INPUT, naming no path', async () => {
    const t = await h.run({
      corrupt: base64(Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R\nthis is not a pdf\n', 'latin1'), 'corrupt.pdf'),
      notpdf: base64(Buffer.from('hello, world\n'), 'notes.pdf'),
      a: { operation: 'convert', input: 'corrupt', input_format: 'pdf', output_format: 'txt' },
      b: { operation: 'convert', input: 'notpdf', input_format: 'pdf', output_format: 'odt' },
    });
    for (const task of [t.a!, t.b!]) {
      expect([task.status, task.code], task.message ?? '').toEqual(['error', 'INVALID_INPUT']);
      expect(task.message).toMatch(/could not be read|is not a PDF/);
      expect(task.message).not.toMatch(/\/tmp\/|engine-/);
    }
  });

  it('bounds a PDF whose objects nest a hundred thousand levels deep (a task error, not a crash of the worker)', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const bomb = declaredPagesPdf(1).toString('latin1').replace('/MediaBox [0 0 200 200]', `/MediaBox [0 0 200 200] /Deep ${deep}`);
    const t = await h.run({ in: base64(Buffer.from(bomb, 'latin1'), 'deep.pdf'), out: convert('txt') });
    // pdf.js may read past the nesting (it reads it lazily) or give up on it: either way the task ends.
    expect(['finished', 'error']).toContain(t.out!.status);
    if (t.out!.status === 'error') expect(['INVALID_INPUT', 'CONVERSION_FAILED']).toContain(t.out!.code);
  }, 60_000);
});

const qpdf = requires(tool('qpdf'));
qpdf.describe('an encrypted PDF', () => {
  it('ends with a task error when it needs a password to open', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pdf-out-'));
    try {
      writeFileSync(path.join(dir, 'in.pdf'), pdf);
      execFileSync('qpdf', ['--encrypt', 'user-secret', 'owner-secret', '256', '--', path.join(dir, 'in.pdf'), path.join(dir, 'locked.pdf')]);
      // The page count every PDF input is checked for first (engine-task.ts) reads it neither with qpdf nor,
      // without qpdf, with pdf-lib; it says why.
      const noQpdf = await startEngineHarness({ QPDF_PATH: path.join(dir, 'no-qpdf') });
      try {
        for (const harness of [h, noQpdf]) {
          const t = await harness.run({ in: base64(readFileSync(path.join(dir, 'locked.pdf')), 'locked.pdf'), out: convert('docx') });
          expect([t.out!.status, t.out!.code]).toEqual(['error', 'ENCRYPTED_INPUT']);
          expect(t.out!.message).toBe('locked.pdf needs a password to open; decrypt it first (pdf/decrypt), or give the password to an operation that takes one.');
        }
      } finally {
        await noQpdf.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('links', () => {
  it('follows none: no request for a link, an external stream or a remote file, nothing read outside the task folder', async () => {
    const receiver = await startReceiver();
    const dir = mkdtempSync(path.join(tmpdir(), 'pdf-out-secret-'));
    const secret = path.join(dir, 'secret.txt');
    writeFileSync(secret, 'BT /F1 12 Tf 20 100 Td (SECRET-OUTSIDE-TEXT) Tj ET');
    try {
      const at = (what: string) => `(${receiver.url}/${what})`;
      const bytes = handWritten([
        '<< /Type /Catalog /Pages 2 0 R /OpenAction << /S /URI /URI ' + at('open') + ' >> >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources << /Font << /F1 6 0 R >> >> /Contents [4 0 R 5 0 R 7 0 R] /Annots [8 0 R] >>',
        '<< /Length 44 >>\nstream\nBT /F1 12 Tf 20 150 Td (Inside text) Tj ET\nendstream',
        `<< /Length 0 /F << /FS /URL /F ${at('stream')} >> >>\nstream\n\nendstream`,
        `<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /FontDescriptor << /FontFile << /F << /FS /URL /F ${at('font')} >> >> >> >>`,
        `<< /Length 0 /F (${secret}) >>\nstream\n\nendstream`,
        '<< /Type /Annot /Subtype /Link /Rect [0 0 200 200] /A << /S /URI /URI ' + at('link') + ' >> >>',
      ]);
      const t = await h.run({ in: base64(bytes, 'links.pdf'), a: convert('txt'), b: convert('html'), c: convert('docx') });
      expect(t.a!.status, t.a!.message ?? '').toBe('finished');
      expect((await h.file(t.a!)).toString('utf8')).toContain('Inside text');
      for (const task of [t.a!, t.b!]) expect((await h.file(task)).toString('utf8')).not.toMatch(/SECRET|127\.0\.0\.1/);
      const { value } = await mammoth.extractRawText({ buffer: await h.file(t.c!) });
      expect(value).not.toContain('SECRET');
      expect(receiver.requests).toEqual([]);
    } finally {
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
