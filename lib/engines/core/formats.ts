/** File formats by name (the extension, lower-case): aliases, groups, MIME types, detection. */
import { DEFAULT_CONTENT_TYPE, typeOfExtension } from '../../adapters/user-storage/mime.js';
import { MEDIA_GROUPS, sniffMedia } from './media-formats.js';

const ALIASES: Record<string, string> = {
  jpeg: 'jpg',
  jpe: 'jpg',
  jfif: 'jpg',
  tif: 'tiff',
  htm: 'html',
  // Markup: the long names of md and tex, DocBook's own name.
  markdown: 'md',
  latex: 'tex',
  docbook: 'dbk',
  oga: 'ogg',
  mpeg4: 'mp4',
  // Archives: the short names of the compressed tar forms, and the compressors' long names.
  tgz: 'tar.gz',
  tbz2: 'tar.bz2',
  tbz: 'tar.bz2',
  txz: 'tar.xz',
  gzip: 'gz',
  bzip2: 'bz2',
};

/** The canonical name of a format (`JPEG` → `jpg`, `tif` → `tiff`). */
export const normalizeFormat = (format: string): string => {
  const f = format.trim().toLowerCase().replace(/^\./, '');
  return ALIASES[f] ?? f;
};

export const IMAGE_FORMATS = ['jpg', 'png', 'webp', 'avif', 'tiff', 'gif'] as const;
/** Images sharp reads but does not write. */
export const IMAGE_INPUT_FORMATS = [...IMAGE_FORMATS, 'svg'] as const;
export const THUMBNAIL_FORMATS = ['png', 'jpg', 'webp'] as const;
export const WRITER_FORMATS = ['docx', 'doc', 'odt', 'rtf', 'txt'] as const;
export const CALC_FORMATS = ['xlsx', 'xls', 'ods', 'csv'] as const;
export const IMPRESS_FORMATS = ['pptx', 'ppt', 'odp'] as const;
export const VIDEO_FORMATS = ['mp4', 'webm', 'mov', 'mkv', 'avi'] as const;
export const AUDIO_FORMATS = ['mp3', 'wav', 'ogg', 'm4a', 'flac', 'opus'] as const;

const GROUPS: Record<string, string> = {
  ...Object.fromEntries(IMAGE_INPUT_FORMATS.map((f) => [f, 'image'])),
  pdf: 'document',
  html: 'document',
  ...Object.fromEntries([...WRITER_FORMATS, ...CALC_FORMATS, ...IMPRESS_FORMATS].map((f) => [f, 'document'])),
  ...Object.fromEntries(VIDEO_FORMATS.map((f) => [f, 'video'])),
  ...Object.fromEntries(AUDIO_FORMATS.map((f) => [f, 'audio'])),
  ...MEDIA_GROUPS,
  // The fonteditor engine's formats (lib/engines/font/formats.ts).
  ...Object.fromEntries(['ttf', 'otf', 'woff', 'woff2', 'eot'].map((f) => [f, 'font'])),
};

/** `image`, `document`, `video`, `audio`, or `other` (discovery's `meta.group`). */
export const formatGroup = (format: string | null): string => (format ? (GROUPS[normalizeFormat(format)] ?? groupOfType(format)) : 'other');
/** A format no list above names: `image` when its content type is an image's (the imagemagick engine's formats). */
const groupOfType = (format: string): string => (mimeType(format).startsWith('image/') ? 'image' : 'other');

/** A format's content type, from the one extension table (lib/adapters/user-storage/mime.ts). */
export const mimeType = (format: string): string => typeOfExtension(`x.${normalizeFormat(format)}`) ?? DEFAULT_CONTENT_TYPE;

/** The format a file name says it has (its extension), if any. */
export function formatOfFilename(filename: string): string | undefined {
  // A compressed tar says so in two extensions (`x.tar.gz`): the format is both.
  const tar = /\.tar\.(gz|bz2|xz|lzma|7z)$/i.exec(filename);
  if (tar && tar.index > 0) return `tar.${tar[1]!.toLowerCase()}`;
  const dot = filename.lastIndexOf('.');
  if (dot <= 0 || dot === filename.length - 1) return undefined;
  return normalizeFormat(filename.slice(dot + 1));
}

