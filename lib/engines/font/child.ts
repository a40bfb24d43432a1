/**
 * The fonteditor engine's child program: one conversion in a confined `node` process (run.ts), so
 * that the font parsers and the WebAssembly woff2 codec never run on a user's bytes in the worker's own
 * process. Its one argument is the JSON of a `FontJob`: it reads the input, takes the sfnt out of its
 * container, converts the outlines only where the output needs it (CFF to TrueType for ttf and eot),
 * puts the sfnt into the output's container and writes it.
 *
 * - WOFF 1.0 is done here, with node's zlib: the sfnt's tables, each deflated when that is smaller, in
 *   tag order behind a 44-byte header (and back, each table inflated to no more than the length the
 *   checked directory declares, layout.ts). The flavor and the tables stay as they are: a CFF font stays
 *   CFF.
 * - WOFF2 is Google's woff2 (wawoff2), which handles both outline kinds.
 * - EOT: the embedded sfnt is taken from where layout.ts found it (un-XORed when obfuscated);
 *   fonteditor-core writes one (version 2.1, uncompressed, TrueType outlines).
 * - CFF to TrueType outlines: fonteditor-core reads the CFF charstrings into quadratic contours and
 *   writes a TrueType font (kerning tables kept).
 *
 * A font it cannot read ends it with exit code 65 and one line `font: <why>` on stderr, which run.ts
 * turns into INVALID_INPUT; anything else is a failed conversion.
 */
import type { FontFormat, Outlines } from './formats.js';
import type { FontLayout } from './layout.js';

export const INVALID_FONT_EXIT = 65;

export interface FontJob {
  input: string;
  output: string;
  to: FontFormat;
  layout: Pick<FontLayout, 'container' | 'embedded'> & { outlines: Outlines };
  wawoff2: string;
  fonteditor: string;
}

