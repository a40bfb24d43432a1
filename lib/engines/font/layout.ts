/**
 * What a font file holds, read from its headers and table directory only, before anything is
 * decompressed or parsed: its container, its outlines, and how many bytes its sfnt takes unpacked.
 * This is where a truncated or corrupt font, and a WOFF or WOFF2 whose lengths claim more than
 * MAX_FONT_BYTES (a decompression bomb: the decoders allocate what the header says), are refused with
 * the task's error code. The engine's child (child.ts) decodes only what passed, and inflates each WOFF
 * table to no more than its checked length.
 */
import { EngineFailure } from '../core/errors.js';
import { EOT_VERSIONS, fontContainer, sfntOutlines, type FontContainer, type Outlines } from './formats.js';

export interface FontLayout {
  container: FontContainer;
  outlines: Outlines;
  /** The bytes of the sfnt it unpacks to, as its headers declare them. */
  sfntBytes: number;
  /** An EOT's embedded font: where it is, and whether it is XOR-obfuscated (EOT's TTEMBED_XORENCRYPTDATA). */
  embedded?: { offset: number; length: number; xor: boolean };
}

const invalid = (name: string, why: string) => new EngineFailure('INVALID_INPUT', `${name} is not a font that can be read: ${why}.`);
const padded = (n: number) => n + ((4 - (n % 4)) % 4);

/** Refuses `bytes` past MAX_FONT_BYTES, naming what declared them. */
function checkSize(name: string, bytes: number, what: string, max: number): void {
  if (bytes > max) {
    throw new EngineFailure('FILE_TOO_LARGE', `${name} ${what} ${bytes} bytes; fonts of up to ${max} bytes are converted (MAX_FONT_BYTES).`);
  }
}

/** The layout of the font file `bytes` (`name`: its file name in messages). */
export function fontLayout(name: string, bytes: Buffer, max: number): FontLayout {
  checkSize(name, bytes.length, 'is', max);
  const container = fontContainer(bytes);
  if (!container) throw invalid(name, 'it starts with none of the signatures of TrueType, OpenType, WOFF, WOFF2 or EOT');
  if (container === 'woff') return woffLayout(name, bytes, max);
  if (container === 'woff2') return woff2Layout(name, bytes, max);
  if (container === 'eot') return eotLayout(name, bytes, max);
  return { container, outlines: sfntTables(name, bytes), sfntBytes: bytes.length };
}

/** Checks an sfnt's table directory against its length; returns its outlines. */
function sfntTables(name: string, sfnt: Buffer): Outlines {
  if (sfnt.length < 12) throw invalid(name, 'it ends inside its header');
  const outlines = sfntOutlines(sfnt.readUInt32BE(0));
  if (!outlines) throw invalid(name, 'its embedded data is not a TrueType or OpenType font');
  const tables = sfnt.readUInt16BE(4);
  if (tables === 0) throw invalid(name, 'it has no tables');
  if (12 + 16 * tables > sfnt.length) throw invalid(name, 'it ends inside its table directory');
  for (let i = 0, at = 12; i < tables; i++, at += 16) {
    if (sfnt.readUInt32BE(at + 8) + sfnt.readUInt32BE(at + 12) > sfnt.length) {
      throw invalid(name, `its table ${sfnt.toString('latin1', at, at + 4).trim()} lies past its end (the file is truncated)`);
    }
  }
  return outlines;
}

/** The outlines of a WOFF or WOFF2 flavor; a font collection is refused. */
function flavorOutlines(name: string, flavor: number): Outlines {
  if (flavor === 0x7474_6366) throw new EngineFailure('UNSUPPORTED_FORMAT', `${name} is a font collection; single fonts are converted.`);
  const outlines = sfntOutlines(flavor);
  if (!outlines) throw invalid(name, 'its flavor is neither TrueType nor CFF');
  return outlines;
}

/** WOFF 1.0: a 44-byte header, then 20 bytes per table: tag, offset, compLength, origLength, checksum. */
function woffLayout(name: string, woff: Buffer, max: number): FontLayout {
  if (woff.length < 44) throw invalid(name, 'it ends inside its WOFF header');
  const outlines = flavorOutlines(name, woff.readUInt32BE(4));
  if (woff.readUInt32BE(8) !== woff.length) throw invalid(name, `its header says ${woff.readUInt32BE(8)} bytes and it has ${woff.length} (the file is truncated or has trailing data)`);
  const tables = woff.readUInt16BE(12);
  if (tables === 0 || 44 + 20 * tables > woff.length) throw invalid(name, 'its table directory does not fit in it');
  checkSize(name, woff.readUInt32BE(16), 'declares a font of', max);
  let sfntBytes = 12 + 16 * tables;
  for (let i = 0, at = 44; i < tables; i++, at += 20) {
    const [offset, compLength, origLength] = [woff.readUInt32BE(at + 4), woff.readUInt32BE(at + 8), woff.readUInt32BE(at + 12)];
    if (offset + compLength > woff.length) throw invalid(name, 'a table lies past its end (the file is truncated)');
    if (compLength > origLength) throw invalid(name, 'a table is longer compressed than unpacked');
    checkSize(name, origLength, 'declares a table of', max);
    sfntBytes += padded(origLength);
  }
  checkSize(name, sfntBytes, 'declares tables of', max);
  return { container: 'woff', outlines, sfntBytes };
}

