/**
 * The engines shipped in npm packages against the system tools they stand in for, on the same input
 * with the arguments the engine modules use, median of 3 runs each, as a ratio (npm / system: above 1
 * is slower). A pair whose system tool is not installed is reported as skipped. Run unconfined, so
 * the ratio is the engines' own.
 *
 * - FFmpeg: a thumbnail at 5 s and a 720p → 360p H.264 transcode, @ffmpeg-installer's static build
 *   against the system ffmpeg; ffprobe likewise;
 * - Ghostscript: optimize (pdfwrite /ebook) of a 2-page image-heavy PDF and page 1 to PNG at 150 dpi,
 *   WebAssembly (a node child, load included) against the system gs;
 * - qpdf: lossless optimize of the same PDF, WebAssembly against the system qpdf;
 * - metadata: EXIF read of a JPEG, the native engine (sharp + exifr, in this process) against exiftool
 *   on perl (a process per call, as the exiftool engine runs it).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import exifr from 'exifr';
import sharp from 'sharp';
import { confinement } from '#lib/engines/confine.js';
import { findExecutable } from '#lib/engines/probe.js';
import { ghostscriptWasm, qpdfWasm, shippedFfmpeg, shippedFfprobe } from '#lib/engines/shipped.js';
import { runTool, type ToolOptions } from '#lib/engines/tool.js';
import { runWasm } from '#lib/engines/wasm.js';
import { imageHeavyPdf, jpeg } from '../test/fixtures/engine-fixtures.js';

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
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}
