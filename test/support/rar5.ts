/**
 * A small RAR5 writer for tests (no free RAR encoder exists): stored entries (method 0) with their
 * CRC32, folders, and Unix symbolic links (a file system redirection record), laid out as the RAR 5.0
 * technote describes: signature, main archive header, one file header per entry, end of archive.
 */
import { crc32 } from 'node:zlib';

export type Rar5Entry =
  | { name: string; data: Buffer }
  | { name: string; folder: true }
  | { name: string; symlink: string };

/** RAR's variable-length integer: 7 bits a byte, low first, the high bit saying more follow. */
function vint(n: number): Buffer {
  const bytes: number[] = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    bytes.push(b);
  } while (n > 0);
  return Buffer.from(bytes);
}

/** A header block: CRC32 of what follows it, the header's size, then the header (type first). */
function block(body: Buffer): Buffer {
  const sized = Buffer.concat([vint(body.length), body]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32LE(crc32(sized));
  return Buffer.concat([crc, sized]);
}

function fileHeader(entry: Rar5Entry): Buffer {
  const name = Buffer.from(entry.name, 'utf8');
  const data = 'data' in entry ? entry.data : Buffer.alloc(0);
  const folder = 'folder' in entry;
  let extra = Buffer.alloc(0);
  if ('symlink' in entry) {
    const target = Buffer.from(entry.symlink, 'utf8');
    // Redirection record (type 5): Unix symlink (1), no flags, the target's length and bytes.
    const record = Buffer.concat([vint(5), vint(1), vint(0), vint(target.length), target]);
    extra = Buffer.concat([vint(record.length), record]);
  }
  const crc = Buffer.alloc(4);
  crc.writeUInt32LE(crc32(data));
  const mode = folder ? 0o40755 : 'symlink' in entry ? 0o120777 : 0o100644;
  const fileFlags = (folder ? 0x1 : 0) | (folder ? 0 : 0x4);
  const headerFlags = (extra.length ? 0x1 : 0) | 0x2;
  const body = Buffer.concat([
    vint(2), // file header
    vint(headerFlags),
    ...(extra.length ? [vint(extra.length)] : []),
    vint(data.length),
    vint(fileFlags),
    vint(data.length),
    vint(mode),
    ...(folder ? [] : [crc]),
    vint(0), // compression: version 0, stored
    vint(1), // host OS: Unix
    vint(name.length),
    name,
    extra,
  ]);
  return Buffer.concat([block(body), data]);
}

/** A RAR5 archive of `entries`, stored (no compression). */
export function rar5(entries: readonly Rar5Entry[]): Buffer {
  const signature = Buffer.from([0x52, 0x61, 0x72, 0x21, 0x1a, 0x07, 0x01, 0x00]);
  const main = block(Buffer.concat([vint(1), vint(0), vint(0)]));
  const end = block(Buffer.concat([vint(5), vint(0), vint(0)]));
  return Buffer.concat([signature, main, ...entries.map(fileHeader), end]);
}
