/**
 * Per format family, one conversion through the API (import/base64 → convert → export/url with the
 * cloudconvert SDK, on the platform `npm run bench` starts) against the same engine run bare in the
 * same run (its npm package in this process, or its tool run directly with the engine's default
 * arguments), as a ratio of medians.
 *
 * Data-driven: one row per family in FAMILY_ROWS, {family, input generator, output format, bare run}.
 * A row whose pair GET /v2/convert/formats does not list here is reported as skipped, so rows for
 * engines this machine (or this tree) lacks cost nothing. To add a family (or an engine) at a merge:
 * add one row: `input` makes a small real file (generated, never copied), `output` is the target,
 * `bare` converts the same bytes with the engine's own library or tool and the arguments its engine
 * module uses by default (`tools.executable(engine)` is the tool discovery's registry chose). The rows
 * below for ImageMagick, 7-Zip and the fonts are written against their npm packages and the pairs
 * issue 29 names; adjust `bare` to the engine module's defaults when those land.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import type { Emulator } from '../local/emulator.js';
import { cloudConvertClient } from '../test/support/cloudconvert.js';
import { median } from './measure.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

/** The tools the platform's registry chose, for bare runs of the same build. */
export interface Tools {
  /** The executable (or module) of the engine's default installed version; undefined when absent. */
  executable(engine: string): string | undefined;
}

export interface FamilyRow {
  family: string;
  input(tools: Tools): Promise<{ filename: string; data: Buffer }>;
  output: string;
  /** The same conversion, bare: reads `input`, writes `output`. */
  bare(input: string, output: string, tools: Tools): Promise<void>;
}

let magickReady: Promise<void> | undefined;

const ffmpegOf = (tools: Tools) => tools.executable('ffmpeg') ?? 'ffmpeg';

/** A 24-bit BMP of w × h (bottom-up rows, padded to 4 bytes): a format sharp does not read. */
function bmp(w: number, h: number): Buffer {
  const stride = Math.ceil((w * 3) / 4) * 4;
  const out = Buffer.alloc(54 + stride * h);
  out.write('BM', 0, 'latin1');
  out.writeUInt32LE(out.length, 2);
  out.writeUInt32LE(54, 10);
  out.writeUInt32LE(40, 14);
  out.writeInt32LE(w, 18);
  out.writeInt32LE(h, 22);
  out.writeUInt16LE(1, 26);
  out.writeUInt16LE(24, 28);
  out.writeUInt32LE(stride * h, 34);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) out.set([(x * 255) / w, (y * 255) / h, 128], 54 + y * stride + x * 3);
  return out;
}

export const FAMILY_ROWS: FamilyRow[] = [
  {
    family: 'image (sharp)',
    input: async () => {
      const { jpegOfAboutOneMegabyte } = await import('./engines.js');
      return { filename: 'photo.jpg', data: await jpegOfAboutOneMegabyte() };
    },
    output: 'webp',
    bare: async (input, output) => void (await sharp(input).rotate().webp().toFile(output)),
  },
  {
    family: 'video (ffmpeg)',
    input: async (tools) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'bench-family-'));
      const file = path.join(dir, 'clip.mp4');
      const lavfi = ['-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=25:duration=3', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=3'];
      await run(ffmpegOf(tools), ['-v', 'error', ...lavfi, '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', file]);
      const data = readFileSync(file);
      rmSync(dir, { recursive: true, force: true });
      return { filename: 'clip.mp4', data };
    },
    output: 'webm',
    bare: async (input, output, tools) =>
      void (await run(ffmpegOf(tools), ['-v', 'error', '-y', '-i', input, '-c:v', 'libvpx-vp9', '-crf', '32', '-b:v', '0', '-row-mt', '1', '-deadline', 'good', '-cpu-used', '4', '-c:a', 'libopus', '-b:a', '128k', output])),
  },
  {
    family: 'audio (ffmpeg)',
    input: async (tools) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'bench-family-'));
      const file = path.join(dir, 'tone.wav');
      await run(ffmpegOf(tools), ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=20', '-ac', '2', file]);
      const data = readFileSync(file);
      rmSync(dir, { recursive: true, force: true });
      return { filename: 'tone.wav', data };
    },
    output: 'mp3',
    bare: async (input, output, tools) => void (await run(ffmpegOf(tools), ['-v', 'error', '-y', '-i', input, '-c:a', 'libmp3lame', '-b:a', '128k', output])),
  },
  // The rows below wait for their engines (issue 29): skipped while discovery lists no such pair.
  {
    family: 'image (imagemagick)',
    input: async () => ({ filename: 'gradient.bmp', data: bmp(1200, 800) }),
    output: 'png',
    bare: async (input, output) => {
      const magick = await import('@imagemagick/magick-wasm');
      // Loaded once, as a warm engine would have it; the 32-bit build (the x64 one is memory64, which Node 20 does not compile).
      magickReady ??= magick.initializeImageMagick(readFileSync(require.resolve('@imagemagick/magick-wasm/magick.wasm')));
      await magickReady;
      const written = magick.ImageMagick.read(readFileSync(input), (image) => image.write(magick.MagickFormat.Png, (data) => Buffer.from(data)));
      writeFileSync(output, written);
    },
  },
  {
    family: 'archive (7-zip)',
    input: async () => {
      const { zipSync } = await import('fflate');
      // Text that compresses as text does, not to nothing: random words.
      const files = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`docs/part-${i}.txt`, Buffer.from(randomBytes(60_000).toString('hex').replace(/(.{7})/g, '$1 '))]));
      return { filename: 'bundle.zip', data: Buffer.from(zipSync(files)) };
    },
    output: '7z',
    bare: async (input, output) => {
      const { default: SevenZip } = (await import('7z-wasm')) as unknown as { default: (o: Record<string, unknown>) => Promise<SevenZipModule> };
      const z = await SevenZip({ print: () => {}, printErr: () => {} });
      z.FS.writeFile('/in.zip', readFileSync(input));
      z.callMain(['x', '/in.zip', '-o/x', '-y']);
      z.callMain(['a', '-t7z', '/out.7z', '/x/*']);
      writeFileSync(output, z.FS.readFile('/out.7z'));
    },
  },
  {
    family: 'font (woff2)',
    input: async () => {
      // Untyped package (a declaration may come with the fonts engine): loaded by a name TypeScript does not resolve.
      const loaded = (await import(UNTYPED.opentype)) as OpenType & { default?: OpenType };
      const opentype = loaded.default ?? loaded;
      const square = new opentype.Path();
      square.moveTo(100, 0);
      square.lineTo(500, 0);
      square.lineTo(500, 600);
      square.lineTo(100, 600);
      square.close();
      const glyphs = [
        new opentype.Glyph({ name: '.notdef', unicode: 0, advanceWidth: 600, path: new opentype.Path() }),
        ...Array.from({ length: 26 }, (_, i) => new opentype.Glyph({ name: String.fromCharCode(65 + i), unicode: 65 + i, advanceWidth: 600, path: square })),
      ];
      const font = new opentype.Font({ familyName: 'Bench', styleName: 'Regular', unitsPerEm: 1000, ascender: 800, descender: -200, glyphs });
      return { filename: 'bench.ttf', data: Buffer.from(font.toArrayBuffer()) };
    },
    output: 'woff2',
    bare: async (input, output) => {
      const loaded = (await import(UNTYPED.wawoff2)) as Woff2 & { default?: Woff2 };
      const wawoff2 = loaded.default ?? loaded;
      writeFileSync(output, await wawoff2.compress(readFileSync(input)));
    },
  },
];

