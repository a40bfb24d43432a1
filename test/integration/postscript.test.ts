/**
 * PostScript through Ghostscript (lib/engines/pdf/postscript.ts): EPS, PS and AI drawn in the test
 * converted to PNG, JPG, WebP, TIFF (read back by sharp) and PDF (read by pdfjs-dist), PDF to PS and
 * EPS, and hostile programs (reading /etc/passwd, `%pipe%`, a loop) refused without a leak. Each with
 * the system gs where installed and with the WebAssembly build on a PATH holding only node, as on a
 * fresh machine.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument, rgb } from 'pdf-lib';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_VERSIONS } from '#lib/engines/core/catalog.js';
import { ghostscriptWasm } from '#lib/engines/core/shipped.js';
import { resetProbes } from '#lib/engines/core/probe.js';
import type { PdfArgs } from '#lib/engines/pdf/ghostscript.js';
import { ghostscriptConvert } from '#lib/engines/pdf/postscript.js';
import { discover } from '#lib/file-api/operations/discovery.js';
import { newEngineRegistry } from '#lib/file-api/operations/engines.js';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { engineCall, type HandCall, type TestInput } from '../support/engine-call.js';
import { optionalBuild, tool } from '../support/requires.js';

/** A PostScript document of `pages` pages, 200 × 100 pt, each a filled box (red, then blue…). */
function boxes(pages: number): Buffer {
  const page = (n: number) =>
    `%%Page: ${n} ${n}\n<< /PageSize [200 100] >> setpagedevice\n${n % 2 ? '1 0 0' : '0 0 1'} setrgbcolor\n20 20 moveto 180 20 lineto 180 80 lineto 20 80 lineto closepath fill\nshowpage\n`;
  return Buffer.from(`%!PS-Adobe-3.0\n%%Pages: ${pages}\n${Array.from({ length: pages }, (_, i) => page(i + 1)).join('')}%%EOF\n`);
}
/** An EPS whose bounding box (100 × 50 pt, away from the origin) is what is drawn. */
const EPS = Buffer.from('%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 10 10 110 60\n0 0.5 0 setrgbcolor\n10 10 moveto 110 10 lineto 110 60 lineto 10 60 lineto closepath fill\nshowpage\n%%EOF\n');

const HOSTILE = {
  'reads /etc/passwd': '%!PS\n(/etc/passwd) (r) file 4000 string readstring pop print flush\n0 0 moveto (x) show showpage\n',
  'opens a %pipe%': '%!PS\n(%pipe%id > marker-pwned) (w) file closefile\nshowpage\n',
  'reads a file beside it': '%!PS\n(../in/0-secret.txt) (r) file 100 string readstring pop print flush\nshowpage\n',
};

type Variant = 'system' | 'wasm';

