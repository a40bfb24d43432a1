/**
 * Markup and text on pandoc (Debian's pandoc 2.17) and, without it, Markdown on marked and Chromium:
 * every input format from a file written here, converted to DOCX and read back with mammoth; every
 * output format made from one Markdown file and read by something other than pandoc (an XML or HTML
 * parse, jszip, mammoth, marked, pdf.js, or the format's own structure); and the links a document
 * holds (local paths, includes, remote images) reaching neither a loopback server nor a file outside
 * the task's folder.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import JSZip from 'jszip';
import { handmadeEpub } from '../support/ebook-writers.js';
import mammoth from 'mammoth';
import { marked } from 'marked';
import { DOMParser } from '@xmldom/xmldom';
import { Document, ImageRun, Packer, Paragraph, HeadingLevel, TextRun } from 'docx';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeBrowser } from '#lib/engines/chrome/browser.js';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { newEngineRegistry, setEngineRegistry } from '#lib/file-api/operations/engines.js';
import { pdfText } from '../support/pdf-text.js';
import { engine, requires } from '../support/requires.js';
import { NO_SYSTEM_TOOLS } from '../support/fresh-machine.js';
import { base64, startEngineHarness, type Harness } from './engines-harness.js';

const TEXT = 'Bravo charlie delta.';
const XML_TEXT = (xml: string) => {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  return (doc.documentElement?.textContent ?? '').replace(/\s+/g, ' ');
};
const HTML_TEXT = (html: string) => (new DOMParser().parseFromString(html, 'text/html').documentElement?.textContent ?? '').replace(/\s+/g, ' ');

/** One source per input format pandoc reads, each holding the heading "Alpha" and the paragraph TEXT. */
const SOURCES: Record<string, string> = {
  md: `# Alpha\n\n${TEXT}\n`,
  rst: `Alpha\n=====\n\n${TEXT}\n`,
  tex: `\\documentclass{article}\n\\begin{document}\n\\section{Alpha}\n${TEXT}\n\\end{document}\n`,
  org: `* Alpha\n\n${TEXT}\n`,
  textile: `h1. Alpha\n\n${TEXT}\n`,
  html: `<!doctype html><html><body><h1>Alpha</h1><p>${TEXT}</p></body></html>`,
  mediawiki: `= Alpha =\n\n${TEXT}\n`,
  dokuwiki: `====== Alpha ======\n\n${TEXT}\n`,
  creole: `= Alpha\n\n${TEXT}\n`,
  jira: `h1. Alpha\n\n${TEXT}\n`,
  dbk: `<?xml version="1.0"?><article xmlns="http://docbook.org/ns/docbook" version="5.0"><section><title>Alpha</title><para>${TEXT}</para></section></article>`,
  jats: `<?xml version="1.0"?><article><body><sec><title>Alpha</title><p>${TEXT}</p></sec></body></article>`,
  opml: `<?xml version="1.0"?><opml version="2.0"><head><title>Outline</title></head><body><outline text="Alpha" _note="${TEXT}"/></body></opml>`,
  ipynb: JSON.stringify({ cells: [{ cell_type: 'markdown', metadata: {}, source: [`# Alpha\n`, `\n`, TEXT] }], metadata: {}, nbformat: 4, nbformat_minor: 5 }),
  t2t: `Title\nAuthor\n\n= Alpha =\n\n${TEXT}\n`,
  muse: `* Alpha\n\n${TEXT}\n`,
  twiki: `---+ Alpha\n\n${TEXT}\n`,
  tikiwiki: `! Alpha\n\n${TEXT}\n`,
  vimwiki: `= Alpha =\n\n${TEXT}\n`,
  fb2: `<?xml version="1.0" encoding="UTF-8"?><FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0"><description><title-info><book-title>Book</book-title></title-info></description><body><section><title><p>Alpha</p></title><p>${TEXT}</p></section></body></FictionBook>`,
  man: `.TH TOOL 1\n.SH Alpha\n${TEXT}\n`,
  rtf: `{\\rtf1\\ansi\\deff0 {\\fonttbl {\\f0 Times;}}\\f0 Alpha\\par ${TEXT}\\par}`,
};

