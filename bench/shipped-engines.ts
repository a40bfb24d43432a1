/**
 * The engines shipped in npm packages against the system tools they stand in for, on the same input
 * with the arguments the engine modules use, median of 3 runs each, as a ratio (npm / system: above 1
 * is slower). A pair whose system tool is not installed is reported as skipped. Run unconfined, so
 * the ratio is the engines' own.
 *
 * - FFmpeg: a thumbnail at 5 s and a 720p → 360p H.264 transcode, @ffmpeg-installer's static build
 *   against the system ffmpeg; ffprobe likewise, and packed as in a Lambda zip (first and later probes);
 * - Ghostscript: optimize (pdfwrite /ebook) of a 2-page image-heavy PDF and page 1 to PNG at 150 dpi,
 *   WebAssembly (a node child, load included) against the system gs;
 * - qpdf: lossless optimize of the same PDF, WebAssembly against the system qpdf;
 * - metadata: EXIF read of a JPEG, the native engine (sharp + exifr, in this process) against exiftool
 *   on perl (a process per call, as the exiftool engine runs it);
 * - ExifTool in WebAssembly (its worker thread, started once: the first call is reported on its own)
 *   against exiftool on perl, with the exiftool engine's arguments: read of a JPEG, a PDF and a 10 MB
 *   JPEG, and a write of EXIF + XMP into the small and the large JPEG.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';
import exifr from 'exifr';
import sharp from 'sharp';
import { confinement } from '#lib/engines/core/confine.js';
import { runExiftoolWasm, stopExiftoolWasm } from '#lib/engines/metadata/exiftool-wasm.js';
import { findExecutable } from '#lib/engines/core/probe.js';
import { exiftoolWasm, ghostscriptWasm, imagemagickWasm, qpdfWasm, shippedFfmpeg, shippedFfprobe } from '#lib/engines/core/shipped.js';
import { imageMagickTool } from '#lib/engines/core/magick-detect.js';
import { magickSpec } from '#lib/engines/image/magick.js';
import { MAGICK_CHILD } from '#lib/engines/image/magick-child.js';
import { runTool, type ToolOptions } from '#lib/engines/core/tool.js';
import { resetUnpacked, unpackedBinary } from '#lib/engines/core/unpack.js';
import { runWasm } from '#lib/engines/core/wasm.js';
import { imageHeavyPdf, jpeg, textPdf } from '../test/fixtures/engine-fixtures.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function timed(run: () => Promise<unknown>, runs = 3): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return median(times);
}


/**
 * ImageMagick: the WebAssembly build as the imagemagick engine runs it (its child program, one node
 * process per call) against the system ImageMagick's convert, on the same 1200 × 800 PNG → BMP.
 */
async function magickComparison(dir: string, opts: ToolOptions) {
  const magick = imagemagickWasm();
  const systemMagick = imageMagickTool({ MAGICK_PATH: '' });
  const picture = path.join(dir, 'picture.png');
  writeFileSync(picture, await sharp(await jpeg(1200, 800)).png().toBuffer());
  const frames = path.join(dir, 'frames');
  execFileSync('mkdir', ['-p', frames]);
  return {
    label: 'ImageMagick PNG → BMP of a 1200 × 800 picture (WebAssembly engine child vs system convert)',
    system: 'missing' in systemMagick ? undefined : systemMagick.file,
    shipped: magick,
    npmRun: () => {
      const files = { module: path.join(magick!.folder, 'dist', 'index.js'), wasm: magick!.file, input: picture, outDir: frames };
      const spec = magickSpec('png', 'bmp', {}, files, 100_000_000);
      return runTool(process.execPath, ['--input-type=module', '--no-warnings', '-e', MAGICK_CHILD, JSON.stringify(spec)], { ...opts, captureStdout: true, readOnly: [magick!.folder] });
    },
    systemRun: (tool: string) => runTool(tool, [`PNG:${picture}`, `BMP:${path.join(dir, 'picture.bmp')}`], opts),
  };
}

