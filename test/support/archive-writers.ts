/**
 * Writers of the archive formats that nothing installed writes, each from the format's public
 * description, kept as small as the tests need (stored data, no compression where the format allows):
 * compress (.Z, LZW codes that never grow past 9 bits), LZMA-alone (the raw stream of a 7z made with
 * `-m0=lzma`, behind the 13-byte .lzma header), Microsoft Cabinet, LHA (-lh0-, level 0 headers) and
 * ARJ (method 0). For the extraction tests; readers of their outputs are elsewhere.
 */
import { crc32, deflateSync } from 'node:zlib';
import { sevenZipWrite } from './archive-fixtures.js';

/** compress (.Z): magic, then one 9-bit LZW code per byte (literals), LSB first. Short inputs only. */
export function compressZ(data: Buffer): Buffer {
  // Each code adds a dictionary entry: past 255 of them the decoder would widen its codes to 10 bits.
  if (data.length > 250) throw new Error('compressZ writes literals only: 250 bytes at most');
  const out = [0x1f, 0x9d, 0x80 | 16];
  let acc = 0;
  let bits = 0;
  for (const byte of data) {
    acc |= byte << bits;
    bits += 9;
    while (bits >= 8) {
      out.push(acc & 0xff);
      acc >>>= 8;
      bits -= 8;
    }
  }
  if (bits > 0) out.push(acc & 0xff);
  return Buffer.from(out);
}

/** LZMA-alone (.lzma): properties, dictionary size and the data's size, then an LZMA stream. */
export async function lzmaAlone(name: string, data: Buffer): Promise<Buffer> {
  // A 7z of one file in LZMA, headers uncompressed: its packed stream sits between the 32-byte start
  // header and the end header, whose offset the start header gives.
  const sevenZ = await sevenZipWrite('7z', { [name]: data }, ['-m0=lzma:d=1m', '-mhc=off']);
  const stream = sevenZ.subarray(32, 32 + Number(sevenZ.readBigUInt64LE(12)));
  const head = Buffer.alloc(13);
  head[0] = 0x5d; // lc=3, lp=0, pb=2: 7-Zip's defaults
  head.writeUInt32LE(1 << 20, 1);
  head.writeBigUInt64LE(BigInt(data.length), 5);
  return Buffer.concat([head, stream]);
}

/** A Microsoft Cabinet: one folder, stored (no compression), one data block, no checksums. */
export function cabOf(files: Record<string, string | Buffer>): Buffer {
  const entries = Object.entries(files).map(([name, data]) => ({ name: Buffer.from(`${name.replace(/\//g, '\\')}\0`, 'latin1'), data: Buffer.from(data) }));
  const body = Buffer.concat(entries.map((e) => e.data));
  if (body.length > 32768) throw new Error('cabOf writes one data block: 32 KiB at most');
  const fileRecords: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const rec = Buffer.alloc(16);
    rec.writeUInt32LE(e.data.length, 0);
    rec.writeUInt32LE(offset, 4);
    rec.writeUInt16LE(0x5821, 10); // 2024-01-01
    rec.writeUInt16LE(0x20, 14); // archive attribute
    fileRecords.push(rec, e.name);
    offset += e.data.length;
  }
  const files36 = 36 + 8;
  const filesBytes = Buffer.concat(fileRecords);
  const dataAt = files36 + filesBytes.length;
  const header = Buffer.alloc(36);
  header.write('MSCF', 0, 'latin1');
  header.writeUInt32LE(dataAt + 8 + body.length, 8);
  header.writeUInt32LE(files36, 16);
  header[24] = 3;
  header[25] = 1;
  header.writeUInt16LE(1, 26);
  header.writeUInt16LE(entries.length, 28);
  const folder = Buffer.alloc(8);
  folder.writeUInt32LE(dataAt, 0);
  folder.writeUInt16LE(1, 4);
  const block = Buffer.alloc(8);
  block.writeUInt16LE(body.length, 4);
  block.writeUInt16LE(body.length, 6);
  return Buffer.concat([header, folder, filesBytes, block, body]);
}

/** CRC-16 as LHA computes it (polynomial 0x8005, reflected, from 0). */
function crc16(data: Buffer): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte;
    for (let i = 0; i < 8; i++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc;
}

