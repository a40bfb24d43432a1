/**
 * E-books on the calibre engine (lib/engines/office/calibre.ts), through the convert operation
 * in-process. The source is a text file written here, made an EPUB; every output format is made from that and read
 * by a reader of this repository's tests (test/support/ebook-readers.ts: EPUB through unzip and its
 * spine, the Palm database and PalmDOC text of MOBI, AZW3 and PDB, TCR's dictionary, the zlib streams
 * of LRF and Rocket eBook, RTF's text), by mammoth (DOCX) or by PDF.js (PDF), never by calibre. Each
 * input format (those outputs, and azw, prc, fbz, pml, cbz made here) is then converted to EPUB and
 * its text read back. LIT is checked by its header only (its text is LZX-compressed; no reader here).
 */
import mammoth from 'mammoth';
import sharp from 'sharp';
import { zipSync } from 'fflate';
import { afterAll, expect } from 'vitest';
import { ApiError } from '#lib/kernel/errors.js';
import type { TaskRecord } from '#lib/file-api/records/model.js';
import { pdfText } from '../support/pdf-text.js';
import { engine, requires } from '../support/requires.js';
import { epubText, inflatedStreams, markupText, mobiBook, palmDocText, rtfText, tcrText, zipEntries } from '../support/ebook-readers.js';
import { base64, startEngineHarness, type Harness } from './engines-harness.js';

const calibre = requires(engine('calibre'));

const TITLE = 'The Lighthouse Keeper';
const FIRST = 'Marigold counted seventeen gulls above the harbour wall';
const SECOND = 'By nightfall the lamp turned slowly over the quiet water';
const SOURCE = `${TITLE}\n\n${FIRST}.\n\n${SECOND}.\n`;

const OUTPUTS = ['epub', 'mobi', 'azw3', 'fb2', 'lit', 'lrf', 'pdb', 'rtf', 'txt', 'docx', 'htmlz', 'txtz', 'tcr', 'rb', 'pdf'] as const;
/** Inputs made by the engine above and converted again. */
const REREAD = ['epub', 'mobi', 'azw3', 'fb2', 'lit', 'lrf', 'pdb', 'rtf', 'txt', 'docx', 'htmlz', 'txtz', 'tcr', 'rb', 'pdf'] as const;

/** Both sentences, whatever the spacing or line breaks of the format. */
const expectText = (text: string) => {
  const flat = text.replace(/\s+/g, ' ');
  expect(flat).toContain(FIRST);
  expect(flat).toContain(SECOND);
};

const convert = (input: string, output_format: string, extra: Record<string, unknown> = {}) => ({ operation: 'convert', input, output_format, engine: 'calibre', ...extra });
const ok = (task: TaskRecord | undefined) => expect(task, JSON.stringify({ status: task?.status, code: task?.code, message: task?.message })).toMatchObject({ status: 'finished', engine: 'calibre' });

let h: Harness;
let made: Record<string, TaskRecord>;
let reread: Record<string, TaskRecord>;
const outputs: Record<string, Buffer> = {};
afterAll(async () => {
  await h?.close();
});
/** The EPUB each input became. */
const epubs: Record<string, Buffer> = {};