/** WOFF2's UIntBase128: 1 to 5 bytes, 7 bits each, no leading zeros, at most 2³² − 1. */
function base128(name: string, bytes: Buffer, at: number): [value: number, next: number] {
  let value = 0;
  for (let i = 0; i < 5; i++) {
    if (at + i >= bytes.length) throw invalid(name, 'it ends inside its table directory');
    const byte = bytes[at + i]!;
    if (i === 0 && byte === 0x80) throw invalid(name, 'its table directory is malformed');
    value = value * 128 + (byte & 0x7f);
    if (value > 0xffff_ffff) throw invalid(name, 'its table directory is malformed');
    if (!(byte & 0x80)) return [value, at + i + 1];
  }
  throw invalid(name, 'its table directory is malformed');
}

/** WOFF2's known-table indexes of glyf and loca, whose transform version 0 is the transformed one. */
const GLYF_OR_LOCA = new Set([10, 11]);

/**
 * WOFF2: a 48-byte header (totalSfntSize at 16, totalCompressedSize at 20), then per table a flags
 * byte (known-tag index, or 63 and a tag), origLength and, for a transformed table, transformLength.
 * The decoder allocates totalSfntSize for its output and the sum of the (transformed) lengths for
 * the brotli stream: both are held to MAX_FONT_BYTES.
 */
function woff2Layout(name: string, woff2: Buffer, max: number): FontLayout {
  if (woff2.length < 48) throw invalid(name, 'it ends inside its WOFF2 header');
  const outlines = flavorOutlines(name, woff2.readUInt32BE(4));
  if (woff2.readUInt32BE(8) !== woff2.length) throw invalid(name, `its header says ${woff2.readUInt32BE(8)} bytes and it has ${woff2.length} (the file is truncated or has trailing data)`);
  const tables = woff2.readUInt16BE(12);
  if (tables === 0) throw invalid(name, 'it has no tables');
  const sfntBytes = woff2.readUInt32BE(16);
  checkSize(name, sfntBytes, 'declares a font of', max);
  let declared = 12 + 16 * tables;
  let stream = 0;
  let at = 48;
  for (let i = 0; i < tables; i++) {
    const flags = woff2[at++];
    if (flags === undefined) throw invalid(name, 'it ends inside its table directory');
    if ((flags & 0x3f) === 63) at += 4;
    const [origLength, next] = base128(name, woff2, at);
    at = next;
    checkSize(name, origLength, 'declares a table of', max);
    declared += padded(origLength);
    const version = flags >> 6;
    const transformed = GLYF_OR_LOCA.has(flags & 0x3f) ? version === 0 : version !== 0;
    if (transformed) {
      const [transformLength, after] = base128(name, woff2, at);
      at = after;
      stream += transformLength;
    } else stream += origLength;
  }
  checkSize(name, declared, 'declares tables of', max);
  checkSize(name, stream, 'declares compressed tables of', max);
  if (at + woff2.readUInt32BE(20) > woff2.length) throw invalid(name, 'its compressed tables lie past its end (the file is truncated)');
  return { container: 'woff2', outlines, sfntBytes: Math.max(sfntBytes, declared) };
}

/** EOT flags: MicroType Express compression, and the XOR obfuscation of the font data. */
const TTEMBED_TTCOMPRESSED = 0x4;
const TTEMBED_XORENCRYPTDATA = 0x1000_0000;

/**
 * EOT (little-endian): EOTSize, FontDataSize, Version, Flags, fixed fields to byte 80, then four
 * names (padding, size, UTF-16 bytes each), a root string from version 2.1, a signature and EUDC data
 * in 2.2, then the font data: an sfnt, checked as one.
 */
function eotLayout(name: string, eot: Buffer, max: number): FontLayout {
  if (eot.length < 82) throw invalid(name, 'it ends inside its EOT header');
  if (eot.readUInt32LE(0) !== eot.length) throw invalid(name, `its header says ${eot.readUInt32LE(0)} bytes and it has ${eot.length} (the file is truncated or has trailing data)`);
  const version = eot.readUInt32LE(8);
  const flags = eot.readUInt32LE(12);
  if (flags & TTEMBED_TTCOMPRESSED) {
    throw new EngineFailure('UNSUPPORTED_FORMAT', `${name} is compressed with MicroType Express, which no engine here decompresses; uncompressed EOT files are converted.`);
  }
  const u16 = (at: number) => {
    if (at + 2 > eot.length) throw invalid(name, 'it ends inside its EOT header');
    return eot.readUInt16LE(at);
  };
  let at = 80;
  for (let i = 0; i < 4; i++) at += 4 + u16(at + 2);
  if (version !== EOT_VERSIONS[0]) at += 4 + u16(at + 2);
  if (version === EOT_VERSIONS[2]) {
    at += 8;
    at += 4 + u16(at + 2);
    if (at + 8 > eot.length) throw invalid(name, 'it ends inside its EOT header');
    at += 8 + eot.readUInt32LE(at + 4);
  }
  const length = eot.readUInt32LE(4);
  checkSize(name, length, 'embeds a font of', max);
  if (at + length > eot.length) throw invalid(name, 'its font data lies past its end (the file is truncated)');
  const xor = Boolean(flags & TTEMBED_XORENCRYPTDATA);
  const sfnt = Buffer.from(eot.subarray(at, at + length));
  if (xor) for (let i = 0; i < sfnt.length; i++) sfnt[i]! ^= 0x50;
  return { container: 'eot', outlines: sfntTables(name, sfnt), sfntBytes: length, embedded: { offset: at, length, xor } };
}
