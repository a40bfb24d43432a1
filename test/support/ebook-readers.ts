/**
 * Readers of e-book files written here from the formats' descriptions, so that no test checks calibre
 * with calibre: EPUB, HTMLZ, TXTZ and FBZ through fflate's unzip, the Palm database (PDB) header and
 * records, PalmDOC decompression (the text of MOBI, AZW3 and PalmDoc PDB), TCR's dictionary coding,
 * the zlib streams of LRF and Rocket eBook files, FictionBook XML and RTF's text.
 */
import { inflateSync } from 'node:zlib';
import { strFromU8, unzipSync } from 'fflate';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** The text of HTML or XML: tags dropped, entities decoded, whitespace collapsed. */
export function markupText(markup: string): string {
  return markup
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x?[0-9a-f]+|\w+);/gi, (all, name: string) =>
      name.startsWith('#') ? String.fromCodePoint(Number.parseInt(name.slice(name[1] === 'x' || name[1] === 'X' ? 2 : 1), name[1] === 'x' || name[1] === 'X' ? 16 : 10)) : (ENTITIES[name] ?? all),
    )
    .replace(/\s+/g, ' ')
    .trim();
}

/** A zip's entries by name. */
export const zipEntries = (zip: Buffer): Record<string, Uint8Array> => unzipSync(new Uint8Array(zip));

/** The text of an EPUB's content documents, in its spine's order (container.xml → OPF → spine). */
export function epubText(epub: Buffer): string {
  const entries = zipEntries(epub);
  if (strFromU8(entries.mimetype ?? new Uint8Array()).trim() !== 'application/epub+zip') throw new Error('not an EPUB: no mimetype entry');
  const container = strFromU8(entries['META-INF/container.xml']!);
  const opfPath = /full-path="([^"]+)"/.exec(container)![1]!;
  const opf = strFromU8(entries[opfPath]!);
  const base = opfPath.includes('/') ? opfPath.slice(0, opfPath.lastIndexOf('/') + 1) : '';
  const hrefs = new Map<string, string>();
  for (const item of opf.matchAll(/<item\b[^>]*>/g)) {
    const id = /\bid="([^"]+)"/.exec(item[0])?.[1];
    const href = /\bhref="([^"]+)"/.exec(item[0])?.[1];
    if (id && href) hrefs.set(id, decodeURIComponent(href));
  }
  const spine = [...opf.matchAll(/<itemref\b[^>]*idref="([^"]+)"/g)].map((m) => `${base}${hrefs.get(m[1]!)}`);
  return spine.map((name) => markupText(strFromU8(entries[name] ?? new Uint8Array()))).join(' ');
}

export interface PalmDatabase {
  name: string;
  type: string;
  creator: string;
  records: Buffer[];
}

/** A Palm database: its 78-byte header, then one 8-byte entry (offset, attributes, id) per record. */
export function palmDatabase(file: Buffer): PalmDatabase {
  const count = file.readUInt16BE(76);
  const offsets = Array.from({ length: count }, (_, i) => file.readUInt32BE(78 + i * 8));
  return {
    name: file.subarray(0, 32).toString('latin1').replace(/\0.*$/s, ''),
    type: file.subarray(60, 64).toString('latin1'),
    creator: file.subarray(64, 68).toString('latin1'),
    records: offsets.map((start, i) => file.subarray(start, offsets[i + 1] ?? file.length)),
  };
}

/** PalmDOC's LZ77: literals, runs of literals, a space and a letter in one byte, and back references of 3 to 10 bytes. */
export function palmDocDecompress(data: Buffer): Buffer {
  const out: number[] = [];
  for (let i = 0; i < data.length; ) {
    const c = data[i++]!;
    if (c >= 1 && c <= 8) for (let k = 0; k < c && i < data.length; k++) out.push(data[i++]!);
    else if (c < 0x80) out.push(c);
    else if (c >= 0xc0) out.push(0x20, c ^ 0x80);
    else {
      const pair = (c << 8) | (data[i++] ?? 0);
      const distance = (pair >> 3) & 0x7ff;
      const length = (pair & 7) + 3;
      for (let k = 0; k < length && distance > 0 && distance <= out.length; k++) out.push(out[out.length - distance]!);
    }
  }
  return Buffer.from(out);
}