/** A minimal ODF text document and EPUB 3 book, written by hand (no engine makes them). */
async function odt(): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('mimetype', 'application/vnd.oasis.opendocument.text', { compression: 'STORE' });
  zip.file(
    'META-INF/manifest.xml',
    '<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/></manifest:manifest>',
  );
  // pandoc's reader wants a styles part, even an empty one.
  zip.file('styles.xml', '<?xml version="1.0"?><office:document-styles xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" office:version="1.2"><office:styles/></office:document-styles>');
  zip.file(
    'content.xml',
    `<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:text><text:h text:outline-level="1">Alpha</text:h><text:p>${TEXT}</text:p></office:text></office:body></office:document-content>`,
  );
  return zip.generateAsync({ type: 'nodebuffer' });
}

const epub = (chapter = `<h1>Alpha</h1><p>${TEXT}</p>`) => handmadeEpub({ title: 'Book', chapter, identifier: '0' });

async function docx(image?: Buffer): Promise<Buffer> {
  const children = [new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun('Alpha')] }), new Paragraph({ children: [new TextRun(TEXT)] })];
  if (image) children.push(new Paragraph({ children: [new ImageRun({ type: 'png', data: image, transformation: { width: 20, height: 20 } })] }));
  return Packer.toBuffer(new Document({ sections: [{ children }] }));
}

const docxText = async (bytes: Buffer) => (await mammoth.extractRawText({ buffer: bytes })).value.replace(/\s+/g, ' ');

/** The text of a zip package's parts whose names match. */
async function zipText(bytes: Buffer, part: RegExp, read = XML_TEXT): Promise<string> {
  const zip = await JSZip.loadAsync(bytes);
  const names = Object.keys(zip.files).filter((n) => part.test(n));
  return (await Promise.all(names.map(async (n) => read(await zip.file(n)!.async('string'))))).join(' ');
}

/** Each output format read back without pandoc: its text, with its structure checked on the way. */
const READERS: Record<string, (bytes: Buffer) => Promise<string> | string> = {
  md: (b) => HTML_TEXT(`<div>${marked.parse(b.toString('utf8'), { async: false })}</div>`),
  html: (b) => {
    expect(b.toString('utf8')).toMatch(/<h1[^>]*>Alpha<\/h1>/);
    return HTML_TEXT(b.toString('utf8'));
  },
  docx: docxText,
  odt: (b) => zipText(b, /^content\.xml$/),
  epub: async (b) => {
    expect((await JSZip.loadAsync(b)).file('mimetype')).toBeTruthy();
    return zipText(b, /\.xhtml$/);
  },
  pptx: async (b) => {
    const slides = Object.keys((await JSZip.loadAsync(b)).files).filter((n) => /^ppt\/slides\/slide\d+\.xml$/.test(n));
    expect(slides.length).toBeGreaterThan(0);
    return zipText(b, /^ppt\/slides\/slide\d+\.xml$/);
  },
  rst: (b) => (expect(b.toString()).toMatch(/^Alpha\n=+$/m), b.toString()),
  tex: (b) => (expect(b.toString()).toMatch(/\\begin\{document\}[\s\S]*\\section\{Alpha\}[\s\S]*\\end\{document\}/), b.toString()),
  org: (b) => (expect(b.toString()).toMatch(/^\* Alpha$/m), b.toString()),
  textile: (b) => (expect(b.toString()).toMatch(/^h1(\([^)]*\))?\. Alpha$/m), b.toString()),
  mediawiki: (b) => (expect(b.toString()).toMatch(/^= Alpha =$/m), b.toString()),
  dokuwiki: (b) => (expect(b.toString()).toMatch(/^====== Alpha ======$/m), b.toString()),
  jira: (b) => (expect(b.toString()).toMatch(/^h1\. (\{anchor:alpha\})?Alpha$/m), b.toString()),
  adoc: (b) => (expect(b.toString()).toMatch(/^==? Alpha$/m), b.toString()),
  muse: (b) => (expect(b.toString()).toMatch(/^\* Alpha$/m), b.toString()),
  man: (b) => (expect(b.toString()).toMatch(/^\.SH ALPHA$/im), b.toString()),
  ms: (b) => (expect(b.toString()).toMatch(/^\.SH 1\nAlpha$/m), b.toString()),
  texi: (b) => (expect(b.toString()).toMatch(/^\\input texinfo[\s\S]*@(chapter|section|unnumbered) Alpha[\s\S]*@bye/m), b.toString()),
  rtf: (b) => (expect(b.toString()).toMatch(/^\{\\rtf1/), b.toString()),
  txt: (b) => b.toString(),
  dbk: (b) => XML_TEXT(b.toString()),
  jats: (b) => XML_TEXT(b.toString()),
  opml: (b) => {
    const outline = new DOMParser().parseFromString(b.toString(), 'text/xml').getElementsByTagName('outline')[0];
    return `${outline?.getAttribute('text')} ${outline?.getAttribute('_note')}`;
  },
  ipynb: (b) => (JSON.parse(b.toString()) as { cells: Array<{ source: string | string[] }> }).cells.map((c) => [c.source].flat().join('')).join(' '),
  fb2: (b) => XML_TEXT(b.toString()),
  icml: (b) => XML_TEXT(b.toString()),
};

