/**
 * Input files for the imagemagick engine's tests, made in the test: a picture drawn with sharp (its
 * left half red, its right half white, so that colours, bilevel and grey outputs and orientation all
 * show), written in each format by magick-wasm in the test's own process.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';
import type * as Magick from '@imagemagick/magick-wasm';

const require = createRequire(import.meta.url);

export const WIDTH = 64;
export const HEIGHT = 48;

let loaded: Promise<typeof Magick> | undefined;

/** magick-wasm, initialised once in this process (its 32-bit build). */
export function magick(): Promise<typeof Magick> {
  loaded ??= (async () => {
    const m = await import('@imagemagick/magick-wasm');
    const folder = path.dirname(require.resolve('@imagemagick/magick-wasm/magick.wasm'));
    await m.initializeImageMagick(readFileSync(path.join(folder, 'magick.wasm')));
    return m;
  })();
  return loaded;
}

/** The test picture as PNG: `width` × `height`, left half red, right half white. */
export async function pattern(width = WIDTH, height = HEIGHT): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3, 255);
  for (let y = 0; y < height; y++) for (let x = 0; x < width / 2; x++) raw.fill(0, (y * width + x) * 3 + 1, (y * width + x) * 3 + 3);
  return sharp(raw, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

/** `png` written by ImageMagick with the coder `coder` (`BMP`, `PSD`…). */
export async function written(png: Buffer, coder: string): Promise<Buffer> {
  const m = await magick();
  return m.ImageMagick.read(png, m.MagickFormat.Png, (image) => image.write(coder as Magick.MagickFormat, (data) => Buffer.from(data)));
}

/** Pictures written by ImageMagick as one file of several images (`ICO`, `CUR`, `GIF`…). */
async function collection(coder: string, pictures: Buffer[]): Promise<Buffer> {
  const m = await magick();
  const images = m.MagickImageCollection.create();
  for (const picture of pictures) images.push(m.MagickImage.create(picture) as Magick.MagickImage);
  try {
    return images.write(coder as Magick.MagickFormat, (data) => Buffer.from(data));
  } finally {
    images.dispose();
  }
}

/** An icon (`ICO` or `CUR`) holding the test picture at each of `sides` (square, so at most 256). */
export const icon = async (coder: 'ICO' | 'CUR', sides: number[]): Promise<Buffer> => collection(coder, await Promise.all(sides.map((side) => pattern(side, side))));

/** A multi-frame file (`GIF`, `TIFF`) of the test picture at each of `widths`. */
export const frames = async (coder: string, widths: number[]): Promise<Buffer> => collection(coder, await Promise.all(widths.map((width) => pattern(width, HEIGHT))));

/** A PSD header that declares `width` × `height` RGB pixels, raw, and holds none of them (40 bytes). */
export function declaredHugePsd(width: number, height: number): Buffer {
  const b = Buffer.alloc(40);
  b.write('8BPS', 0, 'latin1');
  b.writeUInt16BE(1, 4);
  b.writeUInt16BE(3, 12);
  b.writeUInt32BE(height, 14);
  b.writeUInt32BE(width, 18);
  b.writeUInt16BE(8, 22);
  b.writeUInt16BE(3, 24);
  return b;
}
