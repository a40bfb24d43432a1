/**
 * The pdfjs engine's child program: pdf.js reads the PDF in a confined `node` process (extract.ts runs
 * it through runTool), so that a hostile PDF never reaches the worker's own process. Its one argument
 * is the JSON of a `PdfjsJob`. It opens the document, refuses it past `maxPages` (the page tree's
 * count, read before any page), and writes, for the selected pages, the text pdf.js finds: runs of
 * text with their position on the page (top-down, rotation applied), width and font size. Runs that
 * continue each other on one baseline are merged here, so that a PDF placing each glyph on its own
 * gives a file of words, not of glyphs; past `maxChars` characters or `maxRuns` runs it stops.
 *
 * pdf.js fetches nothing: the data is given as bytes, fonts come from the package's own folder, no
 * font is evaluated as code (`isEvalSupported: false`), no script runs (no XFA, no scripting), and the
 * process has no network anyway.
 *
 * Exit codes (with one line `pdfjs: <why>` on stderr): `UNREADABLE` the PDF cannot be opened,
 * `ENCRYPTED` it needs a password, `TOO_MANY_PAGES` (the count on stderr), `TOO_MUCH_TEXT`.
 */
export const EXIT = { UNREADABLE: 65, ENCRYPTED: 66, TOO_MANY_PAGES: 67, TOO_MUCH_TEXT: 68 } as const;

export interface PdfjsJob {
  input: string;
  output: string;
  module: string;
  standardFonts: string;
  cmaps: string;
  maxPages: number;
  /** The page numbers to read (those past the document's end are ignored); null: all. */
  pages: number[] | null;
  maxChars: number;
  maxRuns: number;
}

export const CHILD = `
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const job = JSON.parse(process.argv[process.argv.length - 1]);
const stop = (code, why) => {
  process.stderr.write('pdfjs: ' + String(why).replace(/\\s+/g, ' ').slice(0, 300) + '\\n');
  process.exit(code);
};
// pdf.js's Node build wants the canvas classes of @napi-rs/canvas as it loads, for rendering; text
// needs none of them: stand-ins that hold a matrix and draw nothing (no native package to ship).
globalThis.DOMMatrix ??= class DOMMatrix {
  constructor(m = [1, 0, 0, 1, 0, 0]) {
    [this.a, this.b, this.c, this.d, this.e, this.f] = m;
  }
};
globalThis.ImageData ??= class ImageData {};
globalThis.Path2D ??= class Path2D {};
const pdfjs = await import(pathToFileURL(job.module).href);
let doc;
try {
  doc = await pdfjs.getDocument({
    data: new Uint8Array(readFileSync(job.input)),
    standardFontDataUrl: job.standardFonts,
    cMapUrl: job.cmaps,
    cMapPacked: true,
    useSystemFonts: false,
    disableFontFace: true,
    isEvalSupported: false,
    enableXfa: false,
    verbosity: 0,
  }).promise;
} catch (err) {
  if (err && err.name === 'PasswordException') stop(${EXIT.ENCRYPTED}, 'it is encrypted');
  stop(${EXIT.UNREADABLE}, (err && err.message) || err);
}
const count = doc.numPages;
if (count > job.maxPages) stop(${EXIT.TOO_MANY_PAGES}, count);
const numbers = job.pages ? job.pages.filter((n) => n >= 1 && n <= count) : Array.from({ length: count }, (_, i) => i + 1);
const round = (v) => Math.round(v * 100) / 100;
let chars = 0;
let runs = 0;
const pages = [];
for (const n of numbers) {
  let page;
  try {
    page = await doc.getPage(n);
  } catch (err) {
    stop(${EXIT.UNREADABLE}, 'page ' + n + ': ' + ((err && err.message) || err));
  }
  const view = page.getViewport({ scale: 1 });
  const content = await page.getTextContent();
  const out = [];
  for (const item of content.items) {
    if (typeof item.str !== 'string') continue;
    const [a, b, c, d, x, y] = pdfjs.Util.transform(view.transform, item.transform);
    const size = Math.hypot(c, d) || Math.hypot(a, b) || item.height || 0;
    const last = out[out.length - 1];
    // The same baseline, starting where the last run ended: one run.
    if (last && !last[5] && Math.abs(last[2] - y) < 0.01 * size + 0.01 && Math.abs(last[4] - size) < 0.01 && Math.abs(last[1] + last[3] - x) < 0.1 * size) {
      last[0] += item.str;
      last[3] = round(x + item.width - last[1]);
      last[5] = item.hasEOL ? 1 : 0;
    } else {
      out.push([item.str, round(x), round(y), round(item.width), round(size), item.hasEOL ? 1 : 0]);
      runs++;
    }
    chars += item.str.length;
    if (chars > job.maxChars || runs > job.maxRuns) stop(${EXIT.TOO_MUCH_TEXT}, 'more than ' + job.maxChars + ' characters or ' + job.maxRuns + ' runs of text');
  }
  pages.push({ n, width: round(view.width), height: round(view.height), runs: out });
  page.cleanup();
}
writeFileSync(job.output, JSON.stringify({ count, pages }));
await doc.destroy();
`;