/**
 * Whether a file's first bytes are a PDF's: `%PDF-` at offset 0, nothing before it. Readers such as
 * Acrobat tolerate up to 1 KB of leading bytes, but Ghostscript runs a file that does not start with
 * the PDF signature as PostScript, so a PostScript program with a PDF after it (or leading junk, an EPS
 * binary header, a byte-order mark) is not a PDF here. This is the one rule everywhere a PDF is
 * recognised (sniffing, the checks before any engine, page counting).
 */
export const isPdfHead = (head: Uint8Array): boolean =>
  head.length >= 5 && head[0] === 0x25 && head[1] === 0x50 && head[2] === 0x44 && head[3] === 0x46 && head[4] === 0x2d;

/** How many first bytes `sniffFormat` looks at. */
export const SNIFF_BYTES = 512;

/** What a file that is not a PDF starts like, for the refusal's message. */
export function describeHead(head: Uint8Array): string {
  if (head[0] === 0x25 && head[1] === 0x21) return 'PostScript (%!)';
  if (head[0] === 0xc5 && head[1] === 0xd0 && head[2] === 0xd3 && head[3] === 0xc6) return 'an EPS binary header';
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'a byte-order mark';
  if (head.length === 0) return 'nothing (it is empty)';
  return 'other bytes';
}

/**
 * An MPEG audio frame header (MP3 without an ID3 tag): 11 sync bits, layer I–III (not 00, which is
 * AAC's ADTS), a bitrate index that is not "bad" (1111) and a sample rate that is not reserved (11).
 */
const isMpegAudioFrame = (head: Uint8Array): boolean =>
  head.length >= 3 && head[0] === 0xff && (head[1]! & 0xe0) === 0xe0 && (head[1]! & 0x06) !== 0 && head[2]! >> 4 !== 0x0f && ((head[2]! >> 2) & 0x03) !== 0x03;

/**
 * The format from a file's first bytes (`SNIFF_BYTES` are enough), for files named without an
 * extension: the engines' input format, and the content type a download is given (lib/file-api/operations/framework/content-type.ts).
 */
export function sniffFormat(head: Buffer): string | undefined {
  const starts = (sig: number[], at = 0) => sig.every((b, i) => head[at + i] === b);
  const ascii = (text: string, at = 0) => head.subarray(at, at + text.length).toString('latin1') === text;
  if (isPdfHead(head)) return 'pdf';
  if (starts([0x89, 0x50, 0x4e, 0x47])) return 'png';
  if (starts([0xff, 0xd8, 0xff])) return 'jpg';
  if (starts([0x47, 0x49, 0x46, 0x38])) return 'gif';
  if (ascii('RIFF') && ascii('WEBP', 8)) return 'webp';
  if (ascii('RIFF') && ascii('WAVE', 8)) return 'wav';
  if (starts([0x49, 0x49, 0x2a, 0x00]) || starts([0x4d, 0x4d, 0x00, 0x2a])) return 'tiff';
  const raster = sniffRaster(head, starts, ascii);
  if (raster) return raster;
  if (ascii('ftyp', 4)) {
    const brand = head.subarray(8, 12).toString('latin1');
    if (brand.startsWith('avif') || brand.startsWith('avis')) return 'avif';
    if (['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx'].includes(brand)) return 'heic';
    if (brand === 'mif1' || brand === 'msf1') return 'heif';
    if (brand === 'M4A ') return 'm4a';
    return brand.startsWith('qt') ? 'mov' : 'mp4';
  }
  // Matroska's EBML header names its DocType near the start: WebM is the Matroska profile browsers play.
  if (starts([0x1a, 0x45, 0xdf, 0xa3])) return head.subarray(0, 64).includes('webm', 0, 'latin1') ? 'webm' : 'mkv';
  if (starts([0x50, 0x4b, 0x03, 0x04]) || starts([0x50, 0x4b, 0x05, 0x06])) return 'zip';
  if (ascii('OggS')) return 'ogg';
  if (ascii('fLaC')) return 'flac';
  // Fonts: sfnt version tags (TrueType 00010000, or Apple's `true` with a table count and search range
  // that agree, as text rarely has), WOFF, WOFF2, and EOT, which starts with its size: its magic number
  // 0x504C at byte 34 and a version (1.0, 2.1, 2.2) at byte 8.
  if (starts([0x00, 0x01, 0x00, 0x00]) || (ascii('true') && head.length >= 8 && head.readUInt16BE(6) === 16 * 2 ** Math.floor(Math.log2(head.readUInt16BE(4))))) return 'ttf';
  if (ascii('OTTO')) return 'otf';
  if (ascii('wOFF')) return 'woff';
  if (ascii('wOF2')) return 'woff2';
  if (head.length >= 36 && starts([0x4c, 0x50], 34) && [0x1_0000, 0x2_0001, 0x2_0002].includes(head.readUInt32LE(8))) return 'eot';
  if (ascii('ID3') || isMpegAudioFrame(head)) return 'mp3';
  const media = sniffMedia(head);
  if (media) return media;
  const text = head.subarray(0, 256).toString('utf8').trimStart().toLowerCase();
  if (text.startsWith('<!doctype html') || text.startsWith('<html')) return 'html';
  if (text.startsWith('<svg') || (text.startsWith('<?xml') && text.includes('<svg'))) return 'svg';
  return undefined;
}