/**
 * The static ffprobe as a Lambda zip ships it (brotli, scripts/serverless-packed-binaries.cjs): a first
 * probe (unpack, digest, run) and a later task's (digest of the file left in /tmp, run), each over a
 * probe of the binary as npm installed it.
 */
async function packedProbe(binary: string, dir: string, probe: (tool: string) => Promise<unknown>): Promise<string[]> {
  const data = readFileSync(binary);
  const source = path.join(dir, 'ffprobe.br');
  writeFileSync(source, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } }));
  writeFileSync(path.join(dir, 'ffprobe.sha256'), `${createHash('sha256').update(data).digest('hex')}  ffprobe\n`);
  const packed = { source, digestFile: path.join(dir, 'ffprobe.sha256'), file: path.join(dir, 'tools', 'ffprobe-packed', 'ffprobe') };
  const plain = await timed(() => probe(binary));
  const first = await timed(async () => {
    rmSync(path.join(dir, 'tools'), { recursive: true, force: true });
    resetUnpacked();
    await probe(await unpackedBinary(packed));
  });
  const later = await timed(async () => {
    resetUnpacked();
    await probe(await unpackedBinary(packed));
  });
  const mb = (n: number) => (n / 1e6).toFixed(1);
  return [
    `ffprobe packed with brotli (${mb(statSync(source).size)} MB instead of ${mb(data.length)} unzipped): first probe ${(first / plain).toFixed(2)}x a probe of the binary as installed (median of 3: ${first.toFixed(0)} ms vs ${plain.toFixed(0)} ms, the unpack included)`,
    `ffprobe packed, a later task's probe (its digest checked): ${(later / plain).toFixed(2)}x (${later.toFixed(0)} ms)`,
  ];
}

