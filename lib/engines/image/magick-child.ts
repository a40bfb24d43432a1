/**
 * The program the imagemagick engine runs in its confined node child (magick.ts): ImageMagick in
 * WebAssembly (@imagemagick/magick-wasm) has an API, not a command line, so this program is its
 * `main`. Its one argument is the JSON of a `MagickSpec`; it answers with one JSON line on stdout
 * (`MagickAnswer`). It reads the input file and writes output files in the task's work folder only,
 * and ImageMagick itself sees no file at all: it gets the input's bytes and gives back the outputs'.
 *
 * ImageMagick runs under a policy written for the call: every coder refused except the input's
 * (read), the output's (write) and the few that coders embed (PNG, BMP and JPEG entries of icons and
 * PDFs); no delegate, no `@file` or `|pipe` path. Before anything is decoded, the input is pinged
 * (headers only) and refused past the pixel limit; ImageMagick's own resource limits (width,
 * height, area, memory, frames) hold behind that.
 */

/** What the parent asks for. */
export interface MagickSpec {
  /** magick-wasm's ES module and its 32-bit WebAssembly build (the 64-bit one needs memory64). */
  module: string;
  wasm: string;
  input: string;
  /** The input's coder (`BMP`, `PSD`…) and the output's. */
  read: string;
  write: string;
  /** The folder the outputs go to, as `0`, `1`… in frame order. */
  outDir: string;
  maxPixels: number;
  maxFrames: number;
  /** `1-3,5`: the frames (1-based) to convert; else the picture (see `pick`). */
  pages?: string;
  /** Without `pages`: `largest` (icons), `first` (a layered file's composite, one-picture outputs) or `all`. */
  pick: 'largest' | 'first' | 'all';
  /** One output file holding every selected frame (gif, tiff, pdf…), else one file per frame. */
  multiFrame: boolean;
  width?: number;
  height?: number;
  fit?: 'max' | 'crop' | 'scale';
  quality?: number;
  strip: boolean;
  colorspace?: 'srgb' | 'gray' | 'cmyk';
  density?: number;
  /** Transparent areas become white. */
  opaque: boolean;
  /** Each frame is made to fit this many pixels a side (icons). */
  maxSide?: number;
}

export type MagickAnswer =
  | { ok: true; files: number; width: number; height: number; frames: number }
  | { refused: 'IMAGE_TOO_LARGE'; width: number; height: number; frames: number; pixels: number }
  /** ImageMagick's own limits refused the header (a coder that sizes its pixel cache while pinging). */
  | { refused: 'IMAGE_TOO_LARGE'; message: string }
  | { refused: 'INVALID_INPUT' | 'CONVERSION_FAILED'; message: string };

