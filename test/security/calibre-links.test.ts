/**
 * calibre follows none of an e-book's links (issue 30, "Links"): an EPUB whose chapter, stylesheet
 * and manifest point at a loopback HTTP counter, at `file://` and at `../` paths of a secret folder
 * outside the task's, an HTMLZ, a Markdown-flavoured TXT, PML, DOCX, RTF and FB2 doing the same, converted to EPUB, MOBI,
 * PDF and TXT. No request reaches the counter, and no output holds the secret text or the secret
 * image (a magenta square, looked for in every image the outputs carry). Run fully confined (the
 * default here: bubblewrap) and unconfined (ENGINE_CONFINEMENT=none, what calibre does on its own,
 * which is what a platform-isolated function relies on).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import sharp from 'sharp';
import { afterAll, beforeAll, expect } from 'vitest';
import type { TaskRecord } from '#lib/file-api/records/model.js';
import { epubText, mobiBook, palmDatabase, zipEntries } from '../support/ebook-readers.js';
import { pdfImagePixels, pdfText } from '../support/pdf-text.js';
import { engine, requires } from '../support/requires.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { base64, startEngineHarness, type Harness } from '../integration/engines-harness.js';
import { docxWithLinkedImages } from '../fixtures/engine-fixtures.js';

const calibre = requires(engine('calibre'));
const SECRET_TEXT = 'TOPSECRET-ebook-5d2c1-host-only';

let receiver: Receiver;
let secretDir: string;
let secretPng: string;
let secretTxt: string;

beforeAll(async () => {
  receiver = await startReceiver();
  secretDir = mkdtempSync(path.join(tmpdir(), 'calibre-secret-'));
  secretTxt = path.join(secretDir, 'secret.txt');
  writeFileSync(secretTxt, `<p>${SECRET_TEXT}</p>\n`);
  secretPng = path.join(secretDir, 'secret.png');
  writeFileSync(secretPng, await sharp({ create: { width: 64, height: 64, channels: 3, background: '#ff00ff' } }).png().toBuffer());
});
afterAll(async () => {
  await receiver?.close();
  rmSync(secretDir, { recursive: true, force: true });
});

const url = (p: string) => `${receiver.url}${p}`;
/** A path from wherever the book is unpacked up to the root and down to `file`. */
const upTo = (file: string) => `${'../'.repeat(24)}${file.slice(1)}`;

/** Every way an EPUB can point outside itself: images, a stylesheet, CSS backgrounds and imports, manifest items, a spine entry. */
function linkedEpub(): Buffer {
  const chapter = `<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Links</title>
<link rel="stylesheet" type="text/css" href="${url('/epub/style.css')}"/>
<style type="text/css">@import url("${url('/epub/import.css')}"); p { background-image: url("${url('/epub/background.png')}"); } h1 { background-image: url("file://${secretPng}"); }</style></head>
<body><h1>Linked book</h1><p>Before the links</p>
<p><img src="${url('/epub/image.png')}" alt="remote"/></p>
<p><img src="file://${secretPng}" alt="file"/></p>
<p><img src="${upTo(secretPng)}" alt="up"/></p>
<p><a href="${upTo(secretTxt)}">a link</a></p>
<p>After the links</p></body></html>`;
  const opf = `<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="2.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Links</dc:title><dc:identifier id="id">links-1</dc:identifier><dc:language>en</dc:language></metadata>
<manifest><item id="c" href="chapter.xhtml" media-type="application/xhtml+xml"/>
<item id="remote" href="${url('/epub/manifest.png')}" media-type="image/png"/>
<item id="secret" href="${upTo(secretTxt)}" media-type="application/xhtml+xml"/>
<item id="secretImage" href="${upTo(secretPng)}" media-type="image/png"/>
<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/></manifest>
<spine toc="ncx"><itemref idref="c"/><itemref idref="secret"/></spine></package>`;
  const ncx = `<?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><head/><docTitle><text>Links</text></docTitle><navMap><navPoint id="n" playOrder="1"><navLabel><text>C</text></navLabel><content src="chapter.xhtml"/></navPoint></navMap></ncx>`;
  return Buffer.from(
    zipSync({
      mimetype: [strToU8('application/epub+zip'), { level: 0 }],
      'META-INF/container.xml': strToU8(
        '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>',
      ),
      'OEBPS/content.opf': strToU8(opf),
      'OEBPS/chapter.xhtml': strToU8(chapter),
      'OEBPS/toc.ncx': strToU8(ncx),
    }),
  );
}

