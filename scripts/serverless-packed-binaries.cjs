/**
 * Binaries a function's zip carries compressed (`PACKED`): Lambda counts a function's unzipped bytes
 * against its 250 MB, and the static ffprobe of @ffprobe-installer is 79 MB of the media engine
 * function's 169. Brotli makes it 25 MB (quality 5: 1.6 s to pack; 9 saves 2 % more for 7× the time),
 * which the function unpacks into its /tmp on its first probe (lib/engines/core/unpack.ts, 0.2 s and a
 * digest check). FFmpeg itself stays as it is: it runs on every media task, ffprobe on some.
 *
 * An entry `…/ffprobe` becomes `…/ffprobe.br` (stored: brotli's bytes do not deflate) and
 * `…/ffprobe.sha256` (`sha256sum` format), the digest of the binary as npm installed it: the unpacked
 * file is run only when it matches, so a truncated or altered copy never is.
 */
'use strict';

const { Buffer } = require('node:buffer');
const { createHash } = require('node:crypto');
const { brotliCompressSync, constants, crc32, inflateRawSync } = require('node:zlib');

const LOCAL = 0x04034b50;
const S_IFREG = 0o100000;

/** The binaries shipped compressed, by their path in the zip. */
const PACKED = /^node_modules\/@ffprobe-installer\/linux-x64\/ffprobe$/;
/** A name that matches nothing: no entry packed. */
const NONE = /(?!)/;

/** The unzipped bytes of a zip entry, from its local record and its central directory header. */
function entryData(zip, header, name) {
  const at = header.readUInt32LE(42);
  if (zip.readUInt32LE(at) !== LOCAL) throw new Error(`${name}: local header not found`);
  const start = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
  const raw = zip.subarray(start, start + header.readUInt32LE(20));
  const method = header.readUInt16LE(10);
  if (method !== 0 && method !== 8) throw new Error(`${name}: compression method ${method} cannot be packed`);
  const data = method === 8 ? inflateRawSync(raw) : raw;
  if (data.length !== header.readUInt32LE(24) || crc32(data) !== header.readUInt32LE(16)) throw new Error(`${name}: size or CRC does not match`);
  return data;
}

/** A stored entry (its local record, and its central header with the local offset left for the caller), dated as `like`. */
function storedEntry(name, data, like) {
  const nameBytes = Buffer.from(name, 'utf8');
  const local = Buffer.alloc(30);
  local.writeUInt32LE(LOCAL, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(0x0800, 6);
  local.writeUInt16LE(0, 8);
  like.copy(local, 10, 12, 16); // time and date
  local.writeUInt32LE(crc32(data), 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  const header = Buffer.alloc(46);
  like.copy(header, 0, 0, 6); // signature, made by (Unix)
  header.writeUInt16LE(20, 6);
  local.copy(header, 8, 6, 28); // flags … name length
  header.writeUInt32LE(((S_IFREG | 0o644) << 16) >>> 0, 38);
  return { record: Buffer.concat([local, nameBytes, data]), header: Buffer.concat([header, nameBytes]) };
}

/**
 * The entries that replace the central header `header` of `name` (whose local record is in `zip`):
 * the binary compressed with brotli, and its digest.
 */
function packEntry(zip, header, name) {
  const data = entryData(zip, header, name);
  const packed = brotliCompressSync(data, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
  });
  const digest = `${createHash('sha256').update(data).digest('hex')}  ${name.slice(name.lastIndexOf('/') + 1)}\n`;
  return {
    entries: [storedEntry(`${name}.br`, packed, header), storedEntry(`${name}.sha256`, Buffer.from(digest), header)],
    saved: data.length - packed.length - digest.length,
  };
}

module.exports = { PACKED, NONE, packEntry };
