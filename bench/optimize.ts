/**
 * `BENCH_ONLY=optimize`: what PDF optimize makes of three kinds of PDF, per profile, as out/in size
 * ratios (1.00: the input kept, nothing smaller came out). Inputs made here: a scanned page (an A4
 * grey raster at 300 dpi, noisy, stored as a quality-90 JPEG as scanners do), a photo PDF (three
 * 1600×1200 quality-92 JPEGs, about 230 dpi on the page), the issue's two pages with one 900×900
 * quality-100 JPEG, and a ten-page text PDF. Each runs through the engine's handler (optimizePdf) on
 * each Ghostscript build present, next to Ghostscript's preset alone (what the handler did before
 * it re-encoded images), with the same "never larger" rule.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { BUNDLED_VERSIONS } from '#lib/engines/core/catalog.js';
import { confinement } from '#lib/engines/core/confine.js';
import { findExecutable } from '#lib/engines/core/probe.js';
import { ghostscriptWasm } from '#lib/engines/core/shipped.js';
import { runTool, type ToolOptions } from '#lib/engines/core/tool.js';
import { runWasm } from '#lib/engines/core/wasm.js';
import { optimizePdf, type PdfArgs } from '#lib/engines/pdf/ghostscript.js';
import { OPTIMIZE_PROFILE_NAMES } from '#lib/engines/pdf/optimize-profiles.js';
import { jpeg, textPdf } from '../test/fixtures/engine-fixtures.js';
import { engineCall } from '../test/support/engine-call.js';

/** Ghostscript's preset per profile, as optimize ran before it re-encoded images. */
const PRESETS: Record<string, string[]> = {
  web: ['-dPDFSETTINGS=/ebook'],
  print: ['-dPDFSETTINGS=/printer'],
  archive: ['-dPDFSETTINGS=/prepress'],
  mrc: ['-dPDFSETTINGS=/ebook', '-dColorImageResolution=100', '-dGrayImageResolution=150', '-dMonoImageResolution=300'],
  max: ['-dPDFSETTINGS=/screen'],
};
const WASM_DCT = ['-dAutoFilterColorImages=false', '-dColorImageFilter=/DCTEncode', '-dAutoFilterGrayImages=false', '-dGrayImageFilter=/DCTEncode'];

/** An A4 page scanned in grey at 300 dpi: paper noise, dark lines of "text". */
async function scannedPage(): Promise<Buffer> {
  const [width, height] = [2480, 3508];
  const pixels = Buffer.alloc(width * height);
  for (let y = 0; y < height; y++) {
    const line = y > 300 && y < 3200 && y % 60 < 28;
    for (let x = 0; x < width; x++) {
      const ink = line && x > 250 && x < 2230 && (x * 7 + y) % 23 < 11;
      pixels[y * width + x] = (ink ? 40 : 225) + Math.floor(Math.random() * 30);
    }
  }
  const scan = await sharp(pixels, { raw: { width, height, channels: 1 } }).jpeg({ quality: 90 }).toBuffer();
  return pdfOf([[scan, 595.28, 841.89]]);
}

/** A PDF of A4 pages, each drawing one JPEG `w`×`h` points wide and tall. */
async function pdfOf(pages: Array<[Buffer, number, number]>): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const [i, [image, w, h]] of pages.entries()) {
    const page = doc.addPage([595.28, 841.89]);
    page.drawImage(await doc.embedJpg(image), { x: (595.28 - w) / 2, y: 841.89 - h, width: w, height: h });
    page.drawText(`Page ${i + 1}`, { x: 40, y: 20, size: 10, font });
  }
  return Buffer.from(await doc.save());
}