/** An HTMLZ (a zipped web page) and a TXT in Markdown, with images and links to the loopback and to the secret folder. */
function linkedHtmlz(): Buffer {
  const page = `<html><head><link rel="stylesheet" href="${url('/htmlz/style.css')}"></head><body><p>Before the links</p><img src="${url('/htmlz/image.png')}"><img src="file://${secretPng}"><img src="${upTo(secretPng)}"><iframe src="${upTo(secretTxt)}"></iframe><a href="${upTo(secretTxt)}">a link</a><p>After the links</p></body></html>`;
  return Buffer.from(zipSync({ 'index.html': strToU8(page) }));
}
const linkedMarkdown = () =>
  Buffer.from(`# Linked notes\n\nBefore the links\n\n![remote](${url('/txt/image.png')})\n\n![file](file://${secretPng})\n\n![up](${upTo(secretPng)})\n\n[a link](${upTo(secretTxt)})\n\nAfter the links\n`);

/** Whether pixels hold the secret's magenta (more than a few of them). */
function magentaPixels(data: Uint8Array | Uint8ClampedArray, channels: number): boolean {
  let count = 0;
  for (let i = 0; i + 2 < data.length; i += channels) if (data[i]! > 200 && data[i + 1]! < 80 && data[i + 2]! > 200) count++;
  return count > 16;
}

/** Whether an image file holds the secret's magenta. */
async function magenta(image: Uint8Array): Promise<boolean> {
  try {
    const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    return magentaPixels(data, info.channels);
  } catch {
    return false;
  }
}

/** The text and the images of an output, by its format, each read without calibre. */
async function contents(format: string, file: Buffer): Promise<{ text: string; images: Uint8Array[] }> {
  if (format === 'epub') {
    const entries = zipEntries(file);
    return { text: epubText(file), images: Object.entries(entries).filter(([n]) => /\.(png|jpe?g|gif|webp|svg)$/i.test(n)).map(([, b]) => b) };
  }
  if (format === 'mobi') {
    // Image records follow the text: whatever a reader of PNG, JPEG or GIF recognises.
    const images = palmDatabase(file).records.filter((r) => /^(\x89PNG|\xff\xd8\xff|GIF8)/.test(r.subarray(0, 4).toString('latin1')));
    return { text: mobiBook(file).text, images };
  }
  if (format === 'pdf') return { text: await pdfText(file), images: [] };
  return { text: file.toString('utf8'), images: [] };
}

/** A PML book (Palm's markup) whose image tags name the secret image by `../` paths. */
const linkedPml = () => Buffer.from(`\\X0Linked\\X0\n\nBefore the links\n\n\\m="${upTo(secretPng)}"\n\n\\m="../../../../../../../../..${secretPng}"\n\nAfter the links\n`);

/** RTF fields that include a picture and a text file by path or URL. */
const linkedRtf = () =>
  Buffer.from(
    `{\\rtf1\\ansi{\\fonttbl{\\f0 Times;}}\\f0 Before the links\\par ` +
      `{\\field{\\*\\fldinst INCLUDEPICTURE "file://${secretPng}" \\\\d}{\\fldrslt }}\\par ` +
      `{\\field{\\*\\fldinst INCLUDEPICTURE "${url('/rtf/image.png')}" \\\\d}{\\fldrslt }}\\par ` +
      `{\\field{\\*\\fldinst INCLUDETEXT "${secretTxt}"}{\\fldrslt }}\\par After the links\\par}`,
  );
/** FictionBook whose images point outside the book instead of at its own binaries. */
const linkedFb2 = () =>
  Buffer.from(
    `<?xml version="1.0" encoding="utf-8"?><FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0" xmlns:l="http://www.w3.org/1999/xlink">` +
      `<description><title-info><book-title>Linked</book-title><lang>en</lang></title-info></description><body><section><p>Before the links</p>` +
      `<image l:href="file://${secretPng}"/><image l:href="${upTo(secretPng)}"/><image l:href="${url('/fb2/image.png')}"/><p>After the links</p></section></body></FictionBook>`,
  );