let h: Harness;
let work: string;
let hits: string[];
let loopback: http.Server;
let port: number;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'markup-'));
  hits = [];
  loopback = http.createServer((req, res) => (hits.push(req.url!), res.end('GIF89a')));
  await new Promise<void>((resolve) => loopback.listen(0, '127.0.0.1', () => resolve()));
  port = (loopback.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => loopback.close(() => resolve()));
  rmSync(work, { recursive: true, force: true });
});

async function convert(bytes: Buffer | string, filename: string, output: string, extra: Record<string, unknown> = {}) {
  const tasks = await h.run({
    in: base64(Buffer.from(bytes), filename),
    out: { operation: 'convert', input: 'in', output_format: output, ...extra },
  });
  const out = tasks.out!;
  if (out.status !== 'finished') throw new Error(`${filename} → ${output}: ${out.code} ${out.message}`);
  return { task: out, bytes: await h.file(out) };
}

const pandoc = requires(engine('pandoc'));

pandoc.describe('pandoc', () => {
  pandoc.beforeAll(async () => {
    h = await startEngineHarness();
  });
  afterAll(async () => h?.close());

  for (const [format, source] of Object.entries(SOURCES)) {
    it(`reads ${format}`, async () => {
      const { bytes } = await convert(source, `doc.${format}`, 'docx', { engine: 'pandoc' });
      const text = await docxText(bytes);
      expect(text).toContain('Alpha');
      expect(text).toContain(TEXT);
    });
  }
  it('reads odt and epub', async () => {
    for (const [bytes, name] of [[await odt(), 'doc.odt'], [await epub(), 'book.epub']] as const) {
      const text = await docxText((await convert(bytes, name, 'docx', { engine: 'pandoc' })).bytes);
      expect(text).toContain(TEXT);
    }
  });

  const md = `---\ntitle: Report\n---\n\n# Alpha\n\n${TEXT}\n\n- one\n- two\n`;
  for (const [format, read] of Object.entries(READERS)) {
    it(`writes ${format}`, async () => {
      const { task, bytes } = await convert(md, 'report.md', format, { engine: 'pandoc' });
      expect(task.result!.files![0]!.filename).toBe(`report.${format}`);
      const text = (await read(bytes)).replace(/\s+/g, ' ');
      expect(text).toMatch(/Alpha|ALPHA/);
      expect(text).toContain(TEXT);
    });
  }

  it('acceptance: MD → DOCX and DOCX → MD keep the text (DOCX from the docx package, MD read by marked)', async () => {
    const fromMd = await convert(`# Alpha\n\n${TEXT}\n\n1. first\n2. second\n`, 'a.md', 'docx');
    expect(fromMd.task.engine).toBe('pandoc');
    expect(await docxText(fromMd.bytes)).toMatch(/Alpha.*Bravo charlie delta\..*first.*second/);
    const toMd = await convert(await docx(), 'a.docx', 'md');
    expect(toMd.task.engine).toBe('pandoc');
    const tokens = marked.lexer(toMd.bytes.toString('utf8'));
    expect(tokens.find((t) => t.type === 'heading')).toMatchObject({ depth: 1, text: 'Alpha' });
    expect(tokens.find((t) => t.type === 'paragraph')).toMatchObject({ text: TEXT });
  });

  it('a file that is not what its format says is a task error with a code, never a crash', async () => {
    const cases: Array<[Buffer, string]> = [
      [Buffer.from('not a zip at all'), 'broken.docx'],
      [Buffer.from('{"cells": [1, 2'), 'broken.ipynb'],
      [(await docx()).subarray(0, 200), 'cut.docx'],
    ];
    for (const [bytes, filename] of cases) {
      const tasks = await h.run({ in: base64(bytes, filename), out: { operation: 'convert', input: 'in', output_format: 'md', engine: 'pandoc' } });
      expect(tasks.out, filename).toMatchObject({ status: 'error', code: 'INVALID_INPUT' });
      expect(tasks.out!.message).toContain(filename);
    }
  });

  it('keeps the images a document carries inside it (DOCX → ODT, DOCX → EPUB)', async () => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c00' } }).png().toBuffer();
    for (const [format, media] of [['odt', /^Pictures\//], ['epub', /media\//]] as const) {
      const { bytes } = await convert(await docx(png), 'pic.docx', format, { engine: 'pandoc' });
      const parts = Object.keys((await JSZip.loadAsync(bytes)).files).filter((n) => media.test(n) && !n.endsWith('/'));
      expect(parts.length, format).toBe(1);
    }
  });
});

/**
 * Links, with the confinement this machine gives (bubblewrap: no network, no file outside the task) and
 * with none at all (ENGINE_CONFINEMENT=none): then only pandoc's --sandbox and the document tree its
 * writers get hold, as in the office function in Lambda, where the platform is the only confinement.
 */
for (const [label, settings] of [
  ['as confined here', {}],
  ['without confinement (the engine’s own defences)', { ENGINE_CONFINEMENT: 'none' }],
] as const) {
  pandoc.describe(`pandoc links, ${label}`, () => {
    pandoc.beforeAll(async () => {
      h = await startEngineHarness(settings);
    });
    afterAll(async () => h?.close());
    /** A file outside every task's folder, which no output may hold. */
    let secret: string;
    const MARK = 'SECRET-MARK-7d1f';
    beforeAll(async () => {
      secret = path.join(work, 'secret.png');
      // A real PNG with the mark in a text chunk: what an engine would embed as an image.
      writeFileSync(secret, await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } }).png().withMetadata({ exif: { IFD0: { ImageDescription: MARK } } }).toBuffer());
      writeFileSync(path.join(work, 'secret.tex'), `${MARK}\n`);
      writeFileSync(path.join(work, 'secret.txt'), `${MARK}\n`);
    });

    /** Every part of a zip package, as text, and the names of its media. */
    async function unzip(bytes: Buffer) {
      const zip = await JSZip.loadAsync(bytes);
      const names = Object.keys(zip.files).filter((n) => !n.endsWith('/'));
      const all = (await Promise.all(names.map((n) => zip.file(n)!.async('nodebuffer')))).map((b) => b.toString('latin1')).join('\n');
      return { all, media: names.filter((n) => /(^|\/)(media|Pictures)\//.test(n)) };
    }

    it('Markdown, HTML and raw HTML images (local paths, ../, file://, loopback) are neither fetched nor embedded in DOCX, ODT or EPUB', async () => {
      // Enough `../` to climb from any task folder to the root, then down to the file.
      const relative = `${'../'.repeat(16)}${secret.slice(1)}`;
      const md = [
        '# Links',
        `![abs](${secret}) ![up](${relative}) ![file](file://${secret}) ![remote](http://127.0.0.1:${port}/md.png)`,
        `<img src="http://127.0.0.1:${port}/raw.png"> <img src="${secret}">`,
        TEXT,
      ].join('\n\n');
      const html = `<html><body><p>${TEXT}</p><img src="http://127.0.0.1:${port}/html.png"><img src="${secret}"><img src="file://${secret}"></body></html>`;
      for (const [source, name] of [[md, 'links.md'], [html, 'links.html']] as const) {
        for (const format of ['docx', 'odt', 'epub']) {
          const { bytes } = await convert(source, name, format, { engine: 'pandoc' });
          const { all, media } = await unzip(bytes);
          expect(media, `${name} → ${format}`).toEqual([]);
          expect(all).not.toContain(MARK);
          expect(all).toContain(TEXT);
        }
      }
      expect(hits).toEqual([]);
    });

    it('includes (LaTeX \\input and \\include, reStructuredText include, Org #+INCLUDE) read nothing outside the task', async () => {
      const base = path.join(work, 'secret');
      const sources: Record<string, string> = {
        tex: `\\documentclass{article}\\begin{document}${TEXT} \\input{${base}} \\include{${base}}\\end{document}`,
        rst: `${TEXT}\n\n.. include:: ${base}.txt\n\n.. image:: ${secret}\n`,
        org: `${TEXT}\n\n#+INCLUDE: "${base}.txt"\n`,
      };
      for (const [format, source] of Object.entries(sources)) {
        for (const output of ['docx', 'html']) {
          const { bytes } = await convert(source, `inc.${format}`, output, { engine: 'pandoc' });
          const text = output === 'docx' ? (await unzip(bytes)).all : bytes.toString();
          expect(text, `${format} → ${output}`).toContain(TEXT);
          expect(text, `${format} → ${output}`).not.toContain(MARK);
        }
      }
    });

    it('an EPUB or DOCX linking a remote image and a file outside the task embeds neither', async () => {
      const book = await epub(`<p>${TEXT}</p><img src="http://127.0.0.1:${port}/epub.png" alt="r"/><img src="${secret}" alt="s"/>`);
      for (const format of ['docx', 'odt']) {
        const { bytes } = await convert(book, 'linked.epub', format, { engine: 'pandoc' });
        const { all, media } = await unzip(bytes);
        expect(media).toEqual([]);
        expect(all).not.toContain(MARK);
      }
      expect(hits).toEqual([]);
    });
  });
}