function suite(variant: Variant) {
  const calls: HandCall<PdfArgs>[] = [];
  let savedPath: string | undefined;
  let freshBin: string | undefined;
  beforeAll(() => {
    if (variant !== 'wasm') return;
    // A fresh machine: node on PATH and nothing else (no gs, qpdf, bwrap).
    freshBin = mkdtempSync(path.join(tmpdir(), 'freshbin-'));
    symlinkSync(process.execPath, path.join(freshBin, 'node'));
    savedPath = process.env.PATH;
    process.env.PATH = freshBin;
    resetProbes();
  });
  afterAll(() => {
    for (const c of calls) c.remove();
    if (variant !== 'wasm') return;
    process.env.PATH = savedPath;
    resetProbes();
    rmSync(freshBin!, { recursive: true, force: true });
  });

  async function convert(data: Buffer, format: string, payload: PdfArgs, extra: TestInput[] = [], env: Record<string, string> = {}) {
    const fresh: Record<string, string> = variant === 'wasm' ? { GHOSTSCRIPT_PATH: '/nonexistent/gs', QPDF_PATH: '/nonexistent/qpdf' } : {};
    const c = engineCall<PdfArgs>('ghostscript', 'convert', payload, [{ filename: `drawing.${format}`, data, format }, ...extra], { ...fresh, ...env });
    calls.push(c);
    if (variant === 'wasm') c.call.choice = { ...c.call.choice, version: BUNDLED_VERSIONS.ghostscriptWasm, installed: { version: BUNDLED_VERSIONS.ghostscriptWasm, executable: ghostscriptWasm()!.file, variant: 'wasm' } };
    return { c, result: await ghostscriptConvert(c.call) };
  }

  it.each(['png', 'jpg', 'webp', 'tiff'])('PS to %s: one image per page, in page order, that sharp reads', async (to) => {
    const { result } = await convert(boxes(2), 'ps', { output_format: to, density: 72 });
    expect(result.files.map((f) => f.filename)).toEqual([`drawing-1.${to}`, `drawing-2.${to}`]);
    for (const [i, file] of result.files.entries()) {
      const { data, info } = await sharp(file.path).raw().toBuffer({ resolveWithObject: true });
      expect([info.width, info.height]).toEqual([200, 100]);
      const centre = (50 * 200 + 100) * info.channels;
      const [r, , b] = [data[centre]!, data[centre + 1]!, data[centre + 2]!];
      // Page 1 red, page 2 blue; the corner is white paper.
      expect(i === 0 ? r > 200 && b < 60 : b > 200 && r < 60).toBe(true);
      expect(data[0]!).toBeGreaterThan(230);
    }
  });

  it('EPS is drawn on its bounding box, at the density asked', async () => {
    const { result } = await convert(EPS, 'eps', { output_format: 'png', density: 144 });
    const { data, info } = await sharp(result.files[0]!.path).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([200, 100]);
    // Green everywhere, corners included: the box is the whole picture.
    expect([data[1]! > 100, data[0]! < 60]).toEqual([true, true]);
  });

  it('PS and EPS to PDF, read by pdfjs-dist: its pages and their sizes', async () => {
    const ps = await convert(boxes(3), 'ps', { output_format: 'pdf' });
    const doc = await getDocument({ data: new Uint8Array(readFileSync(ps.result.files[0]!.path)) }).promise;
    expect(doc.numPages).toBe(3);
    expect((await doc.getPage(1)).view).toEqual([0, 0, 200, 100]);
    const eps = await convert(EPS, 'eps', { output_format: 'pdf' });
    const epsDoc = await getDocument({ data: new Uint8Array(readFileSync(eps.result.files[0]!.path)) }).promise;
    const [, , w, h] = (await epsDoc.getPage(1)).view;
    expect([Math.round(w! - (await epsDoc.getPage(1)).view[0]!), Math.round(h! - (await epsDoc.getPage(1)).view[1]!)]).toEqual([100, 50]);
  });

  it('AI that is PostScript and AI that is a PDF both convert (pages chosen)', async () => {
    const postscript = await convert(boxes(3), 'ai', { output_format: 'png', density: 72, pages: '2-3' });
    expect(postscript.result.files).toHaveLength(2);
    const pdf = await PDFDocument.create();
    for (const colour of [rgb(1, 0, 0), rgb(0, 0, 1)]) pdf.addPage([200, 100]).drawRectangle({ x: 0, y: 0, width: 200, height: 100, color: colour });
    const fromPdf = await convert(Buffer.from(await pdf.save()), 'ai', { output_format: 'jpg', density: 72, pages: '2' });
    expect(fromPdf.result.files).toHaveLength(1);
    const { data } = await sharp(fromPdf.result.files[0]!.path).raw().toBuffer({ resolveWithObject: true });
    expect(data[2]!).toBeGreaterThan(200);
  });

  it('PDF to PS (every page) and EPS (the first page asked for), as their DSC headers say', async () => {
    const pdf = await PDFDocument.create();
    for (let i = 0; i < 3; i++) pdf.addPage([300, 150]).drawRectangle({ x: 10, y: 10, width: 100, height: 50, color: rgb(1, 0, 0) });
    const bytes = Buffer.from(await pdf.save());
    const ps = readFileSync((await convert(bytes, 'pdf', { output_format: 'ps' })).result.files[0]!.path, 'latin1');
    expect(ps.startsWith('%!PS-Adobe-3.0')).toBe(true);
    expect(ps).toMatch(/^%%Pages: 3$/m);
    const eps = await convert(bytes, 'pdf', { output_format: 'eps', pages: '2' });
    expect(eps.result.files.map((f) => [f.filename, f.contentType])).toEqual([['drawing.eps', 'application/postscript']]);
    const text = readFileSync(eps.result.files[0]!.path, 'latin1');
    expect(text).toMatch(/^%!PS-Adobe-3\.0 EPSF-3\.0/);
    const box = /^%%BoundingBox: (\d+) (\d+) (\d+) (\d+)$/m.exec(text)!.slice(1).map(Number);
    // The drawn box (10,10)–(110,60), give or take a point of Ghostscript's rounding.
    expect(box.map((n, i) => Math.abs(n - [10, 10, 110, 60][i]!) <= 1)).toEqual([true, true, true, true]);
  });

  it.each(Object.entries(HOSTILE))('a program that %s is refused, and nothing leaks', async (_, program) => {
    const secret = { filename: 'secret.txt', data: Buffer.from('the-secret-text'), format: 'txt' };
    const err = await convert(Buffer.from(program), 'ps', { output_format: 'png', density: 72 }, [secret]).catch((e: unknown) => e);
    const c = calls.at(-1)!;
    expect(err).toMatchObject({ code: 'INVALID_INPUT' });
    expect((err as Error).message).toBe('drawing.ps could not be drawn as PostScript (Ghostscript: /invalidfileaccess).');
    expect((err as Error).message).not.toMatch(/root:|the-secret-text/);
    expect(existsSync(path.join(c.call.dir, 'marker-pwned'))).toBe(false);
    expect(readdirSync(path.join(c.call.dir, 'out'))).toEqual([]);
  });

  it('a program that never ends is stopped at MAX_POSTSCRIPT_SECONDS', async () => {
    const err = await convert(Buffer.from('%!PS\n{ } loop\n'), 'ps', { output_format: 'png' }, [], { MAX_POSTSCRIPT_SECONDS: '2' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONVERSION_FAILED' });
    expect((err as Error).message).toContain('MAX_POSTSCRIPT_SECONDS');
  }, 60_000);

  it('more pages than MAX_PDF_PAGES is refused', async () => {
    const err = await convert(boxes(4), 'ps', { output_format: 'png', density: 10 }, [], { MAX_PDF_PAGES: '3' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'TOO_MANY_PAGES' });
  });
}

describe('PostScript in discovery', () => {
  it('lists eps, ps and ai to images and PDF, and PDF to eps and ps, on the Ghostscript engine', () => {
    const registry = newEngineRegistry(parseEngineConfig(process.env));
    const rows = discover({ 'filter[operation]': 'convert', 'filter[engine]': 'ghostscript' }, { registry }).map((r) => `${r.input_format}>${r.output_format}`);
    for (const from of ['eps', 'ps', 'ai']) for (const to of ['png', 'jpg', 'webp', 'tiff', 'pdf']) expect(rows).toContain(`${from}>${to}`);
    expect(rows).toEqual(expect.arrayContaining(['pdf>eps', 'pdf>ps']));
  });
});

describe('PostScript with the WebAssembly Ghostscript, on a fresh machine’s PATH', () => suite('wasm'));
optionalBuild(tool('gs')).describe('PostScript with the system Ghostscript', () => suite('system'));