export async function shippedEngineRatios(): Promise<string[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-shipped-'));
  const opts: ToolOptions = {
    cwd: dir,
    workDir: dir,
    confinement: confinement({ ENGINE_CONFINEMENT: 'none', BWRAP_PATH: 'bwrap', UNSHARE_PATH: 'unshare' }),
    signal: new AbortController().signal,
  };
  const lines: string[] = [];
  const compare = async (label: string, system: string | undefined, shipped: unknown, npmRun: () => Promise<unknown>, systemRun: (tool: string) => Promise<unknown>) => {
    if (!shipped) return lines.push(`${label}: skipped (the npm package is not installed here)`);
    if (!system) return lines.push(`${label}: skipped (no system tool to compare with)`);
    const npm = await timed(npmRun);
    const sys = await timed(() => systemRun(system));
    lines.push(`${label}: npm ${(npm / sys).toFixed(2)}x the system tool's time (median of 3: ${npm.toFixed(0)} ms vs ${sys.toFixed(0)} ms)`);
  };
  try {
    const ffmpeg = shippedFfmpeg();
    const ffprobe = shippedFfprobe();
    const systemFfmpeg = findExecutable('ffmpeg');
    const clip = path.join(dir, 'clip.mp4');
    const maker = systemFfmpeg ?? ffmpeg?.file;
    if (maker) {
      execFileSync(maker, [
        ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=s=1280x720:r=25:d=10', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=10'],
        ...['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', clip],
      ]);
      const open = ['-protocol_whitelist', 'file', '-f', 'mov', '-i', clip];
      const thumb = (tool: string) => runTool(tool, ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', '-ss', '5', ...open, '-frames:v', '1', '-an', path.join(dir, 'frame.png')], opts);
      const transcode = (tool: string) =>
        runTool(tool, ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', ...open, '-c:v', 'libx264', '-crf', '23', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-vf', 'scale=-2:360', '-c:a', 'aac', '-b:a', '128k', path.join(dir, 'small.mp4')], opts);
      const probe = (tool: string) => runTool(tool, ['-v', 'error', '-protocol_whitelist', 'file', '-f', 'mov', '-print_format', 'json', '-show_format', '-show_streams', clip], { ...opts, captureStdout: true });
      await compare('FFmpeg thumbnail of a 10 s 720p video', systemFfmpeg, ffmpeg, () => thumb(ffmpeg!.file), thumb);
      await compare('FFmpeg 720p → 360p H.264 transcode (10 s)', systemFfmpeg, ffmpeg, () => transcode(ffmpeg!.file), transcode);
      await compare('ffprobe of the same video', findExecutable('ffprobe'), ffprobe, () => probe(ffprobe!.file), probe);
      if (ffprobe && !ffprobe.packed) lines.push(...(await packedProbe(ffprobe.file, dir, probe)));
    } else lines.push('FFmpeg: skipped (neither a system nor a shipped ffmpeg)');

    const pdf = path.join(dir, 'photos.pdf');
    writeFileSync(pdf, await imageHeavyPdf(2, 1600));
    const gsWasm = ghostscriptWasm();
    const qpdf = qpdfWasm();
    const base = ['-dSAFER', '-dBATCH', '-dNOPAUSE', '-dQUIET'];
    const optimize = ['-sDEVICE=pdfwrite', '-dCompatibilityLevel=1.6', '-dPDFSETTINGS=/ebook', '-dDetectDuplicateImages=true', '-dCompressFonts=true'];
    const dct = ['-dAutoFilterColorImages=false', '-dColorImageFilter=/DCTEncode', '-dAutoFilterGrayImages=false', '-dGrayImageFilter=/DCTEncode'];
    const out = path.join(dir, 'out');
    execFileSync('mkdir', ['-p', out]);
    const render = ['-sDEVICE=png16m', '-r150', '-dTextAlphaBits=4', '-dGraphicsAlphaBits=4', '-sPageList=1', `-sOutputFile=${path.join(out, 'page-%05d.png')}`];
    await compare(
      'Ghostscript optimize of a 2-page image-heavy PDF',
      findExecutable('gs'),
      gsWasm,
      () => runWasm('gs', gsWasm!, { args: [...base, ...optimize, ...dct, `-sOutputFile=${path.join(out, 'o.pdf')}`, pdf], inputs: [pdf], outputs: [out] }, opts),
      (gs) => runTool(gs, [...base, ...optimize, `-sOutputFile=${path.join(out, 'o.pdf')}`, pdf], opts),
    );
    await compare(
      'Ghostscript page 1 to PNG at 150 dpi',
      findExecutable('gs'),
      gsWasm,
      () => runWasm('gs', gsWasm!, { args: [...base, ...render, pdf], inputs: [pdf], outputs: [out] }, opts),
      (gs) => runTool(gs, [...base, ...render, pdf], opts),
    );
    const lossless = ['--warning-exit-0', '--object-streams=generate', '--compress-streams=y', '--recompress-flate', '--compression-level=9', '--linearize'];
    await compare(
      'qpdf lossless optimize of the same PDF',
      findExecutable('qpdf'),
      qpdf,
      () => runWasm('qpdf', qpdf!, { args: [...lossless, pdf, path.join(out, 'q.pdf')], inputs: [pdf], outputs: [out] }, opts),
      (tool) => runTool(tool, [...lossless, pdf, path.join(out, 'q.pdf')], opts),
    );

    const m = await magickComparison(dir, opts);
    await compare(m.label, m.system, m.shipped, m.npmRun, m.systemRun);

    const photo = path.join(dir, 'photo.jpg');
    writeFileSync(photo, await sharp(await jpeg(1600, 1200)).withExif({ IFD0: { Artist: 'Bench', Copyright: 'Bench' } }).jpeg().toBuffer());
    const { exiftoolPath } = await import('exiftool-vendored');
    const script = await exiftoolPath();
    await compare(
      'metadata read of a JPEG (native: sharp + exifr; system: exiftool on perl)',
      findExecutable('perl'),
      true,
      async () => {
        const { exif } = await sharp(photo).metadata();
        await exifr.parse(exif!.subarray(6), { tiff: true, exif: true, gps: true, reviveValues: false });
      },
      (perl) => runTool(perl, [script, '-json', '-use', 'MWG', photo], { ...opts, captureStdout: true }),
    );

    const exiftool = exiftoolWasm();
    const perl = findExecutable('perl');
    if (exiftool) {
      const big = path.join(dir, 'big.jpg');
      writeFileSync(big, await jpeg(4000, 3000, { noise: 40, quality: 95 }));
      const doc = path.join(dir, 'doc.pdf');
      writeFileSync(doc, await textPdf(5));
      const argFile = path.join(dir, 'exiftool.args');
      const readArgs = (file: string) => ['-charset', 'filename=utf8', '-struct', '-use', 'MWG', '-json', file];
      // exiftool-vendored's write arguments for Artist, XMP-dc:Title and Keywords (exiftool.ts).
      const tags = ['-sep', '\x1f', '-E', '-api', 'struct=1', '-use', 'MWG', '-Artist=Bench', '-XMP-dc:Title=Bench', '-Keywords=a\x1fb'];
      const wasmOpts = { signal: opts.signal, workDir: dir, maxOutputBytes: 1 << 30 };
      const wasmRead = (file: string) => () => runExiftoolWasm(exiftool, { args: readArgs(file), input: file, argFile }, wasmOpts);
      let n = 0;
      const wasmWrite = (file: string) => () => {
        const target = path.join(out, `w${n++}.jpg`);
        return runExiftoolWasm(exiftool, { args: [...tags, '-o', target, file], input: file, output: target, argFile }, wasmOpts);
      };
      const perlRun = (args: string[]) => (tool: string) => {
        writeFileSync(argFile, `${args.join('\n')}\n`);
        return runTool(tool, [script, '-@', argFile], { ...opts, captureStdout: true, okExitCodes: [1] });
      };
      const perlWrite = (file: string) => (tool: string) => {
        const target = path.join(out, `p${n++}.jpg`);
        execFileSync('cp', [file, target]);
        return perlRun([...tags, '-overwrite_original', target])(tool);
      };
      const before = process.memoryUsage().rss;
      const first = await timed(wasmRead(photo), 1);
      const grown = process.memoryUsage().rss - before;
      const perlOnce = perl ? await timed(() => perlRun(readArgs(photo))(perl), 1) : NaN;
      lines.push(
        `ExifTool in WebAssembly, first call of a process (worker start, module compile, perl start): ${first.toFixed(0)} ms` +
          `${perl ? ` (${(first / perlOnce).toFixed(1)}x exiftool on perl's ${perlOnce.toFixed(0)} ms)` : ''}; the process's RSS +${(grown / 2 ** 20).toFixed(0)} MB`,
      );
      const label = 'ExifTool in WebAssembly (warm worker) vs exiftool on perl:';
      await compare(`${label} read of a 1600×1200 JPEG`, perl, exiftool, wasmRead(photo), perlRun(readArgs(photo)));
      await compare(`${label} read of a 5-page PDF`, perl, exiftool, wasmRead(doc), perlRun(readArgs(doc)));
      await compare(`${label} read of a 4000×3000 JPEG (${(statSync(big).size / 2 ** 20).toFixed(1)} MB)`, perl, exiftool, wasmRead(big), perlRun(readArgs(big)));
      await compare(`${label} EXIF + XMP write into the 1600×1200 JPEG`, perl, exiftool, wasmWrite(photo), perlWrite(photo));
      await compare(`${label} EXIF + XMP write into the 4000×3000 JPEG`, perl, exiftool, wasmWrite(big), perlWrite(big));
      lines.push(`ExifTool in WebAssembly: the process's RSS +${((process.memoryUsage().rss - before) / 2 ** 20).toFixed(0)} MB after these calls`);
      await stopExiftoolWasm();
    } else lines.push('ExifTool in WebAssembly: skipped (@uswriting/exiftool is not installed)');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}