export const CHILD = `
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { deflateSync, inflateSync } from 'node:zlib';
const job = JSON.parse(process.argv[process.argv.length - 1]);
const require = createRequire(job.fonteditor);
class Invalid extends Error {}
const pad = (n) => n + ((4 - (n % 4)) % 4);
const byTag = (a, b) => Buffer.compare(a.tag, b.tag);

function tablesOf(sfnt) {
  const tables = [];
  for (let i = 0, at = 12; i < sfnt.readUInt16BE(4); i++, at += 16) {
    const offset = sfnt.readUInt32BE(at + 8);
    const length = sfnt.readUInt32BE(at + 12);
    if (offset + length > sfnt.length) throw new Invalid('a table lies past the end of the font');
    tables.push({ tag: sfnt.subarray(at, at + 4), checksum: sfnt.readUInt32BE(at + 4), data: sfnt.subarray(offset, offset + length) });
  }
  return tables.sort(byTag);
}

function sfntOf(flavor, tables) {
  const n = tables.length;
  const size = tables.reduce((sum, t) => sum + pad(t.data.length), 12 + 16 * n);
  const out = Buffer.alloc(size);
  const power = 2 ** Math.floor(Math.log2(n));
  out.writeUInt32BE(flavor, 0);
  out.writeUInt16BE(n, 4);
  out.writeUInt16BE(power * 16, 6);
  out.writeUInt16BE(Math.log2(power), 8);
  out.writeUInt16BE((n - power) * 16, 10);
  let offset = 12 + 16 * n;
  tables.forEach((t, i) => {
    const at = 12 + 16 * i;
    t.tag.copy(out, at);
    out.writeUInt32BE(t.checksum, at + 4);
    out.writeUInt32BE(offset, at + 8);
    out.writeUInt32BE(t.data.length, at + 12);
    t.data.copy(out, offset);
    offset += pad(t.data.length);
  });
  return out;
}

function fromWoff(woff) {
  const tables = [];
  for (let i = 0, at = 44; i < woff.readUInt16BE(12); i++, at += 20) {
    const offset = woff.readUInt32BE(at + 4);
    const compLength = woff.readUInt32BE(at + 8);
    const origLength = woff.readUInt32BE(at + 12);
    const stored = woff.subarray(offset, offset + compLength);
    let data = stored;
    if (compLength < origLength) {
      try {
        data = inflateSync(stored, { maxOutputLength: origLength });
      } catch {
        data = undefined;
      }
    }
    if (!data || data.length !== origLength) throw new Invalid('a WOFF table does not inflate to the length it declares');
    tables.push({ tag: woff.subarray(at, at + 4), checksum: woff.readUInt32BE(at + 16), data });
  }
  return sfntOf(woff.readUInt32BE(4), tables.sort(byTag));
}

function toWoff(sfnt) {
  const tables = tablesOf(sfnt).map((t) => {
    const packed = deflateSync(t.data, { level: 9 });
    return { ...t, stored: packed.length < t.data.length ? packed : t.data };
  });
  const n = tables.length;
  const length = tables.reduce((sum, t) => sum + pad(t.stored.length), 44 + 20 * n);
  const out = Buffer.alloc(length);
  out.write('wOFF', 0, 'latin1');
  out.writeUInt32BE(sfnt.readUInt32BE(0), 4);
  out.writeUInt32BE(length, 8);
  out.writeUInt16BE(n, 12);
  out.writeUInt32BE(tables.reduce((sum, t) => sum + pad(t.data.length), 12 + 16 * n), 16);
  // The WOFF's version: the font's revision (head.fontRevision), as browsers show it.
  const head = tables.find((t) => t.tag.toString('latin1') === 'head');
  if (head && head.data.length >= 8) head.data.copy(out, 20, 4, 8);
  let offset = 44 + 20 * n;
  tables.forEach((t, i) => {
    const at = 44 + 20 * i;
    t.tag.copy(out, at);
    out.writeUInt32BE(offset, at + 4);
    out.writeUInt32BE(t.stored.length, at + 8);
    out.writeUInt32BE(t.data.length, at + 12);
    out.writeUInt32BE(t.checksum, at + 16);
    t.stored.copy(out, offset);
    offset += pad(t.stored.length);
  });
  return out;
}

function fromEot(eot) {
  const { offset, length, xor } = job.layout.embedded;
  const sfnt = Buffer.from(eot.subarray(offset, offset + length));
  if (xor) for (let i = 0; i < sfnt.length; i++) sfnt[i] ^= 0x50;
  return sfnt;
}

const arrayBuffer = (b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.length);

async function convert() {
  const bytes = readFileSync(job.input);
  const woff2 = () => require(job.wawoff2);
  let sfnt;
  if (job.layout.container === 'woff') sfnt = fromWoff(bytes);
  else if (job.layout.container === 'eot') sfnt = fromEot(bytes);
  else if (job.layout.container === 'woff2') {
    try {
      sfnt = Buffer.from(await woff2().decompress(bytes));
    } catch {
      throw new Invalid('its WOFF2 data does not decode');
    }
  } else sfnt = bytes;
  tablesOf(sfnt);
  if ((job.to === 'ttf' || job.to === 'eot') && job.layout.outlines === 'cff') {
    const fonteditor = require(job.fonteditor);
    let font;
    try {
      font = fonteditor.createFont(sfnt, { type: 'otf', kerning: true });
    } catch (err) {
      throw new Invalid('its CFF outlines cannot be read (' + String((err && err.message) || err).slice(0, 200) + ')');
    }
    sfnt = Buffer.from(font.write({ type: 'ttf', toBuffer: true, kerning: true }));
  }
  if (job.to === 'woff') return toWoff(sfnt);
  if (job.to === 'woff2') return Buffer.from(await woff2().compress(sfnt));
  if (job.to === 'eot') return Buffer.from(require(job.fonteditor).ttf2eot(arrayBuffer(sfnt)));
  return sfnt;
}

try {
  writeFileSync(job.output, await convert());
} catch (err) {
  if (!(err instanceof Invalid)) throw err;
  process.stderr.write('font: ' + err.message + '\\n');
  process.exitCode = ${INVALID_FONT_EXIT};
}
`;
