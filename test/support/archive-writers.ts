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