/** The child's program (an ES module; its last argument is the JSON of a `MagickSpec`). */
export const MAGICK_CHILD = `
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
const spec = JSON.parse(process.argv[process.argv.length - 1]);
const say = (answer) => process.stdout.write(JSON.stringify(answer) + '\\n');
const m = await import(pathToFileURL(spec.module).href);
const EMBEDDED = ['PNG', 'BMP', 'JPEG'];
const rights = new Map();
for (const c of [spec.read, ...EMBEDDED]) rights.set(c, new Set(['read']));
for (const c of [spec.write, ...EMBEDDED]) rights.set(c, new Set([...(rights.get(c) ?? []), 'write']));
const policy = [
  '<policymap>',
  '<policy domain="coder" rights="none" pattern="*"/>',
  ...[...rights].map(([c, r]) => '<policy domain="coder" rights="' + [...r].join('|') + '" pattern="' + c + '"/>'),
  '<policy domain="delegate" rights="none" pattern="*"/>',
  '<policy domain="path" rights="none" pattern="@*"/>',
  '<policy domain="path" rights="none" pattern="|*"/>',
  '</policymap>',
].join('\\n');
const files = m.ConfigurationFiles.default;
files.policy.data = policy;
await m.initializeImageMagick(readFileSync(spec.wasm), files);
const side = BigInt(Math.min(spec.maxPixels, 1 << 24));
m.ResourceLimits.width = side;
m.ResourceLimits.height = side;
m.ResourceLimits.area = BigInt(spec.maxPixels);
m.ResourceLimits.listLength = BigInt(spec.maxFrames);
m.ResourceLimits.disk = 0n;
const settings = (extra = {}) => {
  const s = new m.MagickReadSettings({ format: spec.read, ...extra });
  if (spec.density) s.density = new m.Density(spec.density);
  return s;
};
const bytes = readFileSync(spec.input);

// Headers only: sizes and frame count before any pixel is decoded.
const pinged = m.MagickImageCollection.create();
try {
  pinged.ping(bytes, settings());
} catch (err) {
  const message = String(err.message || err);
  const limit = /CacheResourcesExhausted|ResourceLimit|ExceedsLimit|ImageTooLarge|MemoryAllocationFailed/i.test(message);
  say({ refused: limit ? 'IMAGE_TOO_LARGE' : 'INVALID_INPUT', message });
  process.exit(0);
}
const sizes = pinged.map((i) => ({ width: i.width, height: i.height }));
pinged.dispose();
const pixels = sizes.reduce((n, s) => n + s.width * s.height, 0);
const biggest = sizes.reduce((b, s, i) => (s.width * s.height > sizes[b].width * sizes[b].height ? i : b), 0);
if (!sizes.length) {
  say({ refused: 'INVALID_INPUT', message: 'the file holds no image' });
  process.exit(0);
}
if (pixels > spec.maxPixels || sizes.length > spec.maxFrames) {
  say({ refused: 'IMAGE_TOO_LARGE', width: sizes[biggest].width, height: sizes[biggest].height, frames: sizes.length, pixels });
  process.exit(0);
}

/** Frame indexes (0-based) picked by \`1-3,5,7-\`, in order, each once. */
function selected(ranges, count) {
  const out = new Set();
  for (const part of ranges.split(',')) {
    const m = /^\\s*(\\d+)\\s*(?:(-)\\s*(?:(\\d+)\\s*)?)?$/.exec(part);
    if (!m) continue;
    const from = Number(m[1]);
    const to = m[2] ? (m[3] ? Number(m[3]) : count) : from;
    for (let p = Math.max(1, from); p <= Math.min(count, to); p++) out.add(p - 1);
  }
  return [...out].sort((a, b) => a - b);
}
let picked = spec.pages ? selected(spec.pages, sizes.length) : spec.pick === 'all' ? sizes.map((_, i) => i) : [spec.pick === 'largest' ? biggest : 0];
if (!picked.length) {
  say({ refused: 'INVALID_INPUT', message: 'pages ' + spec.pages + ' selects none of the ' + sizes.length + ' frames of the image' });
  process.exit(0);
}

function prepare(image) {
  image.autoOrient();
  const { width, height, fit = 'max' } = spec;
  if (width || height) {
    const box = (width ?? '') + 'x' + (height ?? '');
    if (fit === 'crop' && width && height) {
      const g = new m.MagickGeometry(box);
      g.fillArea = true;
      image.resize(g);
      image.crop(width, height, m.Gravity.Center);
      image.resetPage();
    } else {
      const g = new m.MagickGeometry(box);
      if (fit === 'scale') g.ignoreAspectRatio = Boolean(width && height);
      else g.greater = true;
      image.resize(g);
    }
  }
  if (spec.maxSide && (image.width > spec.maxSide || image.height > spec.maxSide)) {
    const g = new m.MagickGeometry(spec.maxSide, spec.maxSide);
    image.resize(g);
  }
  if (spec.colorspace === 'gray') image.grayscale();
  else if (spec.colorspace === 'cmyk') image.colorSpace = m.ColorSpace.CMYK;
  else if (spec.colorspace === 'srgb') image.colorSpace = m.ColorSpace.sRGB;
  if (spec.opaque && image.hasAlpha) {
    image.backgroundColor = m.MagickColors.White;
    image.alpha(m.AlphaAction.Remove);
    image.alpha(m.AlphaAction.Off);
  }
  if (spec.strip) image.strip();
  if (spec.quality) image.quality = spec.quality;
  if (spec.density) image.density = new m.Density(spec.density, spec.density, m.DensityUnit.PixelsPerInch);
}

const images = m.MagickImageCollection.create();
try {
  if (picked.length === 1) images.read(bytes, settings({ frameIndex: picked[0], frameCount: 1 }));
  else {
    const all = m.MagickImageCollection.create();
    all.read(bytes, settings());
    const keep = new Set(picked);
    all.forEach((image, i) => (keep.has(i) ? images.push(image) : image.dispose()));
  }
} catch (err) {
  say({ refused: 'INVALID_INPUT', message: String(err.message || err) });
  process.exit(0);
}
let written = 0;
try {
  for (const image of images) prepare(image);
  const save = (data) => writeFileSync(path.join(spec.outDir, String(written++)), data);
  if (spec.multiFrame) images.write(spec.write, save);
  else for (const image of images) image.write(spec.write, save);
} catch (err) {
  say({ refused: 'CONVERSION_FAILED', message: String(err.message || err) });
  process.exit(0);
}
say({ ok: true, files: written, width: images[0].width, height: images[0].height, frames: sizes.length });
images.dispose();
`;
