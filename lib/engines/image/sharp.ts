/**
 * The sharp engine (libvips): image conversion and resizing, thumbnails, raster watermarks (also
 * rendered for video), PNG/JPG optimization. sharp is loaded on first use, so a function that never
 * touches an image never loads libvips.
 */
import type sharpFunction from 'sharp';
import type { Sharp, SharpOptions } from 'sharp';
import type { EngineCall, EngineResult } from '../core/call.js';
import { mimeType, normalizeFormat } from '../core/formats.js';

type SharpModule = typeof sharpFunction;
let loaded: Promise<SharpModule> | undefined;

export function loadSharp(): Promise<SharpModule> {
  loaded ??= import('sharp').then((m) => {
    // One task at a time per instance: the cache would only hold memory between tasks.
    m.default.cache(false);
    return m.default;
  });
  return loaded;
}

export interface ResizeOptions {
  width?: number;
  height?: number;
  /** `max`: fit inside, never enlarge; `crop`: cover the box, cut the rest; `scale`: exactly the box (aspect ignored when both are given). */
  fit?: 'max' | 'crop' | 'scale';
}

/** What the image handlers read of a task's arguments. */
export interface ImageArgs extends ResizeOptions {
  output_format?: string;
  quality?: number;
  strip?: boolean;
  profile?: string;
  colorspace?: string;
}

/** Resizing as the file API describes it (CloudConvert's `fit`). */
export function resize(image: Sharp, opts: ResizeOptions): Sharp {
  const { width, height } = opts;
  if (width === undefined && height === undefined) return image;
  const fit = opts.fit ?? 'max';
  if (fit === 'crop' && width !== undefined && height !== undefined) return image.resize(width, height, { fit: 'cover' });
  if (fit === 'scale') return image.resize(width, height, { fit: width !== undefined && height !== undefined ? 'fill' : 'inside' });
  return image.resize(width, height, { fit: 'inside', withoutEnlargement: true });
}

/** Sets the output encoder for a format, with `quality` where the format has one. */
export function encode(image: Sharp, format: string, opts: { quality?: number; optimize?: boolean } = {}): Sharp {
  const quality = opts.quality;
  switch (normalizeFormat(format)) {
    case 'jpg':
      // JPEG has no alpha: transparent areas become white rather than black.
      return image.flatten({ background: '#ffffff' }).jpeg({ quality: quality ?? 85, mozjpeg: opts.optimize ?? true });
    case 'png':
      return opts.optimize
        ? image.png({ compressionLevel: 9, effort: 10, palette: true, quality: quality ?? 80 })
        : image.png({ compressionLevel: 6 });
    case 'webp':
      return image.webp({ quality: quality ?? 80 });
    case 'avif':
      return image.avif({ quality: quality ?? 50 });
    case 'tiff':
      return image.tiff({ quality: quality ?? 85, compression: 'jpeg' });
    case 'gif':
      return image.gif();
    default:
      throw new Error(`sharp cannot write ${format}`);
  }
}

/** A sharp instance for a file with the pixel limit as a backstop (the header was checked before). */
export async function open(file: string | Buffer, limitInputPixels: number, extra: SharpOptions = {}): Promise<Sharp> {
  const sharp = await loadSharp();
  return sharp(file, { limitInputPixels, ...extra });
}

/** convert: image → image. */
export async function convertImage(call: EngineCall<ImageArgs>): Promise<EngineResult> {
  const [input] = call.inputs;
  const p = call.payload;
  const to = normalizeFormat(String(p.output_format));
  const [name] = call.names(to, 1);
  const out = call.output(name!);
  let image = (await open(input!.path, call.config.MAX_IMAGE_PIXELS, { animated: false })).rotate();
  image = resize(image, { width: p.width, height: p.height, fit: p.fit });
  if (p.strip === false) image = image.keepMetadata();
  await encode(image, to, { quality: p.quality }).toFile(out);
  return { files: [{ path: out, filename: name!, contentType: mimeType(to) }] };
}

/** A thumbnail of a raster file (an image, a rendered PDF page, a video frame) in png, jpg or webp. */
export async function thumbnailFile(source: string, out: string, format: string, opts: ResizeOptions, limit: number): Promise<void> {
  const image = resize((await open(source, limit, { animated: false })).rotate(), opts);
  await encode(image, format).toFile(out);
}

/** thumbnail: image → png/jpg/webp. */
export async function thumbnailImage(call: EngineCall<ImageArgs>): Promise<EngineResult> {
  const [input] = call.inputs;
  const p = call.payload;
  const to = normalizeFormat(String(p.output_format));
  const [name] = call.names(to, 1);
  const out = call.output(name!);
  await thumbnailFile(input!.path, out, to, { width: p.width, height: p.height, fit: p.fit }, call.config.MAX_IMAGE_PIXELS);
  return { files: [{ path: out, filename: name!, contentType: mimeType(to) }] };
}

