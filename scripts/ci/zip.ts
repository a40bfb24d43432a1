/**
 * Lambda deployment zips read with Node alone (no `unzip` binary on the CI machine or in the sandbox):
 * the central directory gives every entry's name, unzipped size and Unix mode; extraction inflates the
 * stored and deflated entries the Serverless Framework writes, keeping modes (executables stay
 * executable, as Lambda keeps them) and symbolic links. Zip64 archives are read; encryption and other
 * compression methods are refused with the entry's name.
 */
import { chmod, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { crc32, inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  compressedSize: number;
  /** Unzipped size in bytes. */
  size: number;
  crc: number;
  flags: number;
  localHeaderOffset: number;
  /** Unix mode (type and permission bits) when the archive was made on Unix. */
  mode?: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFDIR = 0o040000;

export const isDirectory = (e: ZipEntry) => e.name.endsWith('/') || ((e.mode ?? 0) & S_IFMT) === S_IFDIR;
export const isSymlink = (e: ZipEntry) => ((e.mode ?? 0) & S_IFMT) === S_IFLNK;

function findEndOfCentralDirectory(zip: Buffer): number {
  // The record is 22 bytes plus a comment of at most 65535 bytes, at the very end.
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === EOCD) return i;
  }
  throw new Error('not a zip file (no end of central directory record)');
}

/** Every entry of the central directory. */
export function readZipEntries(zip: Buffer): ZipEntry[] {
  const eocd = findEndOfCentralDirectory(zip);
  let count = zip.readUInt16LE(eocd + 10);
  let offset = zip.readUInt32LE(eocd + 16);
  if (count === 0xffff || offset === 0xffffffff) {
    const locator = eocd - 20;
    if (locator < 0 || zip.readUInt32LE(locator) !== ZIP64_LOCATOR) throw new Error('zip64 archive without its locator');
    const record = Number(zip.readBigUInt64LE(locator + 8));
    if (zip.readUInt32LE(record) !== ZIP64_EOCD) throw new Error('zip64 end of central directory record not found');
    count = Number(zip.readBigUInt64LE(record + 32));
    offset = Number(zip.readBigUInt64LE(record + 48));
  }
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(offset) !== CENTRAL) throw new Error(`corrupt central directory at entry ${i}`);
    const madeBy = zip.readUInt16LE(offset + 4);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    const entry: ZipEntry = {
      name: zip.toString('utf8', offset + 46, offset + 46 + nameLength),
      flags: zip.readUInt16LE(offset + 8),
      method: zip.readUInt16LE(offset + 10),
      crc: zip.readUInt32LE(offset + 16),
      compressedSize: zip.readUInt32LE(offset + 20),
      size: zip.readUInt32LE(offset + 24),
      localHeaderOffset: zip.readUInt32LE(offset + 42),
      mode: madeBy >> 8 === 3 ? zip.readUInt32LE(offset + 38) >>> 16 : undefined,
    };
    readZip64Extra(zip.subarray(offset + 46 + nameLength, offset + 46 + nameLength + extraLength), entry);
    entries.push(entry);
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Values that do not fit 32 bits are 0xffffffff in the header and follow, in order, in the zip64 extra field. */
function readZip64Extra(extra: Buffer, entry: ZipEntry) {
  for (let at = 0; at + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(at);
    const length = extra.readUInt16LE(at + 2);
    if (id === 0x0001) {
      let field = at + 4;
      const next = () => {
        const value = Number(extra.readBigUInt64LE(field));
        field += 8;
        return value;
      };
      if (entry.size === 0xffffffff) entry.size = next();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next();
      if (entry.localHeaderOffset === 0xffffffff) entry.localHeaderOffset = next();
    }
    at += 4 + length;
  }
}

/** The unzipped size of an archive, from its central directory, and a reader of single entries. */
export async function unzippedSize(file: string): Promise<{ zipped: number; unzipped: number; entries: ZipEntry[]; read(entry: ZipEntry): Buffer }> {
  const zip = await readFile(file);
  const entries = readZipEntries(zip);
  return { zipped: zip.length, unzipped: entries.reduce((sum, e) => sum + e.size, 0), entries, read: (entry) => entryData(zip, entry) };
}

function entryData(zip: Buffer, entry: ZipEntry): Buffer {
  const at = entry.localHeaderOffset;
  if (zip.readUInt32LE(at) !== LOCAL) throw new Error(`${entry.name}: local header not found`);
  if (entry.flags & 0x1) throw new Error(`${entry.name}: encrypted entries are not supported`);
  const start = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
  const raw = zip.subarray(start, start + entry.compressedSize);
  let data: Buffer;
  if (entry.method === 0) data = raw;
  else if (entry.method === 8) data = inflateRawSync(raw);
  else throw new Error(`${entry.name}: compression method ${entry.method} is not supported`);
  if (data.length !== entry.size || crc32(data) !== entry.crc) throw new Error(`${entry.name}: size or CRC does not match the central directory`);
  return data;
}

/** Extracts `file` into the folder `dest` (created if needed). Returns the number of files and their bytes. */
export async function extractZip(file: string, dest: string): Promise<{ files: number; bytes: number }> {
  const zip = await readFile(file);
  const root = path.resolve(dest);
  await mkdir(root, { recursive: true });
  let files = 0;
  let bytes = 0;
  for (const entry of readZipEntries(zip)) {
    const target = path.resolve(root, entry.name);
    if (target !== root && !target.startsWith(root + path.sep)) throw new Error(`${entry.name}: entry outside the archive root`);
    if (isDirectory(entry)) {
      await mkdir(target, { recursive: true });
      continue;
    }
    await mkdir(path.dirname(target), { recursive: true });
    const data = entryData(zip, entry);
    if (isSymlink(entry)) {
      await symlink(data.toString('utf8'), target);
      continue;
    }
    await writeFile(target, data);
    // Set after writing: the process umask would otherwise strip bits that Lambda keeps.
    await chmod(target, entry.mode ? entry.mode & 0o777 : 0o644);
    files++;
    bytes += data.length;
  }
  return { files, bytes };
}
