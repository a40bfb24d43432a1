/**
 * Readers of image files that are not ImageMagick, to check what the imagemagick engine writes:
 * the static FFmpeg of @ffmpeg-installer (its image decoders: bmp, ico, tga, netpbm, pcx, jpeg 2000,
 * exr, dds, sgi, sun, xbm, xpm, dpx), Ghostscript (the system's, else its WebAssembly build) for EPS and
 * PostScript, and small parsers here for what that FFmpeg lacks (QOI, WBMP, PSD's composite).
 * Each gives the pixels as sharp's raw RGB, so that the tests compare them one way.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { confinement } from '#lib/engines/core/confine.js';
import { findExecutable } from '#lib/engines/core/probe.js';
import { ghostscriptWasm, shippedFfmpeg } from '#lib/engines/core/shipped.js';
import { runWasm } from '#lib/engines/core/wasm.js';

const run = promisify(execFile);

export interface Pixels {
  width: number;
  height: number;
  /** RGB at (x, y). */
  at(x: number, y: number): [number, number, number];
}

const rgb = (data: Buffer, width: number, channels: number): Pixels['at'] => (x, y) => {
  const o = (y * width + x) * channels;
  return channels >= 3 ? [data[o]!, data[o + 1]!, data[o + 2]!] : [data[o]!, data[o]!, data[o]!];
};

/** Any file sharp reads (png, jpg, webp, avif, tiff, gif). */
export async function sharpPixels(file: Buffer | string): Promise<Pixels> {
  const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, at: rgb(data, info.width, info.channels) };
}

/** A file decoded by the static FFmpeg (first frame) into PNG, read by sharp. */
export async function ffmpegPixels(file: string): Promise<Pixels> {
  const ffmpeg = shippedFfmpeg();
  if (!ffmpeg) throw new Error('@ffmpeg-installer is not installed for this platform');
  const out = `${file}.ffmpeg.png`;
  await run(ffmpeg.file, ['-v', 'error', '-y', '-i', file, '-frames:v', '1', out]);
  return sharpPixels(readFileSync(out));
}

/**
 * An EPS or PostScript file rendered by Ghostscript at 72 dpi: an EPS file's bounding box, or for
 * PostScript a page of `page` points (its drawing starts at the bottom left corner).
 */
