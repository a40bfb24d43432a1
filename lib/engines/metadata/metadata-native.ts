/**
 * The `native` metadata engine, for where there is no perl for exiftool (a fresh machine, the Lambda
 * Node.js runtime): built from the npm packages the service already has.
 *
 * - read: images by sharp (size, format) and exifr (EXIF, GPS), PDFs by pdf-lib (the Info dictionary,
 *   page count, version), video and audio by ffprobe (duration, frame size, container tags);
 * - write: EXIF of JPEG, PNG, WebP and TIFF images by sharp (the image is encoded again: losslessly for
 *   PNG and TIFF, at quality 95 for JPEG and WebP), the Info dictionary of PDFs by pdf-lib.
 *
 * Tag names and the result are shaped like exiftool's (its names, dates as `YYYY:MM:DD hh:mm:ss`,
 * `Description`/`Creator`/`Copyright` as the MWG composites), over far fewer tags: a tag this engine
 * cannot write is refused by name, never dropped silently. The allowlist (metadata-tags.ts) is checked
 * at task creation as for exiftool. EXIF text is ASCII: libvips writes other characters transliterated
 * (`©` becomes `(C)`), where exiftool writes UTF-8 bytes.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import exifr from 'exifr';
import { PDFDocument } from 'pdf-lib';
import type { MetadataWriteArgs } from './metadata-tags.js';
import type { EngineCall, EngineResult } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { openArgs } from '../media/ffmpeg.js';
import { AUDIO_FORMATS, mimeType, VIDEO_FORMATS } from '../core/formats.js';
import { open } from '../image/sharp.js';
import { ffprobeExecutable } from '../core/shipped.js';
import { runTool } from '../core/tool.js';

/** Image formats whose EXIF this engine writes. */
export const NATIVE_WRITE_IMAGES = ['jpg', 'png', 'webp', 'tiff'] as const;

/** EXIF tags written into images, by exiftool name (and MWG composite): where sharp (libvips) puts them. */
const EXIF_TAGS: Record<string, { ifd: 'IFD0' | 'IFD2'; name: string }> = {
  imagedescription: { ifd: 'IFD0', name: 'ImageDescription' },
  description: { ifd: 'IFD0', name: 'ImageDescription' },
  make: { ifd: 'IFD0', name: 'Make' },
  model: { ifd: 'IFD0', name: 'Model' },
  software: { ifd: 'IFD0', name: 'Software' },
  modifydate: { ifd: 'IFD0', name: 'DateTime' },
  artist: { ifd: 'IFD0', name: 'Artist' },
  creator: { ifd: 'IFD0', name: 'Artist' },
  copyright: { ifd: 'IFD0', name: 'Copyright' },
  rights: { ifd: 'IFD0', name: 'Copyright' },
  datetimeoriginal: { ifd: 'IFD2', name: 'DateTimeOriginal' },
  createdate: { ifd: 'IFD2', name: 'DateTimeDigitized' },
  lensmake: { ifd: 'IFD2', name: 'LensMake' },
  lensmodel: { ifd: 'IFD2', name: 'LensModel' },
  lensserialnumber: { ifd: 'IFD2', name: 'LensSerialNumber' },
  serialnumber: { ifd: 'IFD2', name: 'BodySerialNumber' },
  ownername: { ifd: 'IFD2', name: 'CameraOwnerName' },
  imageuniqueid: { ifd: 'IFD2', name: 'ImageUniqueID' },
};
const IMAGE_GROUPS = new Set(['exif', 'ifd0', 'exififd']);

/** PDF Info entries, by exiftool name. */
const PDF_TAGS: Record<string, string> = {
  title: 'Title',
  author: 'Author',
  creator: 'Creator',
  subject: 'Subject',
  description: 'Subject',
  keywords: 'Keywords',
  producer: 'Producer',
  creatortool: 'Creator',
};
const PDF_GROUPS = new Set(['pdf']);

/** The tag's name without its group, if the group is one this engine writes for the format. */
function plainName(name: string, groups: Set<string>): string | undefined {
  const parts = name.split(':');
  const tag = parts.pop()!;
  if (parts.length && !groups.has(parts[0]!.toLowerCase())) return undefined;
  return tag.toLowerCase();
}

