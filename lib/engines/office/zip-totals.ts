/**
 * What a zip container (EPUB, DOCX, HTMLZ, CBZ…) declares, read from its central directory alone:
 * nothing is inflated. calibre's zip reader stops each entry at the size the central directory
 * declares, so these totals bound what it extracts; the limits of core/limits.ts judge them before
 * calibre opens the file. Zip64 is refused: no e-book needs it, and its sizes are where a bomb hides.
 */
import { open } from 'node:fs/promises';
import { EngineFailure } from '../core/errors.js';
import type { ArchiveTotals } from '../core/limits.js';

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
/** The end record (22 bytes) and the longest comment it may carry. */
const TAIL = 22 + 0xffff;

const notZip = (filename: string, why: string) => new EngineFailure('INVALID_INPUT', `${filename} is not a readable zip container (${why}).`);

/** Whether an entry's name leaves the folder it is extracted into (`../x`, `/x`, `C:\x`). */
const leaves = (name: string) => /^[\\/]/.test(name) || /^[A-Za-z]:/.test(name) || name.split(/[\\/]/).includes('..');

/** Reads `length` bytes at `position` (fewer at the end of the file). */
async function readAt(file: string, position: number, length: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, position);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The entry count and declared extracted bytes of a zip file of `size` bytes; UNSAFE_ARCHIVE for a name that leaves its folder. */
export async function zipTotals(filename: string, file: string, size: number): Promise<ArchiveTotals> {
  const start = Math.max(0, size - TAIL);
  const tail = await readAt(file, start, size - start);
  let at = tail.length - 22;
  while (at >= 0 && tail.readUInt32LE(at) !== EOCD) at--;
  if (at < 0) throw notZip(filename, 'no end of central directory');
  const count = tail.readUInt16LE(at + 10);
  const length = tail.readUInt32LE(at + 12);
  const offset = tail.readUInt32LE(at + 16);
  if (count === 0xffff || length === 0xffffffff || offset === 0xffffffff) throw notZip(filename, 'zip64 is not accepted for e-books');
  if (offset + length > size) throw notZip(filename, 'its central directory lies past its end');
  const directory = await readAt(file, offset, length);
  let expandedBytes = 0;
  let entries = 0;
  for (let p = 0; p + 46 <= directory.length && entries < count; entries++) {
    if (directory.readUInt32LE(p) !== CENTRAL) throw notZip(filename, 'a damaged central directory');
    const declared = directory.readUInt32LE(p + 24);
    const nameLength = directory.readUInt16LE(p + 28);
    const name = directory.subarray(p + 46, p + 46 + nameLength).toString('utf8');
    if (declared === 0xffffffff) throw notZip(filename, 'zip64 is not accepted for e-books');
    if (leaves(name)) throw new EngineFailure('UNSAFE_ARCHIVE', `${filename} holds an entry whose name leaves its folder.`);
    expandedBytes += declared;
    p += 46 + nameLength + directory.readUInt16LE(p + 30) + directory.readUInt16LE(p + 32);
  }
  if (entries !== count) throw notZip(filename, 'a central directory shorter than it says');
  return { entries, expandedBytes };
}