const OUTPUTS = ['epub', 'mobi', 'pdf', 'txt'] as const;
/** calibre converts documents (txt, docx, rtf) only to e-books. */
const outputsOf = (format: string) => OUTPUTS.filter((o) => o !== format && !(['txt', 'docx', 'rtf'].includes(format) && ['pdf', 'txt'].includes(o)));
const INPUTS: Record<string, () => Buffer | Promise<Buffer>> = {
  epub: linkedEpub,
  htmlz: linkedHtmlz,
  txt: linkedMarkdown,
  pml: linkedPml,
  rtf: linkedRtf,
  fb2: linkedFb2,
  // External image relationships, as the LibreOffice link tests use them.
  docx: () => docxWithLinkedImages(['Before the links', 'After the links'], [url('/docx/image.png'), `file://${secretPng}`, upTo(secretPng)]),
};

for (const level of ['auto', 'none'] as const) {
  calibre.describe(`calibre with ENGINE_CONFINEMENT=${level}: an e-book's links are neither fetched nor embedded`, () => {
    let h: Harness;
    let t: Record<string, TaskRecord>;
    calibre.beforeAll(async () => {
      h = await startEngineHarness({ ENGINE_CONFINEMENT: level });
      const tasks: Record<string, Record<string, unknown>> = {};
      for (const [format, make] of Object.entries(INPUTS)) {
        tasks[`in-${format}`] = base64(await make(), `links.${format}`);
        for (const out of outputsOf(format)) tasks[`${format}-${out}`] = { operation: 'convert', input: `in-${format}`, output_format: out, engine: 'calibre' };
      }
      t = await h.run(tasks);
    }, 600_000);
    afterAll(async () => {
      await h?.close();
    });

    for (const format of Object.keys(INPUTS)) {
      calibre.it(`${format.toUpperCase()} to ${outputsOf(format).join(', ')}: no request, no secret text, no secret image`, async () => {
        for (const out of outputsOf(format)) {
          const task = t[`${format}-${out}`]!;
          expect(task, JSON.stringify({ status: task.status, message: task.message })).toMatchObject({ status: 'finished', engine: 'calibre' });
          const file = await h.file(task);
          expect(file.includes(SECRET_TEXT), `${format} → ${out}: the secret's bytes`).toBe(false);
          const { text, images } = await contents(out, file);
          expect(text).toContain('After the links');
          expect(text).not.toContain(SECRET_TEXT);
          for (const image of images) expect(await magenta(image), `${format} → ${out}: an image holds the secret`).toBe(false);
          if (out === 'pdf') for (const image of await pdfImagePixels(file)) expect(magentaPixels(image.data, image.channels), `${format} → pdf: an image holds the secret`).toBe(false);
        }
        expect(receiver.requests.map((r) => r.path)).toEqual([]);
      });
    }
  });
}

calibre.describe('the checks above see an image that is embedded', () => {
  calibre.it('an EPUB carrying the magenta square itself: found in its EPUB, MOBI and PDF outputs', async () => {
    const h = await startEngineHarness();
    try {
      const page = '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>Inside</title></head><body><p>Before the links</p><p><img src="square.png" alt="inside"/></p><p>After the links</p></body></html>';
      const opf =
        '<?xml version="1.0" encoding="utf-8"?><package xmlns="http://www.idpf.org/2007/opf" version="2.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Inside</dc:title><dc:identifier id="id">inside-1</dc:identifier><dc:language>en</dc:language></metadata>' +
        '<manifest><item id="c" href="chapter.xhtml" media-type="application/xhtml+xml"/><item id="i" href="square.png" media-type="image/png"/></manifest><spine><itemref idref="c"/></spine></package>';
      const epub = zipSync({
        mimetype: [strToU8('application/epub+zip'), { level: 0 }],
        'META-INF/container.xml': strToU8('<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>'),
        'content.opf': strToU8(opf),
        'chapter.xhtml': strToU8(page),
        'square.png': new Uint8Array(await sharp({ create: { width: 64, height: 64, channels: 3, background: '#ff00ff' } }).png().toBuffer()),
      });
      const t = await h.run({
        in: base64(Buffer.from(epub), 'inside.epub'),
        epub: { operation: 'convert', input: 'in', output_format: 'epub' },
        mobi: { operation: 'convert', input: 'in', output_format: 'mobi' },
        pdf: { operation: 'convert', input: 'in', output_format: 'pdf' },
      });
      for (const out of ['epub', 'mobi'] as const) {
        const { images } = await contents(out, await h.file(t[out]!));
        expect((await Promise.all(images.map(magenta))).some(Boolean), out).toBe(true);
      }
      expect((await pdfImagePixels(await h.file(t.pdf!))).some((i) => magentaPixels(i.data, i.channels))).toBe(true);
    } finally {
      await h.close();
    }
  }, 300_000);
});
