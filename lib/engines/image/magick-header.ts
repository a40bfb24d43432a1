/**
 * The size an image declares in its header, read here before ImageMagick sees the file. ImageMagick's
 * ping is not enough for every coder: the PSD, BMP, PCX, SGI, netpbm, EXR, XPM, MIFF, Palm, VIPS and icon readers
 * walk (and some fill) every pixel even when pinging, so a small run-length coded file declaring
 * 30000 × 30000 pixels costs seconds and gigabytes before any limit is checked. For those formats the
 * header's own numbers decide; the others (JPEG 2000, JPEG XL, TGA, DDS, QOI…) ping in a few
 * milliseconds and are checked from the ping (magick-child.ts).
 */
import { open } from 'node:fs/promises';

export interface Declared {
  width: number;
  height: number;
}

/** Reads `length` bytes of the file at `offset` (fewer at its end). */
type Reader = (offset: number, length: number) => Promise<Buffer>;

const HEAD = 4096;

const text = (head: Buffer) => head.toString('latin1');
const number = (match: RegExpMatchArray | null, group = 1) => (match ? Number(match[group]) : Number.NaN);

/** Netpbm: `P1`–`P6` then width and height as text, with `#` comments; `P7` (PAM): WIDTH and HEIGHT lines. */
function netpbm(head: Buffer): Declared | undefined {
  const header = text(head).replace(/#[^\n]*/g, ' ');
  if (header.startsWith('P7')) return { width: number(header.match(/\bWIDTH\s+(\d+)/)), height: number(header.match(/\bHEIGHT\s+(\d+)/)) };
  const m = header.match(/^P[1-6]\s+(\d+)\s+(\d+)/);
  return { width: number(m, 1), height: number(m, 2) };
}

/** OpenEXR: the `dataWindow` attribute (box2i) of the first part's header. */
function exr(head: Buffer): Declared | undefined {
  const at = head.indexOf('dataWindow\0box2i\0', 8, 'latin1');
  if (at < 0) return undefined;
  const box = at + 'dataWindow\0box2i\0'.length + 4;
  if (box + 16 > head.length) return undefined;
  return { width: head.readInt32LE(box + 8) - head.readInt32LE(box) + 1, height: head.readInt32LE(box + 12) - head.readInt32LE(box + 4) + 1 };
}

/** ICO and CUR: the largest entry, as its PNG or BMP header says (not the directory's one-byte sizes). */
async function icon(head: Buffer, read: Reader): Promise<Declared | undefined> {
  const count = Math.min(head.readUInt16LE(4), 256);
  let largest: Declared = { width: 0, height: 0 };
  for (let i = 0; i < count; i++) {
    const entry = 6 + i * 16;
    if (entry + 16 > head.length) break;
    const image = await read(head.readUInt32LE(entry + 12), 24);
    if (image.length < 24) continue;
    const png = image.readUInt32BE(0) === 0x89504e47;
    // Only entries that are what an icon holds (a PNG, or a BMP's 40-byte info header): the rest are not sized here.
    if (!png && image.readUInt32LE(0) !== 40) continue;
    const size = png
      ? { width: image.readUInt32BE(16), height: image.readUInt32BE(20) }
      : { width: Math.abs(image.readInt32LE(4)), height: Math.abs(image.readInt32LE(8)) / 2 };
    if (size.width * size.height > largest.width * largest.height) largest = size;
  }
  return largest;
}

function bmp(head: Buffer): Declared {
  if (head.readUInt32LE(14) === 12) return { width: head.readUInt16LE(18), height: head.readUInt16LE(20) };
  return { width: Math.abs(head.readInt32LE(18)), height: Math.abs(head.readInt32LE(22)) };
}

/** What each format's first bytes are: a header that is not one is left to ImageMagick, which refuses it. */
const SIGNATURES: Readonly<Record<string, (head: Buffer) => boolean>> = {
  bmp: (head) => text(head.subarray(0, 2)) === 'BM',
  psd: (head) => text(head.subarray(0, 4)) === '8BPS',
  psb: (head) => text(head.subarray(0, 4)) === '8BPS',
  pcx: (head) => head[0] === 0x0a,
  sgi: (head) => head.readUInt16BE(0) === 474,
  exr: (head) => head.readUInt32LE(0) === 20000630,
  ico: (head) => head.readUInt16LE(0) === 0 && [1, 2].includes(head.readUInt16LE(2)),
  cur: (head) => head.readUInt16LE(0) === 0 && [1, 2].includes(head.readUInt16LE(2)),
  vips: (head) => [0x08f2a6b6, 0xb6a6f208].includes(head.readUInt32BE(0)),
};

const READERS: Readonly<Record<string, (head: Buffer, read: Reader) => Declared | undefined | Promise<Declared | undefined>>> = {
  bmp,
  psd: (head) => ({ width: head.readUInt32BE(18), height: head.readUInt32BE(14) }),
  psb: (head) => ({ width: head.readUInt32BE(18), height: head.readUInt32BE(14) }),
  pcx: (head) => ({ width: head.readUInt16LE(8) - head.readUInt16LE(4) + 1, height: head.readUInt16LE(10) - head.readUInt16LE(6) + 1 }),
  sgi: (head) => ({ width: head.readUInt16BE(6), height: head.readUInt16BE(8) }),
  ppm: netpbm,
  pgm: netpbm,
  pbm: netpbm,
  pnm: netpbm,
  pam: netpbm,
  exr,
  xpm: (head) => {
    const m = text(head).match(/"\s*(\d+)\s+(\d+)\s+\d+\s+\d+/);
    return { width: number(m, 1), height: number(m, 2) };
  },
  xbm: (head) => ({ width: number(text(head).match(/_width\s+(\d+)/)), height: number(text(head).match(/_height\s+(\d+)/)) }),
  miff: (head) => ({ width: number(text(head).match(/\bcolumns=(\d+)/)), height: number(text(head).match(/\brows=(\d+)/)) }),
  ico: icon,
  cur: icon,
  palm: (head) => ({ width: head.readUInt16BE(0), height: head.readUInt16BE(2) }),
  // The magic number's byte order is the header's.
  vips: (head) =>
    head.readUInt32BE(0) === 0x08f2a6b6
      ? { width: head.readInt32BE(4), height: head.readInt32BE(8) }
      : { width: head.readInt32LE(4), height: head.readInt32LE(8) },
};

/**
 * The largest picture `file` (of `format`) declares, from its header; `undefined` for a format whose
 * ping is cheap or a file whose first bytes are not that format's, and NaN sizes for a header that
 * says nothing readable (ImageMagick then refuses the file itself).
 */
export async function declaredSize(file: string, format: string): Promise<Declared | undefined> {
  const reader = READERS[format];
  if (!reader) return undefined;
  const handle = await open(file, 'r');
  try {
    const read: Reader = async (offset, length) => {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, offset);
      return buffer.subarray(0, bytesRead);
    };
    const head = await read(0, HEAD);
    if (head.length < 32 || SIGNATURES[format]?.(head) === false) return undefined;
    return await reader(head, read);
  } finally {
    await handle.close();
  }
}