const PROFILE_QUALITY: Record<string, number> = { web: 75, print: 90, archive: 95, mrc: 75, max: 60 };

/** optimize: png (palette quantisation, maximum compression) and jpg (mozjpeg), metadata removed. */
export async function optimizeImage(call: EngineCall<ImageArgs>): Promise<EngineResult> {
  const [input] = call.inputs;
  const p = call.payload;
  const format = input!.format!;
  const [name] = call.names(format, 1);
  const out = call.output(name!);
  let image = (await open(input!.path, call.config.MAX_IMAGE_PIXELS)).rotate();
  if (p.colorspace === 'gray') image = image.greyscale();
  const quality = p.quality ?? PROFILE_QUALITY[String(p.profile ?? 'web')] ?? 75;
  await encode(image, format, { quality, optimize: true }).toFile(out);
  return { files: [{ path: out, filename: name!, contentType: mimeType(format) }] };
}

// ---------------------------------------------------------------------------------------------------
// Watermarks

export interface WatermarkSpec {
  text?: string;
  font_size?: number;
  font_width_percent?: number;
  font_color?: string;
  font_name?: string;
  font_align?: 'left' | 'center' | 'right';
  image_width?: number;
  image_height?: number;
  image_width_percent?: number;
  opacity?: number;
  rotation?: number;
  position_vertical?: 'top' | 'center' | 'bottom';
  position_horizontal?: 'left' | 'center' | 'right';
  margin_vertical?: number;
  margin_horizontal?: number;
  layer?: 'above' | 'below';
}

/** A font name of the file API as a fontconfig description (family and style). */
export function fontDescription(fontName = 'Helvetica'): string {
  const family = /times/i.test(fontName) ? 'serif' : /courier/i.test(fontName) ? 'monospace' : 'sans-serif';
  const style = [/bold/i.test(fontName) ? 'Bold' : '', /italic|oblique/i.test(fontName) ? 'Italic' : ''].filter(Boolean).join(' ');
  return `${family}${style ? ` ${style}` : ''}`;
}

const escapeMarkup = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const hex6 = (color = '#000000') => (color.length === 4 ? `#${[...color.slice(1)].map((c) => c + c).join('')}` : color);

async function renderText(spec: WatermarkSpec, sizePx: number): Promise<Buffer> {
  const sharp = await loadSharp();
  const size = Math.max(1, Math.round(sizePx * 10) / 10);
  const align = spec.font_align === 'left' ? 'left' : spec.font_align === 'right' ? 'right' : 'centre';
  return sharp({
    text: {
      text: `<span foreground="${hex6(spec.font_color)}">${escapeMarkup(spec.text ?? '')}</span>`,
      font: `${fontDescription(spec.font_name)} ${size}`,
      dpi: 72,
      rgba: true,
      align,
    },
  })
    .png()
    .toBuffer();
}

/** Rotates (counter-clockwise for positive angles, as in PDF) on a transparent background. */
async function rotate(png: Buffer, degrees: number): Promise<Buffer> {
  if (!degrees) return png;
  const sharp = await loadSharp();
  return sharp(png).rotate(-degrees, { background: { r: 0, g: 0, b: 0, alpha: 0 } }).png().toBuffer();
}

async function withOpacity(png: Buffer, opacity: number): Promise<Buffer> {
  if (opacity >= 100) return png;
  const sharp = await loadSharp();
  const { width, height } = await sharp(png).metadata();
  return sharp(png)
    .ensureAlpha()
    .composite([{ input: { create: { width: width!, height: height!, channels: 4, background: { r: 0, g: 0, b: 0, alpha: Math.max(0, opacity) / 100 } } }, blend: 'dest-in' }])
    .png()
    .toBuffer();
}

async function sizeOf(png: Buffer): Promise<{ width: number; height: number }> {
  const sharp = await loadSharp();
  const { width, height } = await sharp(png).metadata();
  return { width: width ?? 0, height: height ?? 0 };
}

/**
 * The watermark as a transparent PNG, rotated, at its opacity, sized for a canvas whose usable width
 * is `availableWidth` (for the `*_width_percent` arguments; `undefined` without a canvas).
 */