describe('markdown without pandoc (a fresh machine: marked, and Chromium for PDF)', () => {
  let fresh: Harness;
  beforeAll(async () => {
    setEngineRegistry(newEngineRegistry(parseEngineConfig(NO_SYSTEM_TOOLS)));
    fresh = await startEngineHarness({ ...NO_SYSTEM_TOOLS });
  });
  afterAll(async () => {
    setEngineRegistry(undefined);
    await closeBrowser();
    await fresh?.close();
  });

  async function freshConvert(source: string, output: string) {
    const tasks = await fresh.run({ in: base64(Buffer.from(source), 'note.md'), out: { operation: 'convert', input: 'in', output_format: output } });
    const out = tasks.out!;
    if (out.status !== 'finished') throw new Error(`md → ${output}: ${out.code} ${out.message}`);
    return { task: out, bytes: await fresh.file(out) };
  }

  const source = () =>
    [
      '# Alpha',
      TEXT,
      '| Key | Value |\n|---|---|\n| echo | foxtrot |',
      `![remote](http://127.0.0.1:${port}/fresh.png) ![local](/etc/hostname) ![up](../../etc/hostname)`,
      `<img src="http://127.0.0.1:${port}/fresh-raw.png"><iframe src="http://127.0.0.1:${port}/frame"></iframe><script>fetch('http://127.0.0.1:${port}/script')</script>`,
      `<link rel="stylesheet" href="http://127.0.0.1:${port}/style.css">`,
    ].join('\n\n');

  it('Markdown → HTML: a standalone document, text kept, nothing that fetches', async () => {
    const { task, bytes } = await freshConvert(source(), 'html');
    expect(task.engine).toBe('markdown');
    const html = bytes.toString('utf8');
    const doc = new DOMParser().parseFromString(html, 'text/html');
    expect(doc.getElementsByTagName('h1')[0]?.textContent).toBe('Alpha');
    expect(doc.getElementsByTagName('td')[1]?.textContent).toBe('foxtrot');
    expect(HTML_TEXT(html)).toContain(TEXT);
    for (const tag of ['img', 'iframe', 'script', 'link']) expect(doc.getElementsByTagName(tag).length, tag).toBe(0);
  });

  it('acceptance: Markdown → PDF keeps the text and fetches nothing', async () => {
    const { task, bytes } = await freshConvert(source(), 'pdf');
    expect(task.engine).toBe('markdown');
    const text = await pdfText(bytes);
    expect(text).toContain('Alpha');
    expect(text).toContain(TEXT);
    expect(text).toContain('foxtrot');
    expect(hits).toEqual([]);
  });

  it('offers no pandoc format here: reStructuredText → DOCX ends as a task error naming rst and pandoc', async () => {
    // docx is produced here (pdf.js writes it from PDFs), so creation cannot refuse it: the input's format
    // is known once imported, and the task then says what reads rst.
    const tasks = await fresh.run({ in: base64(Buffer.from(SOURCES.rst!), 'doc.rst'), out: { operation: 'convert', input: 'in', output_format: 'docx' } });
    expect(tasks.out).toMatchObject({ status: 'error' });
    expect(tasks.out!.message).toMatch(/cannot read rst files.*pandoc would/s);
  });
});