/** A MOBI text record without its trailing entries (MOBI header's extra data flags: sizes written backwards at the record's end). */
function withoutTrailing(record: Buffer, flags: number): Buffer {
  let end = record.length;
  for (let bit = 1; bit < 16; bit++) {
    if (!(flags & (1 << bit))) continue;
    let size = 0;
    for (let k = end - 1, shift = 0; k >= Math.max(0, end - 4); k--, shift += 7) {
      size |= (record[k]! & 0x7f) << shift;
      if (record[k]! & 0x80) break;
    }
    end -= size;
  }
  if (flags & 1) end -= (record[end - 1]! & 3) + 1;
  return record.subarray(0, Math.max(0, end));
}

export interface MobiBook {
  type: string;
  creator: string;
  /** MOBI header's file version: 6 for MOBI 6, 8 for KF8 (AZW3). */
  version: number;
  compression: number;
  text: string;
}

/** A MOBI or AZW3 file: the Palm header (BOOKMOBI), record 0's PalmDOC and MOBI headers, the text records decompressed. */
export function mobiBook(file: Buffer): MobiBook {
  const db = palmDatabase(file);
  const r0 = db.records[0]!;
  if (r0.subarray(16, 20).toString('latin1') !== 'MOBI') throw new Error('record 0 has no MOBI header');
  const compression = r0.readUInt16BE(0);
  const textRecords = r0.readUInt16BE(8);
  const headerLength = r0.readUInt32BE(20);
  const flags = headerLength >= 0xe4 ? r0.readUInt16BE(0xf2) : 0;
  const parts = db.records.slice(1, 1 + textRecords).map((r) => withoutTrailing(r, flags));
  const raw = Buffer.concat(parts.map((p) => (compression === 2 ? palmDocDecompress(p) : p)));
  return { type: db.type, creator: db.creator, version: r0.readUInt32BE(36), compression, text: markupText(raw.toString('utf8')) };
}

/** A PalmDoc PDB (TEXtREAd): record 0 says the compression, the others hold the text. */
export function palmDocText(file: Buffer): { type: string; creator: string; text: string } {
  const db = palmDatabase(file);
  const compression = db.records[0]!.readUInt16BE(0);
  const raw = Buffer.concat(db.records.slice(1).map((r) => (compression === 2 ? palmDocDecompress(r) : r)));
  return { type: db.type, creator: db.creator, text: raw.toString('latin1').replace(/\s+/g, ' ').trim() };
}

/** TCR: `!!8-Bit!!`, 256 length-prefixed strings (one per code byte), then the text as code bytes. */
export function tcrText(file: Buffer): string {
  if (file.subarray(0, 9).toString('latin1') !== '!!8-Bit!!') throw new Error('not a TCR file');
  const codes: Buffer[] = [];
  let at = 9;
  for (let i = 0; i < 256; i++) {
    const length = file[at]!;
    codes.push(file.subarray(at + 1, at + 1 + length));
    at += 1 + length;
  }
  return Buffer.concat([...file.subarray(at)].map((c) => codes[c]!)).toString('latin1').replace(/\s+/g, ' ').trim();
}

/** Every zlib stream in a file inflated (LRF and Rocket eBook keep their text in such streams), as bytes. */
export function inflatedStreams(file: Buffer): Buffer[] {
  const found: Buffer[] = [];
  for (let i = 0; i + 2 < file.length; i++) {
    // A zlib header: deflate with a window of up to 32 KiB, its check bits right (RFC 1950).
    if ((file[i]! & 0x0f) !== 8 || file[i]! >> 4 > 7 || ((file[i]! << 8) | file[i + 1]!) % 31 !== 0) continue;
    try {
      found.push(inflateSync(file.subarray(i)));
    } catch {
      // not a stream, or not a whole one
    }
  }
  return found;
}

/** The text of an RTF file: groups of destinations (fonts, colours, info, pictures) dropped, control words removed. */
export function rtfText(rtf: string): string {
  let text = rtf;
  // Destination groups, innermost first: {\*\dest …}, {\fonttbl …}, {\colortbl …}, {\stylesheet …}, {\info …}, {\pict …}.
  for (let before = ''; before !== text; ) {
    before = text;
    text = text.replace(/\{\\(?:\*|fonttbl|colortbl|stylesheet|info|pict)[^{}]*\}/g, '');
  }
  return text
    .replace(/\\'([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replace(/\\u(-?\d+)\??/g, (_, n: string) => String.fromCharCode((Number(n) + 65536) % 65536))
    .replace(/\\[a-z]+-?\d* ?/gi, ' ')
    .replace(/[{}]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}
