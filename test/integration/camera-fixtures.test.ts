/**
 * The HEIC/HEIF and camera RAW fixtures (scripts/fixtures/make-camera-fixtures.ts) decode in
 * ImageMagick's WebAssembly build as the format they claim, to the picture they carry: four colour
 * bars, white, yellow, red, blue, left to right. For RAW files LibRaw reports the camera maker the
 * file's own structure names, which is what picks its decoder.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { ImageMagick, initializeImageMagick, type IMagickImage, type MagickFormat } from '@imagemagick/magick-wasm';
import { CAMERA_FORMATS, cameraFixtureName } from '#lib/engines/image/camera-formats.js';
import { FIXTURE_DIR, FIXTURES, HEIGHT, WIDTH } from '../../scripts/fixtures/make-camera-fixtures.js';

/** The maker LibRaw names for each RAW fixture (after its own simplification of the Make tag). */
const MAKER: Record<string, string> = {
  dng: 'Fixture',
  cr2: 'Canon',
  nef: 'Nikon',
  nrw: 'Nikon',
  arw: 'Sony',
  sr2: 'Sony',
  pef: 'Pentax',
  srw: 'Samsung',
  orf: 'Olympus',
  erf: 'Epson',
  mef: 'Mamiya',
  '3fr': 'Hasselblad',
  fff: 'Hasselblad',
  mos: 'Leaf',
  rw2: 'Panasonic',
  rwl: 'Leica',
  raf: 'Fujifilm',
  mrw: 'Minolta',
  dcr: 'Kodak',
  kdc: 'Kodak',
  iiq: 'Phase One',
  crw: 'Canon',
};

interface Decoded {
  format: string;
  width: number;
  height: number;
  make: string | null;
  /** Mean of R+G+B over each half, 0..765. */
  left: number;
  right: number;
  /** RGB at the middle of each bar. */
  bars: number[][];
}

function summary(img: IMagickImage): Decoded {
  const { width, height } = img;
  const px = img.getPixels((p) => p.toByteArray(0, 0, width, height, 'RGB'))!;
  const sum = (x: number, y: number): number => px[(y * width + x) * 3]! + px[(y * width + x) * 3 + 1]! + px[(y * width + x) * 3 + 2]!;
  let left = 0;
  let right = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (x < width / 2) left += sum(x, y);
      else right += sum(x, y);
    }
  }
  const bars = [0, 1, 2, 3].map((b) => {
    const i = (Math.floor(height / 2) * width + Math.floor(((b + 0.5) * width) / 4)) * 3;
    return [px[i]!, px[i + 1]!, px[i + 2]!];
  });
  const half = (width * height) / 2;
  return { format: img.format, width, height, make: img.getAttribute('dng:make'), left: left / half, right: right / half, bars };
}

function decode(format: string): Decoded {
  const file = readFileSync(`${FIXTURE_DIR}${cameraFixtureName(format)}`);
  return ImageMagick.read(file, format.toUpperCase() as MagickFormat, summary);
}

beforeAll(async () => {
  const require = createRequire(import.meta.url);
  await initializeImageMagick(readFileSync(require.resolve('@imagemagick/magick-wasm').replace(/index\.umd\.cjs$|index\.js$/, 'x86/magick.wasm')));
});

describe('camera fixtures', () => {
  it('lists exactly the formats that have a fixture, HEIC and HEIF among them', () => {
    const files = readdirSync(FIXTURE_DIR).sort();
    expect(files).toEqual(CAMERA_FORMATS.map(cameraFixtureName).sort());
    expect(CAMERA_FORMATS).toEqual(expect.arrayContaining(['heic', 'heif']));
  });

  it('keeps the committed RAW fixtures as the generator writes them', async () => {
    // HEIC/HEIF need ffmpeg to regenerate; the RAW files are written here byte by byte.
    for (const format of CAMERA_FORMATS.filter((f) => MAKER[f])) {
      expect((await FIXTURES[cameraFixtureName(format)]!()).equals(readFileSync(`${FIXTURE_DIR}${cameraFixtureName(format)}`)), format).toBe(true);
    }
  });

  it.each(CAMERA_FORMATS)('%s decodes to the colour bars', (format) => {
    const d = decode(format);
    expect(d.format).toBe(format.toUpperCase());
    if (format !== 'heic' && format !== 'heif') expect(d.make).toBe(MAKER[format]);
    // LibRaw may trim a sensor's border pixels; a rotated or transposed decode would swap the sides.
    expect(d.width).toBeGreaterThan(WIDTH - 16);
    expect(d.width).toBeLessThanOrEqual(WIDTH);
    expect(d.height).toBeGreaterThan(HEIGHT - 16);
    expect(d.height).toBeLessThanOrEqual(HEIGHT);
    expect(d.left - d.right).toBeGreaterThan(90);
    // RAW files without white balance of their own are balanced by LibRaw over the whole picture
    // (grey world), which scales each channel: the checks compare a channel across bars.
    const [white, yellow, red, blue] = d.bars as [number[], number[], number[], number[]];
    expect(Math.min(...white)).toBeGreaterThan(200);
    expect(white[2]! - yellow[2]!).toBeGreaterThan(100);
    expect(red[0]! - red[2]!).toBeGreaterThan(100);
    expect(blue[2]! - blue[0]!).toBeGreaterThan(100);
    expect(red[0]! - blue[0]!).toBeGreaterThan(100);
  });
});