async function inputs(): Promise<Array<[string, Buffer]>> {
  const photos = await Promise.all([1, 2, 3].map(() => jpeg(1600, 1200, { quality: 92 })));
  const issue = await pdfOf([[await jpeg(900, 900, { quality: 100 }), 595, 595]]);
  const twoPages = await PDFDocument.load(issue);
  twoPages.addPage([595.28, 841.89]);
  return [
    ['scanned page (A4 grey, 300 dpi)', await scannedPage()],
    ['photo PDF (3 × 1600×1200 q92)', await pdfOf(photos.map((p): [Buffer, number, number] => [p, 500, 375]))],
    ['issue 30: 900×900 q100, 2 pages', Buffer.from(await twoPages.save())],
    ['text PDF (10 pages)', await textPdf(10, 'of a report with words')],
  ];
}

type Build = { name: string; variant: 'system' | 'wasm'; executable: string; version: string };

/** The handler's output size on one build (it keeps the input when nothing smaller came out). */
async function handlerSize(build: Build, bytes: Buffer, profile: string): Promise<number> {
  const hand = engineCall<PdfArgs>('ghostscript', 'optimize', { profile }, [{ filename: 'in.pdf', data: bytes, format: 'pdf' }]);
  try {
    const installed = { version: build.version, variant: build.variant, executable: build.executable };
    const { files } = await optimizePdf({ ...hand.call, choice: { ...hand.call.choice, installed } });
    return statSync(files[0]!.path).size;
  } finally {
    hand.remove();
  }
}

/** The preset alone (before), unconfined, with the same rule. */
async function presetSize(build: Build, dir: string, bytes: Buffer, profile: string): Promise<number> {
  const [input, outDir] = [path.join(dir, 'in.pdf'), path.join(dir, 'out')];
  const out = path.join(outDir, 'out.pdf');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(input, bytes);
  const args = ['-dSAFER', '-dBATCH', '-dNOPAUSE', '-dQUIET', '-sDEVICE=pdfwrite', '-dCompatibilityLevel=1.6', ...PRESETS[profile]!,
    '-dDetectDuplicateImages=true', '-dCompressFonts=true', ...(build.variant === 'wasm' ? WASM_DCT : []), `-sOutputFile=${out}`, input];
  const opts: ToolOptions = {
    cwd: dir,
    workDir: dir,
    confinement: confinement({ ENGINE_CONFINEMENT: 'none', BWRAP_PATH: 'bwrap', UNSHARE_PATH: 'unshare' }),
    signal: new AbortController().signal,
  };
  if (build.variant === 'system') await runTool(build.executable, args, opts);
  else await runWasm('gs', ghostscriptWasm()!, { args, inputs: [input], outputs: [outDir] }, opts);
  const size = statSync(out).size;
  return Math.min(size, bytes.length);
}

export async function optimizeSizes(): Promise<string[]> {
  const system = findExecutable(process.env.GHOSTSCRIPT_PATH ?? 'gs');
  const builds: Build[] = [
    ...(system ? [{ name: 'gs', variant: 'system' as const, executable: system, version: execFileSync(system, ['--version'], { encoding: 'utf8' }).trim() }] : []),
    { name: 'gs wasm', variant: 'wasm', executable: ghostscriptWasm()!.file, version: BUNDLED_VERSIONS.ghostscriptWasm },
  ];
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-optimize-'));
  const lines = ['PDF optimize, out/in size per profile (before: Ghostscript\'s preset alone; after: the optimize handler):'];
  try {
    for (const [label, bytes] of await inputs()) {
      for (const build of builds) {
        const cells: string[] = [];
        for (const profile of OPTIMIZE_PROFILE_NAMES) {
          const before = await presetSize(build, dir, bytes, profile);
          const after = await handlerSize(build, bytes, profile);
          cells.push(`${profile} ${(before / bytes.length).toFixed(2)} → ${(after / bytes.length).toFixed(2)}`);
        }
        lines.push(`  ${label}, ${(bytes.length / 1024).toFixed(0)} KiB, ${build.name}: ${cells.join(' | ')}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (!system) lines.push('  (no system gs: the WebAssembly build only)');
  return lines;
}