function refused(name: string, format: string, writable: string[]): EngineFailure {
  return new EngineFailure(
    'INVALID_INPUT',
    `The native metadata engine cannot write ${name} into ${format} files; it writes ${writable.join(', ')} (exiftool, with perl installed, writes the others).`,
  );
}

/** exiftool's form of a date: `2026:01:02 03:04:05+00:00`. */
const exifDate = (date: Date) => `${date.toISOString().slice(0, 19).replace(/-/g, ':').replace('T', ' ')}+00:00`;

/** A value exifr read, as JSON that says what it is (byte arrays as text when they are text). */
function plain(value: unknown): unknown {
  if (value instanceof Uint8Array) {
    const text = Buffer.from(value).toString('latin1');
    return /^[\x20-\x7e]*$/.test(text) ? text : undefined;
  }
  if (value instanceof Date) return exifDate(value);
  if (Array.isArray(value)) return value.map(plain);
  return value;
}

async function readImage(file: string, limit: number): Promise<Record<string, unknown>> {
  const info = await (await open(file, limit)).metadata();
  const out: Record<string, unknown> = {
    FileType: info.format === 'jpeg' ? 'JPEG' : String(info.format).toUpperCase(),
    ImageWidth: info.width,
    ImageHeight: info.height,
  };
  if (info.exif && info.exif.length > 8) {
    // sharp gives JPEG's APP1 with its "Exif\0\0" header, other formats the TIFF structure alone.
    const tiff = info.exif.subarray(0, 6).toString('latin1') === 'Exif\0\0' ? info.exif.subarray(6) : info.exif;
    try {
      const tags = (await exifr.parse(tiff, { tiff: true, exif: true, gps: true, ifd1: false, reviveValues: false, translateValues: false, mergeOutput: true })) as Record<string, unknown> | undefined;
      for (const [key, value] of Object.entries(tags ?? {})) {
        const shown = plain(value);
        if (shown !== undefined) out[key] = shown;
      }
    } catch {
      // unreadable EXIF: the image's own facts stay
    }
  }
  // The MWG composites exiftool reads with `-use MWG`.
  if (out.ImageDescription !== undefined) out.Description ??= out.ImageDescription;
  if (out.Artist !== undefined) out.Creator ??= out.Artist;
  return out;
}

async function readPdf(file: string): Promise<Record<string, unknown>> {
  const bytes = await readFile(file);
  const doc = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false });
  const out: Record<string, unknown> = {
    FileType: 'PDF',
    PDFVersion: /^%PDF-(\d\.\d)/.exec(bytes.subarray(0, 16).toString('latin1'))?.[1],
    PageCount: doc.getPageCount(),
  };
  const text: Array<[string, string | undefined]> = [
    ['Title', doc.getTitle()],
    ['Author', doc.getAuthor()],
    ['Subject', doc.getSubject()],
    ['Keywords', doc.getKeywords()],
    ['Creator', doc.getCreator()],
    ['Producer', doc.getProducer()],
  ];
  for (const [key, value] of text) if (value !== undefined) out[key] = value;
  const created = doc.getCreationDate();
  const modified = doc.getModificationDate();
  if (created) out.CreateDate = exifDate(created);
  if (modified) out.ModifyDate = exifDate(modified);
  return out;
}

async function readMedia(call: EngineCall, file: string, format: string | null): Promise<Record<string, unknown>> {
  const ffprobe = await ffprobeExecutable(call.config);
  if (!ffprobe) throw new EngineFailure('ENGINE_UNAVAILABLE', 'Reading metadata of video and audio needs ffprobe (or exiftool with perl); neither is installed.');
  const { stdout } = await runTool(ffprobe, ['-v', 'error', ...openArgs(format), '-print_format', 'json', '-show_format', '-show_streams', file], {
    ...call.tool,
    captureStdout: true,
  });
  const info = JSON.parse(stdout) as {
    format?: { duration?: string; bit_rate?: string; tags?: Record<string, string> };
    streams?: Array<{ codec_type?: string; codec_name?: string; width?: number; height?: number; avg_frame_rate?: string; sample_rate?: string; channels?: number }>;
  };
  const video = info.streams?.find((s) => s.codec_type === 'video');
  const audio = info.streams?.find((s) => s.codec_type === 'audio');
  const out: Record<string, unknown> = { FileType: (format ?? '').toUpperCase() };
  const duration = Number(info.format?.duration);
  if (Number.isFinite(duration)) out.Duration = Math.round(duration * 1000) / 1000;
  if (video) Object.assign(out, { ImageWidth: video.width, ImageHeight: video.height, VideoCodec: video.codec_name });
  if (audio) Object.assign(out, { AudioCodec: audio.codec_name, AudioSampleRate: Number(audio.sample_rate), AudioChannels: audio.channels });
  // Container tags (`title`, `artist`, …) under exiftool's capitalized names.
  for (const [key, value] of Object.entries(info.format?.tags ?? {})) {
    const name = key.replace(/(^|_)(\w)/g, (_, __, c: string) => c.toUpperCase());
    if (!(name in out)) out[name] = value;
  }
  return out;
}

