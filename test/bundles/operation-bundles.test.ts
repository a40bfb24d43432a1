/**
 * The functions that create tasks and answer discovery load every operation's definition, and no
 * engine: bundled as serverless packages them, their inputs hold no engine module and import no engine
 * package (sharp, Chromium, FFmpeg, Ghostscript, qpdf, ExifTool). An operation that imported its engine
 * from its definition would fail here.
 */
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ENGINE_PACKAGES = ['sharp', '@sparticuz/chromium', 'puppeteer-core', 'exiftool-vendored', '@ffmpeg-installer/ffmpeg', '@ffprobe-installer/ffprobe', '@okathira/ghostpdl-wasm', '@neslinesli93/qpdf-wasm', '@uswriting/exiftool', '7z-wasm', '@imagemagick/magick-wasm', 'wawoff2', 'fonteditor-core', 'pdfjs-dist'];
/**
 * What definitions may read under lib/engines (formats, option checks, registry, catalog, detection):
 * data and probes, never an engine's code. Everything else there is engine code.
 */
const DEFINITION_READS = [
  'core/(?:formats|format-families|media-formats|media-builds|magick-detect|registry|catalog|families|probe|shipped|unpack|ocr-detect|font-packages|pdfjs-package|install-packages|confine|config|call|errors|policy)',
  'command/(?:command-arguments|command-allowlist|command-graph|magick-arguments|magick-allowlist)',
  'metadata/metadata-tags',
  'archive/formats',
  'font/formats',
  'pdfjs/formats',
  'image/(?:magick-formats|camera-formats)',
  'pdf/(?:postscript-formats|optimize-profiles)',
  'markup/formats',
  'office/(?:office-formats|calibre-formats|slides-formats)',
  'media/options',
];
const ENGINE_CODE = new RegExp(`lib/engines/(?!(?:${DEFINITION_READS.join('|')})\\.ts$)`);

async function inputsOf(entry: string): Promise<{ files: string[]; externals: string[] }> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    logLevel: 'silent',
    external: ENGINE_PACKAGES,
  });
  const files = Object.keys(result.metafile.inputs);
  const externals = Object.values(result.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external).map((i) => i.path));
  return { files, externals };
}

describe('functions that validate and describe operations', () => {
  it.each(['functions/jobs/create.ts', 'functions/tasks/create.ts', 'functions/operations/list.ts'])('%s bundles no engine', async (entry) => {
    const { files, externals } = await inputsOf(entry);
    expect(files.some((f) => f.endsWith('lib/file-api/operations/pdf/rotate-pages/operation.ts')), 'every definition is in').toBe(true);
    expect(files.filter((f) => ENGINE_CODE.test(f))).toEqual([]);
    expect(externals.filter((e) => ENGINE_PACKAGES.includes(e))).toEqual([]);
  }, 60_000);

  it('while a process function bundles its engines (the check can fail)', async () => {
    const { files, externals } = await inputsOf('functions/tasks/process-pdf-step.ts');
    expect(files.some((f) => f.endsWith('lib/engines/pdf/qpdf.ts'))).toBe(true);
    expect(externals).toContain('@neslinesli93/qpdf-wasm');
  }, 60_000);
});