calibre.describe('e-books on calibre', () => {
  calibre.beforeAll(async () => {
    h = await startEngineHarness();
    // The text becomes an EPUB, and the EPUB every output (calibre converts documents to e-books and back, not between documents).
    made = await h.run({ src: base64(Buffer.from(SOURCE), 'book.txt'), book: convert('src', 'epub'), ...Object.fromEntries(OUTPUTS.map((f) => [f, convert('book', f)])) });
    for (const f of OUTPUTS) if (made[f]?.status === 'finished') outputs[f] = await h.file(made[f]!);
    const fb2 = outputs.fb2 ?? Buffer.alloc(0);
    // A page of a comic: one PNG in a zip.
    const page = await sharp({ create: { width: 120, height: 160, channels: 3, background: '#3366cc' } }).png().toBuffer();
    const extra = {
      // azw and prc are MOBI under other names; fbz is a zipped FictionBook; PML is Palm's markup, written by hand.
      azw: base64(outputs.mobi ?? Buffer.alloc(0), 'book.azw'),
      prc: base64(outputs.mobi ?? Buffer.alloc(0), 'book.prc'),
      fbz: base64(Buffer.from(zipSync({ 'book.fb2': new Uint8Array(fb2) })), 'book.fbz'),
      pml: base64(Buffer.from(`\\X0${TITLE}\\X0\n\n${FIRST}.\n\n${SECOND}.\n`), 'book.pml'),
      cbz: base64(Buffer.from(zipSync({ '001.png': new Uint8Array(page), '002.png': new Uint8Array(page) })), 'comic.cbz'),
    };
    reread = await h.run({
      ...Object.fromEntries(REREAD.map((f) => [`in-${f}`, base64(outputs[f] ?? Buffer.alloc(0), `book.${f}`)])),
      ...Object.fromEntries(REREAD.map((f) => [f, convert(`in-${f}`, 'epub')])),
      ...Object.fromEntries(Object.entries(extra).flatMap(([f, task]) => [[`in-${f}`, task], [f, convert(`in-${f}`, 'epub')]])),
    });
    for (const [f, task] of Object.entries(reread)) if (!f.startsWith('in-') && task.status === 'finished') epubs[f] = await h.file(task);
  }, 900_000);

  calibre.it('EPUB: a zip with its mimetype, container and spine, holding the text', () => {
    ok(made.epub);
    expectText(epubText(outputs.epub!));
  });

  calibre.it('MOBI: a Palm database of type BOOKMOBI, MOBI 6 text records in PalmDOC', () => {
    ok(made.mobi);
    const book = mobiBook(outputs.mobi!);
    expect(book).toMatchObject({ type: 'BOOK', creator: 'MOBI', version: 6, compression: 2 });
    expectText(book.text);
  });

  calibre.it('AZW3: a Palm database of type BOOKMOBI, KF8 (file version 8) text records', () => {
    ok(made.azw3);
    const book = mobiBook(outputs.azw3!);
    expect(book).toMatchObject({ type: 'BOOK', creator: 'MOBI', version: 8 });
    expectText(book.text);
  });

  calibre.it('PDB: a PalmDoc database (TEXtREAd) holding the text', () => {
    ok(made.pdb);
    const doc = palmDocText(outputs.pdb!);
    expect(doc).toMatchObject({ type: 'TEXt', creator: 'REAd' });
    expectText(doc.text);
  });

  calibre.it('FB2: FictionBook XML holding the text', () => {
    ok(made.fb2);
    const xml = outputs.fb2!.toString('utf8');
    expect(xml).toMatch(/<FictionBook\b/);
    expectText(markupText(xml));
  });

  calibre.it('TXT, TXTZ and HTMLZ: the text, plain or zipped', () => {
    for (const f of ['txt', 'txtz', 'htmlz']) ok(made[f]);
    expectText(outputs.txt!.toString('utf8'));
    const txtz = zipEntries(outputs.txtz!);
    expectText(Object.entries(txtz).filter(([n]) => n.endsWith('.txt')).map(([, b]) => Buffer.from(b).toString('utf8')).join(' '));
    expectText(markupText(Buffer.from(zipEntries(outputs.htmlz!)['index.html']!).toString('utf8')));
  });

  calibre.it('RTF, DOCX (read by mammoth) and PDF (read by PDF.js)', async () => {
    for (const f of ['rtf', 'docx', 'pdf']) ok(made[f]);
    expect(outputs.rtf!.subarray(0, 5).toString('latin1')).toBe('{\\rtf');
    expectText(rtfText(outputs.rtf!.toString('latin1')));
    expectText((await mammoth.extractRawText({ buffer: outputs.docx! })).value);
    expect(outputs.pdf!.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expectText(await pdfText(outputs.pdf!));
  });

  calibre.it('TCR, LRF and Rocket eBook: their headers, and the text their coding or zlib streams hold', () => {
    for (const f of ['tcr', 'lrf', 'rb']) ok(made[f]);
    expectText(tcrText(outputs.tcr!));
    expect(outputs.lrf!.subarray(0, 8).toString('latin1')).toBe('L\0R\0F\0\0\0');
    expectText(inflatedStreams(outputs.lrf!).map((b) => b.toString('utf16le').replace(/\0/g, ' ')).join(' '));
    expect(outputs.rb!.subarray(0, 10).toString('latin1')).toBe('\xb0\x0c\xb0\x0c\x02\x00NUVO');
    expectText(inflatedStreams(outputs.rb!).map((b) => markupText(b.toString('latin1'))).join(' '));
  });

  calibre.it('LIT: a Microsoft Reader file (ITOLITLS header); its text comes back through EPUB below', () => {
    ok(made.lit);
    expect(outputs.lit!.subarray(0, 8).toString('latin1')).toBe('ITOLITLS');
  });

  calibre.it('each input format converts to EPUB with its text', () => {
    for (const f of [...REREAD, 'azw', 'prc', 'fbz', 'pml']) {
      ok(reread[f]);
      expectText(epubText(epubs[f]!));
    }
  });

  calibre.it('CBZ (a comic) converts to EPUB with its pages as images', () => {
    ok(reread.cbz);
    const names = Object.keys(zipEntries(epubs.cbz!));
    expect(names.filter((n) => /\.(png|jpe?g)$/i.test(n) && !/cover/i.test(n)).length).toBeGreaterThanOrEqual(2);
  });
});

calibre.describe('EPUB → MOBI → EPUB (issue 30 acceptance)', () => {
  calibre.it('keeps the text through one job of two conversions', async () => {
    const t = await h.run({
      src: base64(Buffer.from(SOURCE), 'story.txt'),
      epub: convert('src', 'epub'),
      mobi: { operation: 'convert', input: 'epub', output_format: 'mobi' },
      back: { operation: 'convert', input: 'mobi', output_format: 'epub' },
    });
    for (const name of ['mobi', 'back']) ok(t[name]);
    expect(mobiBook(await h.file(t.mobi!)).type).toBe('BOOK');
    expectText(epubText(await h.file(t.back!)));
  }, 300_000);
});

calibre.describe('bad input, bombs and limits', () => {
  let limited: Harness;
  calibre.beforeAll(async () => {
    limited = await startEngineHarness({ ARCHIVE_MAX_EXPANDED_BYTES: String(4_000_000), MAX_EBOOK_SECONDS: '1' });
  }, 120_000);
  afterAll(async () => {
    await limited?.close();
  });

  /** An EPUB's skeleton with `extra` entries (stored with fflate; none of them inflated by the engine before its check). */
  const epubWith = (extra: Record<string, Uint8Array>) =>
    Buffer.from(zipSync({ mimetype: [new TextEncoder().encode('application/epub+zip'), { level: 0 }], 'META-INF/container.xml': new Uint8Array(0), ...extra }));

  calibre.it('refuses an option value outside its allowlist at creation, naming the field', async () => {
    const fields = async (task: Record<string, unknown>) => {
      try {
        await h.run({ src: base64(outputs.epub ?? Buffer.alloc(1), 'b.epub'), t: { operation: 'convert', input: 'src', output_format: 'mobi', ...task } });
      } catch (err) {
        if (err instanceof ApiError) return Object.keys(err.fields ?? {});
        throw err;
      }
      throw new Error('expected a 422');
    };
    expect(await fields({ output_profile: '--debug-pipeline=/tmp/x' })).toEqual(['tasks.t.output_profile']);
    expect(await fields({ base_font_size: 4000 })).toEqual(['tasks.t.base_font_size']);
    expect(await fields({ base_font_size: '12; rm -rf /' })).toEqual(['tasks.t.base_font_size']);
  });

  calibre.it('runs with the allowlisted options (a profile and a base font size) on its command line', async () => {
    const t = await h.run({ src: base64(outputs.epub!, 'b.epub'), t: convert('src', 'azw3', { output_profile: 'kindle_pw3', base_font_size: 14 }) });
    ok(t.t);
    expectText(mobiBook(await h.file(t.t!)).text);
  });

  calibre.it('refuses a zip bomb before calibre opens it: by the declared total and by the expansion ratio', async () => {
    const zeros = new Uint8Array(64 * 2 ** 20);
    const t = await limited.run({
      // 8 MB declared, past the 4 MB set here.
      big: base64(epubWith({ 'OEBPS/a.xhtml': new Uint8Array(8_000_000) }), 'big.epub'),
      bigOut: convert('big', 'mobi'),
    });
    expect(t.bigOut).toMatchObject({ status: 'error', code: 'ARCHIVE_TOO_LARGE' });
    expect(t.bigOut!.message).toContain('ARCHIVE_MAX_EXPANDED_BYTES');
    // 64 MiB of zeros in about 64 KB: over the default ratio of 200.
    const r = await h.run({ bomb: base64(epubWith({ 'OEBPS/a.xhtml': zeros }), 'bomb.epub'), out: convert('bomb', 'mobi') });
    expect(r.out).toMatchObject({ status: 'error', code: 'ARCHIVE_TOO_LARGE' });
    expect(r.out!.message).toContain('ARCHIVE_MAX_RATIO');
  }, 120_000);

  calibre.it('refuses an EPUB whose entry names leave their folder', async () => {
    const t = await h.run({ slip: base64(epubWith({ '../../escape.xhtml': new TextEncoder().encode('<p>x</p>') }), 'slip.epub'), out: convert('slip', 'mobi') });
    expect(t.out).toMatchObject({ status: 'error', code: 'UNSAFE_ARCHIVE' });
  });

  calibre.it('ends a damaged file or a file that is not a zip with a task error, not a crash', async () => {
    const t = await h.run({
      mobi: base64(Buffer.from('BOOKMOBI but nothing a reader could open'), 'broken.mobi'),
      mobiOut: convert('mobi', 'epub'),
      epub: base64(Buffer.from('not a zip at all'), 'broken.epub'),
      epubOut: convert('epub', 'mobi'),
    });
    expect(t.mobiOut).toMatchObject({ status: 'error', code: 'CONVERSION_FAILED' });
    expect(t.epubOut).toMatchObject({ status: 'error', code: 'INVALID_INPUT' });
  });

  calibre.it('stops a conversion at MAX_EBOOK_SECONDS', async () => {
    // About 2 MB of text: calibre takes some 4 s over it (300 KB took 0.9 s, too near the limit set
    // here, one second, on a fast machine), so the limit stops it.
    const paragraphs = Array.from({ length: 4000 }, (_, i) => `${FIRST} ${i}. ${SECOND.repeat(12)}`).join('\n\n');
    const t = await limited.run({ src: base64(Buffer.from(paragraphs), 'long.txt'), out: convert('src', 'epub') });
    expect(t.out).toMatchObject({ status: 'error', code: 'CONVERSION_FAILED' });
    expect(t.out!.message).toContain('MAX_EBOOK_SECONDS');
  }, 120_000);
});