/** Raster formats by their magic numbers (the imagemagick engine's inputs). */
function sniffRaster(head: Buffer, starts: (sig: number[], at?: number) => boolean, ascii: (text: string, at?: number) => boolean): string | undefined {
  if (ascii('BM') && head.length >= 18 && [12, 40, 52, 56, 108, 124].includes(head.readUInt32LE(14))) return 'bmp';
  if (starts([0, 0, 1, 0]) && head[4]! + head[5]! > 0 && head[9] === 0) return 'ico';
  if (starts([0, 0, 2, 0]) && head[4]! + head[5]! > 0 && head[9] === 0) return 'cur';
  if (ascii('8BPS')) return head[5] === 2 ? 'psb' : 'psd';
  if (starts([0, 0, 0, 0x0c, 0x6a, 0x50, 0x20, 0x20, 0x0d, 0x0a, 0x87, 0x0a])) return 'jp2';
  if (starts([0xff, 0x4f, 0xff, 0x51])) return 'j2k';
  if (starts([0xff, 0x0a]) || starts([0, 0, 0, 0x0c, 0x4a, 0x58, 0x4c, 0x20, 0x0d, 0x0a, 0x87, 0x0a])) return 'jxl';
  if (starts([0x76, 0x2f, 0x31, 0x01])) return 'exr';
  if (ascii('qoif')) return 'qoi';
  if (ascii('DDS ')) return 'dds';
  if (ascii('#?RADIANCE') || ascii('#?RGBE')) return 'hdr';
  if (starts([0x01, 0xda]) && (head[2] === 0 || head[2] === 1)) return 'sgi';
  if (starts([0x59, 0xa6, 0x6a, 0x95])) return 'sun';
  if (ascii('SDPX') || ascii('XPDS')) return 'dpx';
  if (ascii('id=ImageMagick')) return 'miff';
  if (ascii('/* XPM */')) return 'xpm';
  const netpbm = /^P([1-7])\s/.exec(head.subarray(0, 3).toString('latin1'));
  if (netpbm) return ({ 1: 'pbm', 4: 'pbm', 2: 'pgm', 5: 'pgm', 3: 'ppm', 6: 'ppm', 7: 'pam' } as Record<string, string>)[netpbm[1]!];
  return undefined;
}

/** `name.ext` → `name` (the name an output derives from its input's). */
export const basename = (filename: string): string => {
  const dot = filename.lastIndexOf('.');
  return dot > 0 ? filename.slice(0, dot) : filename;
};

/** Image formats of WebVTT thumbnail sprites. */
export const SPRITE_FORMATS = ['jpg', 'png', 'webp'] as const;