const UNTYPED = { opentype: 'opentype.js', wawoff2: 'wawoff2' };

/** What the font row uses of opentype.js. */
interface OpenType {
  Path: new () => { moveTo(x: number, y: number): void; lineTo(x: number, y: number): void; close(): void };
  Glyph: new (o: Record<string, unknown>) => unknown;
  Font: new (o: Record<string, unknown>) => { toArrayBuffer(): ArrayBuffer };
}

interface Woff2 {
  compress(data: Uint8Array): Promise<Uint8Array>;
}

interface SevenZipModule {
  FS: { writeFile(path: string, data: Uint8Array): void; readFile(path: string): Uint8Array };
  callMain(args: string[]): number;
}

/** Each row's job against its bare run: medians over `runs`; skipped rows say why. */
export async function familyConversions(platform: Emulator, runs = Number(process.env.BENCH_FAMILY_RUNS ?? 5)): Promise<string[]> {
  const { discover } = await import('#lib/file-api/operations/discovery.js');
  const { engineRegistry } = await import('#lib/file-api/operations/engines.js');
  const registry = engineRegistry();
  const tools: Tools = { executable: (engine) => (registry.isAvailable(engine) ? registry.installation(engine).versions[0]?.executable : undefined) };
  const cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-families-'));
  const lines: string[] = [];
  try {
    for (const row of FAMILY_ROWS) {
      try {
        lines.push(await familyRow(row, { cc, tools, dir, runs, offered: (input) => discover({ 'filter[input_format]': input, 'filter[output_format]': row.output }, { restrictTo: 'convert', registry })[0]?.engine ?? undefined }));
      } catch (err) {
        lines.push(`${row.family} → ${row.output}: failed (${(err as Error).message.split('\n')[0]})`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}

interface RowContext {
  cc: ReturnType<typeof cloudConvertClient>;
  tools: Tools;
  dir: string;
  runs: number;
  offered(input: string): string | null | undefined;
}

async function familyRow(row: FamilyRow, ctx: RowContext): Promise<string> {
  const input = await row.input(ctx.tools);
  const format = path.extname(input.filename).slice(1);
  const engine = ctx.offered(format);
  if (!engine) return `${row.family}: ${format} → ${row.output} skipped (GET /v2/convert/formats does not list it here)`;
  const inputFile = path.join(ctx.dir, input.filename);
  writeFileSync(inputFile, input.data);
  const bare = async () => {
    const t = performance.now();
    await row.bare(inputFile, path.join(ctx.dir, `out.${row.output}`), ctx.tools);
    return performance.now() - t;
  };
  const file = input.data.toString('base64');
  const job = async () => {
    const t = performance.now();
    const created = await ctx.cc.jobs.create({
      tasks: {
        in: { operation: 'import/base64', file, filename: input.filename },
        convert: { operation: 'convert', input: 'in', output_format: row.output },
        out: { operation: 'export/url', input: 'convert' },
      },
    });
    const done = await ctx.cc.jobs.wait(created.id);
    if (done.status !== 'finished') throw new Error(`job ended ${done.status}: ${JSON.stringify(done.tasks.map((x) => x.message))}`);
    return performance.now() - t;
  };
  await bare();
  await job();
  const bareMs: number[] = [];
  const jobMs: number[] = [];
  for (let i = 0; i < ctx.runs; i++) {
    bareMs.push(await bare());
    jobMs.push(await job());
  }
  const [j, b] = [median(jobMs), median(bareMs)];
  return (
    `${row.family}: ${format} → ${row.output} (${(input.data.length / 1e3).toFixed(0)} kB, engine ${engine}): job end to end median ${j.toFixed(0)} ms, ` +
    `bare ${b.toFixed(0)} ms (${(j / b).toFixed(1)}x; ${ctx.runs} runs)`
  );
}