/** An LHA archive: per file a level-0 header, method -lh0- (stored), then the data; a zero byte ends it. */
export function lzhOf(files: Record<string, string | Buffer>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, content] of Object.entries(files)) {
    const data = Buffer.from(content);
    const fileName = Buffer.from(name.replace(/\//g, '\\'), 'latin1');
    const head = Buffer.alloc(24 + fileName.length);
    head[0] = 22 + fileName.length;
    head.write('-lh0-', 2, 'latin1');
    head.writeUInt32LE(data.length, 7);
    head.writeUInt32LE(data.length, 11);
    head.writeUInt32LE(0x58210000, 15); // MS-DOS time: 2024-01-01 00:00
    head[19] = 0x20;
    head[20] = 0; // level 0
    head[21] = fileName.length;
    fileName.copy(head, 22);
    head.writeUInt16LE(crc16(data), 22 + fileName.length);
    head[1] = head.subarray(2).reduce((sum, b) => (sum + b) & 0xff, 0);
    parts.push(head, data);
  }
  parts.push(Buffer.from([0]));
  return Buffer.concat(parts);
}

/** One ARJ basic header: its 30 fixed bytes, name and comment, the CRC-32 of all that, no extended header. */
function arjHeader(fixed: Buffer, name: string): Buffer {
  const basic = Buffer.concat([fixed, Buffer.from(`${name}\0\0`, 'latin1')]);
  const out = Buffer.alloc(4 + basic.length + 6);
  out.writeUInt16LE(0xea60, 0);
  out.writeUInt16LE(basic.length, 2);
  basic.copy(out, 4);
  out.writeUInt32LE(crc32(basic), 4 + basic.length);
  return out;
}

/** An ARJ archive: the main header, then per file a header (method 0: stored) and its data. */
export function arjOf(files: Record<string, string | Buffer>): Buffer {
  const fixed = (fileType: number, method: number) => {
    const b = Buffer.alloc(30);
    b[0] = 30;
    b[1] = 11; // archiver version
    b[2] = 1; // version needed
    b[3] = 2; // host: Unix
    b[4] = 0x10; // PATHSYM: names use `/`
    b[5] = method;
    b[6] = fileType;
    b.writeUInt32LE(0x58210000, 8);
    return b;
  };
  const parts = [arjHeader(fixed(2, 0), 'test.arj')];
  for (const [name, content] of Object.entries(files)) {
    const data = Buffer.from(content);
    const head = fixed(0, 0);
    head.writeUInt32LE(data.length, 12);
    head.writeUInt32LE(data.length, 16);
    head.writeUInt32LE(crc32(data), 20);
    head.writeUInt16LE(0o644, 26);
    parts.push(arjHeader(head, name), data);
  }
  parts.push(Buffer.from([0x60, 0xea, 0, 0]));
  return Buffer.concat(parts);
}

type XarNode = { name: string; data?: Buffer; children?: XarNode[] };

/** The nodes of a tree of `a/b/c` paths: folders hold their children, files their data. */
function xarNodes(files: Record<string, string | Buffer>): XarNode[] {
  const root: XarNode = { name: '', children: [] };
  for (const [name, data] of Object.entries(files)) {
    let at = root;
    const parts = name.split('/');
    for (const part of parts.slice(0, -1)) {
      let next = at.children!.find((c) => c.name === part && c.children);
      if (!next) at.children!.push((next = { name: part, children: [] }));
      at = next;
    }
    at.children!.push({ name: parts.at(-1)!, data: Buffer.from(data) });
  }
  return root.children!;
}

/**
 * A xar archive (as a macOS .pkg is): a 28-byte header, the table of contents (XML, zlib), then the
 * heap of the files' data, stored; no checksums.
 */
export function xarOf(files: Record<string, string | Buffer>): Buffer {
  const heap: Buffer[] = [];
  let offset = 0;
  let id = 1;
  const xml = (node: XarNode): string => {
    const open = `<file id="${id++}"><name>${node.name}</name>`;
    if (node.children) return `${open}<type>directory</type>${node.children.map(xml).join('')}</file>`;
    const n = node.data!.length;
    heap.push(node.data!);
    const data = `<data><length>${n}</length><offset>${offset}</offset><size>${n}</size><encoding style="application/octet-stream"/></data>`;
    offset += n;
    return `${open}<type>file</type>${data}</file>`;
  };
  const toc = Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><xar><toc>${xarNodes(files).map(xml).join('')}</toc></xar>`);
  const packed = deflateSync(toc);
  const header = Buffer.alloc(28);
  header.write('xar!', 0, 'latin1');
  header.writeUInt16BE(28, 4);
  header.writeUInt16BE(1, 6);
  header.writeBigUInt64BE(BigInt(packed.length), 8);
  header.writeBigUInt64BE(BigInt(toc.length), 16);
  return Buffer.concat([header, packed, ...heap]);
}

const SECTOR = 2048;
/** A number written both ways, little-endian then big-endian, as ISO 9660 writes most of its numbers. */
function both(value: number, bytes: 2 | 4): Buffer {
  const b = Buffer.alloc(bytes * 2);
  if (bytes === 2) {
    b.writeUInt16LE(value, 0);
    b.writeUInt16BE(value, 2);
  } else {
    b.writeUInt32LE(value, 0);
    b.writeUInt32BE(value, 4);
  }
  return b;
}

/** An ISO 9660 directory record: where its extent is, its size, whether it is a folder, its name. */
function isoRecord(sector: number, size: number, folder: boolean, name: Buffer): Buffer {
  const length = 33 + name.length + ((33 + name.length) % 2);
  const r = Buffer.alloc(length);
  r[0] = length;
  both(sector, 4).copy(r, 2);
  both(size, 4).copy(r, 10);
  r.set([124, 1, 1, 0, 0, 0, 0], 18); // 2024-01-01 00:00 UTC
  r[25] = folder ? 2 : 0;
  both(1, 2).copy(r, 28);
  r[32] = name.length;
  name.copy(r, 33);
  return r;
}

type IsoDir = { node: XarNode; sector: number; parent: number };

/**
 * An ISO 9660 image: 16 empty sectors, the primary volume descriptor, the set's terminator, the two
 * path tables, one sector per folder, then the files' data. Names are kept as given (with `;1`).
 */
export function isoOf(files: Record<string, string | Buffer>): Buffer {
  // Folders breadth first (as the path table lists them), each one sector from sector 20.
  const dirs: IsoDir[] = [{ node: { name: '', children: xarNodes(files) }, sector: 20, parent: 1 }];
  for (let i = 0; i < dirs.length; i++) {
    for (const c of dirs[i]!.node.children!) if (c.children) dirs.push({ node: c, sector: 20 + dirs.length, parent: i + 1 });
  }
  let next = 20 + dirs.length;
  const data = new Map<XarNode, number>();
  for (const c of dirs.flatMap((d) => d.node.children!.filter((n) => n.data))) {
    data.set(c, next);
    next += Math.max(1, Math.ceil(c.data!.length / SECTOR));
  }
  const image = Buffer.alloc(next * SECTOR);
  const sectorOf = (n: XarNode) => dirs.find((d) => d.node === n)!.sector;
  for (const d of dirs) {
    const parent = dirs[d.parent - 1]!;
    const records = [isoRecord(d.sector, SECTOR, true, Buffer.from([0])), isoRecord(parent.sector, SECTOR, true, Buffer.from([1]))];
    for (const c of d.node.children!) {
      records.push(c.children ? isoRecord(sectorOf(c), SECTOR, true, Buffer.from(c.name)) : isoRecord(data.get(c)!, c.data!.length, false, Buffer.from(`${c.name};1`)));
      if (c.data) c.data.copy(image, data.get(c)! * SECTOR);
    }
    Buffer.concat(records).copy(image, d.sector * SECTOR);
  }
  const table = (big: boolean) =>
    Buffer.concat(
      dirs.map((d) => {
        const name = d.node.name ? Buffer.from(d.node.name) : Buffer.from([0]);
        const e = Buffer.alloc(8 + name.length + (name.length % 2));
        e[0] = name.length;
        if (big) {
          e.writeUInt32BE(d.sector, 2);
          e.writeUInt16BE(d.parent, 6);
        } else {
          e.writeUInt32LE(d.sector, 2);
          e.writeUInt16LE(d.parent, 6);
        }
        name.copy(e, 8);
        return e;
      }),
    );
  const [little, bigEndian] = [table(false), table(true)];
  little.copy(image, 18 * SECTOR);
  bigEndian.copy(image, 19 * SECTOR);
  const pvd = image.subarray(16 * SECTOR, 17 * SECTOR);
  pvd[0] = 1;
  pvd.write('CD001', 1, 'latin1');
  pvd[6] = 1;
  pvd.fill(0x20, 8, 72).write('TEST', 40, 'latin1');
  both(next, 4).copy(pvd, 80);
  both(1, 2).copy(pvd, 120);
  both(1, 2).copy(pvd, 124);
  both(SECTOR, 2).copy(pvd, 128);
  both(little.length, 4).copy(pvd, 132);
  pvd.writeUInt32LE(18, 140);
  pvd.writeUInt32BE(19, 148);
  isoRecord(20, SECTOR, true, Buffer.from([0])).copy(pvd, 156);
  pvd.fill(0x20, 190, 813);
  for (let at = 813; at < 881; at += 17) pvd.fill(0x30, at, at + 16);
  pvd[881] = 1;
  const end = image.subarray(17 * SECTOR, 18 * SECTOR);
  end[0] = 255;
  end.write('CD001', 1, 'latin1');
  end[6] = 1;
  return image;
}