/** metadata: what the engine reads of the file (exiftool's names, fewer tags). */
export async function readMetadataNative(call: EngineCall): Promise<EngineResult> {
  const [input] = call.inputs;
  const format = input!.format;
  let metadata: Record<string, unknown>;
  if (format === 'pdf') metadata = await readPdf(input!.path);
  else if (format && ((VIDEO_FORMATS as readonly string[]).includes(format) || (AUDIO_FORMATS as readonly string[]).includes(format))) {
    metadata = await readMedia(call, input!.path, format);
  } else metadata = await readImage(input!.path, call.config.MAX_IMAGE_PIXELS);
  metadata.MIMEType = mimeType(format ?? 'bin');
  metadata.FileSize = (await stat(input!.path)).size;
  metadata.FileName = input!.filename;
  return { files: [], metadata };
}

async function writeImage(file: string, out: string, format: string, tags: Record<string, string | number>, limit: number): Promise<void> {
  const exif: { IFD0: Record<string, string>; IFD2: Record<string, string> } = { IFD0: {}, IFD2: {} };
  for (const [name, value] of Object.entries(tags)) {
    const plainTag = plainName(name, IMAGE_GROUPS);
    const target = plainTag ? EXIF_TAGS[plainTag] : undefined;
    if (!target) throw refused(name, format, [...new Set(Object.values(EXIF_TAGS).map((t) => t.name))]);
    exif[target.ifd][target.name] = String(value);
  }
  const image = (await open(file, limit)).keepMetadata().withExifMerge(exif);
  const encoded =
    format === 'jpg'
      ? image.jpeg({ quality: 95, chromaSubsampling: '4:4:4' })
      : format === 'png'
        ? image.png()
        : format === 'webp'
          ? image.webp({ quality: 95 })
          : image.tiff({ compression: 'lzw' });
  await encoded.toFile(out);
}

async function writePdf(file: string, out: string, tags: Record<string, string | number>): Promise<void> {
  const doc = await PDFDocument.load(await readFile(file), { updateMetadata: false });
  const set: Record<string, (value: string) => void> = {
    Title: (v) => doc.setTitle(v),
    Author: (v) => doc.setAuthor(v),
    Subject: (v) => doc.setSubject(v),
    // One entry, as written (pdf-lib joins a list with spaces).
    Keywords: (v) => doc.setKeywords([v]),
    Creator: (v) => doc.setCreator(v),
    Producer: (v) => doc.setProducer(v),
  };
  for (const [name, value] of Object.entries(tags)) {
    const plainTag = plainName(name, PDF_GROUPS);
    const key = plainTag ? PDF_TAGS[plainTag] : undefined;
    if (!key) throw refused(name, 'pdf', [...new Set(Object.values(PDF_TAGS))]);
    set[key]!(String(value));
  }
  await writeFile(out, await doc.save({ useObjectStreams: false }));
}

/** metadata/write: a copy of the file with the tags written (EXIF of images, Info of PDFs). */
export async function writeMetadataNative(call: EngineCall<MetadataWriteArgs>): Promise<EngineResult> {
  const [input] = call.inputs;
  const tags = call.payload.metadata;
  const format = input!.format ?? 'bin';
  const [name] = call.names(format, 1);
  const out = call.output(name!);
  if (format === 'pdf') await writePdf(input!.path, out, tags);
  else if ((NATIVE_WRITE_IMAGES as readonly string[]).includes(format)) await writeImage(input!.path, out, format, tags, call.config.MAX_IMAGE_PIXELS);
  else throw new EngineFailure('UNSUPPORTED_FORMAT', `The native metadata engine cannot write ${format} files.`);
  return { files: [{ path: out, filename: name!, contentType: mimeType(format) }] };
}