export async function renderWatermark(
  spec: WatermarkSpec,
  opts: { availableWidth?: number; image?: string; limit: number },
): Promise<{ png: Buffer; width: number; height: number }> {
  const sharp = await loadSharp();
  const rotation = spec.rotation ?? 0;
  let mark: Buffer;
  if (opts.image) {
    let image = (await open(opts.image, opts.limit)).rotate().ensureAlpha();
    if (spec.image_width !== undefined || spec.image_height !== undefined) {
      image = image.resize(spec.image_width, spec.image_height, { fit: spec.image_width && spec.image_height ? 'fill' : 'inside' });
    }
    mark = await rotate(await image.png().toBuffer(), rotation);
    if (spec.image_width_percent !== undefined && opts.availableWidth) {
      const target = Math.max(1, Math.round((opts.availableWidth * spec.image_width_percent) / 100));
      mark = await sharp(mark).resize({ width: target }).png().toBuffer();
    }
  } else {
    let size = spec.font_size ?? 40;
    if (spec.font_width_percent !== undefined && opts.availableWidth) {
      // Rendered once at a reference size to measure, then at the size that gives the wanted width.
      const probe = await sizeOf(await rotate(await renderText(spec, 100), rotation));
      const target = (opts.availableWidth * spec.font_width_percent) / 100;
      size = probe.width > 0 ? (100 * target) / probe.width : size;
    }
    mark = await rotate(await renderText(spec, size), rotation);
  }
  mark = await withOpacity(mark, spec.opacity ?? 100);
  const { width, height } = await sizeOf(mark);
  return { png: mark, width, height };
}

/** Where a `width`×`height` watermark goes on a `canvasWidth`×`canvasHeight` canvas. */
export function placement(spec: WatermarkSpec, canvas: { width: number; height: number }, mark: { width: number; height: number }) {
  const mh = spec.margin_horizontal ?? 25;
  const mv = spec.margin_vertical ?? 25;
  const h = spec.position_horizontal ?? 'center';
  const v = spec.position_vertical ?? 'center';
  const left = h === 'left' ? mh : h === 'right' ? canvas.width - mh - mark.width : (canvas.width - mark.width) / 2;
  const top = v === 'top' ? mv : v === 'bottom' ? canvas.height - mv - mark.height : (canvas.height - mark.height) / 2;
  const clamp = (n: number, max: number) => Math.round(Math.min(Math.max(0, n), Math.max(0, max)));
  return { left: clamp(left, canvas.width - mark.width), top: clamp(top, canvas.height - mark.height) };
}

/** Shrinks a watermark that is larger than the canvas so that it fits. */
export async function fitInside(mark: { png: Buffer; width: number; height: number }, canvas: { width: number; height: number }) {
  if (mark.width <= canvas.width && mark.height <= canvas.height) return mark;
  const sharp = await loadSharp();
  const png = await sharp(mark.png).resize(canvas.width, canvas.height, { fit: 'inside' }).png().toBuffer();
  return { png, ...(await sizeOf(png)) };
}

/** watermark: an image (any format sharp writes) with a text or image watermark. */
export async function watermarkImage(call: EngineCall<WatermarkSpec>, watermarkImagePath?: string): Promise<EngineResult> {
  const [input] = call.inputs;
  const spec = call.payload;
  const format = input!.format!;
  const [name] = call.names(format, 1);
  const out = call.output(name!);
  const sharp = await loadSharp();
  const base = (await open(input!.path, call.config.MAX_IMAGE_PIXELS, { animated: false })).rotate();
  // Orientation applied first, so the watermark sits on the picture as it is seen.
  const oriented = await base.png().toBuffer({ resolveWithObject: true });
  const canvas = { width: oriented.info.width, height: oriented.info.height };
  const available = Math.max(1, canvas.width - 2 * (spec.margin_horizontal ?? 25));
  const mark = await fitInside(await renderWatermark(spec, { availableWidth: available, image: watermarkImagePath, limit: call.config.MAX_IMAGE_PIXELS }), canvas);
  const at = placement(spec, canvas, mark);
  let result: Sharp;
  if (spec.layer === 'below') {
    result = sharp({ create: { ...canvas, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).composite([
      { input: mark.png, ...at },
      { input: oriented.data, left: 0, top: 0 },
    ]);
  } else {
    result = sharp(oriented.data).composite([{ input: mark.png, ...at }]);
  }
  await encode(result, format, { quality: 90 }).toFile(out);
  return { files: [{ path: out, filename: name!, contentType: mimeType(format) }] };
}

/** watermark without input: the watermark alone, as a transparent PNG. */
export async function watermarkPng(call: EngineCall<WatermarkSpec & { filename?: string }>, watermarkImagePath?: string): Promise<EngineResult> {
  const spec = call.payload;
  const mark = await renderWatermark(spec, { image: watermarkImagePath, limit: call.config.MAX_IMAGE_PIXELS });
  const name = typeof call.payload.filename === 'string' ? call.payload.filename : 'watermark.png';
  const out = call.output(name);
  const { writeFile } = await import('node:fs/promises');
  await writeFile(out, mark.png);
  return { files: [{ path: out, filename: name, contentType: 'image/png' }] };
}