export async function ghostscriptPixels(file: string, page?: { width: number; height: number }): Promise<Pixels> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gs-reader-'));
  try {
    const input = path.join(dir, path.basename(file));
    writeFileSync(input, readFileSync(file));
    const out = path.join(dir, 'out', 'page.png');
    mkdirSync(path.dirname(out));
    const media = page ? ['-dFIXEDMEDIA', `-dDEVICEWIDTHPOINTS=${page.width}`, `-dDEVICEHEIGHTPOINTS=${page.height}`] : ['-dEPSCrop'];
    const args = ['-q', '-dSAFER', '-dBATCH', '-dNOPAUSE', ...media, '-sDEVICE=png16m', '-r72', `-sOutputFile=${out}`, input];
    const system = findExecutable('gs');
    if (system) await run(system, args);
    else {
      const wasm = ghostscriptWasm();
      if (!wasm) throw new Error('no Ghostscript: neither gs nor @okathira/ghostpdl-wasm');
      const config = parseEngineConfig(process.env);
      await runWasm('gs', wasm, { args, inputs: [input], outputs: [path.dirname(out)] }, { cwd: dir, workDir: dir, confinement: confinement(config), signal: new AbortController().signal });
    }
    return await sharpPixels(readFileSync(out));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** QOI (qoiformat.org's specification): header, then the chunk stream. */
export function qoiPixels(bytes: Buffer): Pixels {
  if (bytes.toString('latin1', 0, 4) !== 'qoif') throw new Error('not a QOI file');
  const width = bytes.readUInt32BE(4);
  const height = bytes.readUInt32BE(8);
  const out = Buffer.alloc(width * height * 4);
  const index = new Uint8Array(64 * 4);
  let [r, g, b, a] = [0, 0, 0, 255];
  let p = 14;
  let run = 0;
  for (let o = 0; o < out.length; o += 4) {
    if (run > 0) run--;
    else {
      const op = bytes[p++]!;
      if (op === 0xfe) [r, g, b] = [bytes[p++]!, bytes[p++]!, bytes[p++]!];
      else if (op === 0xff) [r, g, b, a] = [bytes[p++]!, bytes[p++]!, bytes[p++]!, bytes[p++]!];
      else if (op >> 6 === 0) [r, g, b, a] = [index[op * 4]!, index[op * 4 + 1]!, index[op * 4 + 2]!, index[op * 4 + 3]!];
      else if (op >> 6 === 1) [r, g, b] = [(r + ((op >> 4) & 3) - 2) & 255, (g + ((op >> 2) & 3) - 2) & 255, (b + (op & 3) - 2) & 255];
      else if (op >> 6 === 2) {
        const dg = (op & 0x3f) - 32;
        const next = bytes[p++]!;
        [r, g, b] = [(r + dg - 8 + (next >> 4)) & 255, (g + dg) & 255, (b + dg - 8 + (next & 15)) & 255];
      } else run = op & 0x3f;
      const h = ((r * 3 + g * 5 + b * 7 + a * 11) % 64) * 4;
      index.set([r, g, b, a], h);
    }
    out.set([r, g, b, a], o);
  }
  return { width, height, at: rgb(out, width, 4) };
}

/** A multi-byte integer of WBMP's header (7 bits a byte, high bit: more follow). */
function multiByte(bytes: Buffer, at: { p: number }): number {
  let n = 0;
  for (;;) {
    const byte = bytes[at.p++]!;
    n = (n << 7) | (byte & 0x7f);
    if (!(byte & 0x80)) return n;
  }
}

/** WBMP type 0: one bit a pixel, rows padded to bytes, 1 white. */
export function wbmpPixels(bytes: Buffer): Pixels {
  const at = { p: 2 };
  if (bytes[0] !== 0) throw new Error('not a type 0 WBMP');
  const width = multiByte(bytes, at);
  const height = multiByte(bytes, at);
  const stride = Math.ceil(width / 8);
  const start = at.p;
  return {
    width,
    height,
    at: (x, y) => {
      const v = (bytes[start + y * stride + (x >> 3)]! >> (7 - (x & 7))) & 1 ? 255 : 0;
      return [v, v, v];
    },
  };
}

/** PackBits, as PSD's RLE rows are coded. */
function unpackBits(src: Buffer, from: number, length: number, out: Buffer, to: number): number {
  let p = from;
  let o = to;
  while (p < from + length) {
    const n = src.readInt8(p++);
    if (n >= 0) {
      src.copy(out, o, p, p + n + 1);
      p += n + 1;
      o += n + 1;
    } else if (n !== -128) {
      out.fill(src[p++]!, o, o + 1 - n);
      o += 1 - n;
    }
  }
  return o;
}

/** A PSD's composite image (8 bits, RGB or grayscale, raw or RLE), skipping its other sections. */
export function psdPixels(bytes: Buffer): Pixels {
  if (bytes.toString('latin1', 0, 4) !== '8BPS') throw new Error('not a PSD file');
  const channels = bytes.readUInt16BE(12);
  const height = bytes.readUInt32BE(14);
  const width = bytes.readUInt32BE(18);
  let p = 26;
  for (let section = 0; section < 3; section++) p += 4 + bytes.readUInt32BE(p);
  const compression = bytes.readUInt16BE(p);
  p += 2;
  const planes = Buffer.alloc(width * height * channels);
  if (compression === 0) bytes.copy(planes, 0, p, p + planes.length);
  else {
    const rows = height * channels;
    let data = p + rows * 2;
    for (let row = 0; row < rows; row++) {
      const length = bytes.readUInt16BE(p + row * 2);
      unpackBits(bytes, data, length, planes, row * width);
      data += length;
    }
  }
  const plane = width * height;
  return {
    width,
    height,
    at: (x, y) => {
      const i = y * width + x;
      return channels >= 3 ? [planes[i]!, planes[plane + i]!, planes[2 * plane + i]!] : [planes[i]!, planes[i]!, planes[i]!];
    },
  };
}
