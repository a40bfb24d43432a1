/**
 * Fonts on the fonteditor engine (lib/engines/font/): ttf, otf, woff, woff2 and eot, each way, through
 * the convert operation in-process against dynalite and s3rver. The source font is drawn here with
 * opentype.js (CFF outlines); every output is opened by fontkit, a reader the engine does not use (an
 * EOT's embedded font is taken out of its header by this file's own reader), and checked for its
 * glyph count, family name, an advance width and its outlines. Broken fonts and decompression bombs
 * end with a task error code before anything is decoded.
 */
import { deflateSync } from 'node:zlib';
import * as fontkit from 'fontkit';
import opentype from 'opentype.js';
import { ADVANCE_A, drawnOtf, FAMILY } from '../fixtures/font-fixtures.js';
import { createFont } from 'fonteditor-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64, startEngineHarness, type Harness } from './engines-harness.js';

const FORMATS = ['ttf', 'otf', 'woff', 'woff2', 'eot'] as const;
type FontFormat = (typeof FORMATS)[number];

/**
 * The font an EOT embeds, read here from its header (EOT is little-endian: EOTSize, FontDataSize,
 * Version, Flags, then fixed fields to byte 80, then four length-prefixed names, in versions
 * 0x00020001 and later a root string, in 0x00020002 a signature and EUDC data).
 */
function eotFontData(eot: Buffer): Buffer {
  expect(eot.readUInt16LE(34), 'EOT magic number').toBe(0x504c);
  expect(eot.readUInt32LE(0), 'EOTSize').toBe(eot.length);
  const version = eot.readUInt32LE(8);
  const flags = eot.readUInt32LE(12);
  // Each name: two bytes of padding, its size, its UTF-16 bytes; the first padding is at 80.
  let at = 80;
  for (let i = 0; i < 4; i++) at += 4 + eot.readUInt16LE(at + 2);
  if (version >= 0x20001) at += 4 + eot.readUInt16LE(at + 2);
  if (version >= 0x20002) {
    at += 8;
    at += 4 + eot.readUInt16LE(at + 2);
    at += 8 + eot.readUInt32LE(at + 4);
  }
  const size = eot.readUInt32LE(4);
  const data = Buffer.from(eot.subarray(at, at + size));
  if (flags & 0x10000000) for (let i = 0; i < data.length; i++) data[i]! ^= 0x50;
  return data;
}

const SIGNATURES: Record<string, string> = { '00010000': 'truetype', '4f54544f': 'cff', '774f4646': 'woff', '774f4632': 'woff2' };

/** What fontkit reads in a font file of `format`, and the outlines it holds. */
function read(bytes: Buffer, format: FontFormat) {
  const sfnt = format === 'eot' ? eotFontData(bytes) : bytes;
  const font = fontkit.create(sfnt) as fontkit.Font;
  const tables = Object.keys((font as unknown as { directory: { tables: Record<string, unknown> } }).directory.tables);
  return {
    signature: SIGNATURES[bytes.subarray(0, 4).toString('hex')] ?? (format === 'eot' ? 'eot' : 'unknown'),
    type: font.type,
    glyphs: font.numGlyphs,
    family: font.familyName,
    advanceA: font.glyphForCodePoint(65).advanceWidth,
    outlines: tables.includes('CFF ') ? 'cff' : tables.includes('glyf') ? 'truetype' : 'none',
    // The outline of A survives (as quadratic or cubic curves): its bounding box, to a unit.
    boxA: (() => {
      const b = font.glyphForCodePoint(65).bbox;
      return [b.minX, b.minY, b.maxX, b.maxY].map(Math.round);
    })(),
  };
}

let h: Harness;
let otf: Buffer;
const inputs = {} as Record<FontFormat, Buffer>;

beforeAll(async () => {
  h = await startEngineHarness();
  otf = drawnOtf();
  // The TrueType input: the drawn font's outlines converted by fonteditor-core itself.
  const ttf = createFont(otf, { type: 'otf' }).write({ type: 'ttf', toBuffer: true }) as Buffer;
  // The other inputs are made by the engine from the TrueType one (each checked as an output below).
  const t = await h.run({
    ttf: base64(ttf, 'probe.ttf'),
    woff: { operation: 'convert', input: 'ttf', output_format: 'woff' },
    woff2: { operation: 'convert', input: 'ttf', output_format: 'woff2' },
    eot: { operation: 'convert', input: 'ttf', output_format: 'eot' },
  });
  Object.assign(inputs, { ttf, otf, woff: await h.file(t.woff!), woff2: await h.file(t.woff2!), eot: await h.file(t.eot!) });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe('fonts with the fonteditor engine', () => {
  it('reads the drawn font and its TrueType conversion with fontkit', () => {
    expect(read(otf, 'otf')).toMatchObject({ signature: 'cff', outlines: 'cff', glyphs: 4, family: FAMILY, advanceA: ADVANCE_A });
    expect(read(inputs.ttf, 'ttf')).toMatchObject({ signature: 'truetype', outlines: 'truetype', glyphs: 4, family: FAMILY, advanceA: ADVANCE_A });
  });

  it('converts every input format to every output format, each output opened by fontkit', async () => {
    const tasks: Record<string, Record<string, unknown>> = {};
    for (const from of FORMATS) {
      tasks[`in-${from}`] = base64(inputs[from], `probe.${from}`);
      for (const to of FORMATS) tasks[`${from}-${to}`] = { operation: 'convert', input: `in-${from}`, output_format: to };
    }
    const t = await h.run(tasks);
    const boxA = read(otf, 'otf').boxA;
    for (const from of FORMATS) {
      for (const to of FORMATS) {
        const task = t[`${from}-${to}`]!;
        expect(task, `${from} → ${to}`).toMatchObject({ status: 'finished', engine: 'fonteditor' });
        expect(task.result!.files![0]!.filename).toBe(`probe.${to}`);
        const font = read(await h.file(task), to);
        // Containers keep the outlines they hold; ttf and eot are TrueType; otf keeps either kind.
        const cffSource = from === 'otf';
        const outlines = to === 'ttf' || to === 'eot' || !cffSource ? 'truetype' : 'cff';
        const signature = to === 'woff' || to === 'woff2' || to === 'eot' ? to : outlines;
        expect(font, `${from} → ${to}`).toMatchObject({ signature, outlines, glyphs: 4, family: FAMILY, advanceA: ADVANCE_A });
        for (const [i, v] of font.boxA.entries()) expect(Math.abs(v - boxA[i]!), `${from} → ${to}: the box of A`).toBeLessThanOrEqual(2);
      }
    }
  }, 300_000);

  it('turns a TTF into WOFF2 and a WOFF2 back into an OpenType font that opentype.js also opens', async () => {
    const t = await h.run({
      ttf: base64(inputs.ttf, 'probe.ttf'),
      otf: base64(otf, 'cff.otf'),
      woff2: { operation: 'convert', input: 'ttf', output_format: 'woff2' },
      cffWoff2: { operation: 'convert', input: 'otf', output_format: 'woff2' },
    });
    const woff2 = await h.file(t.woff2!);
    expect(read(woff2, 'woff2')).toMatchObject({ type: 'WOFF2', outlines: 'truetype', glyphs: 4, family: FAMILY, advanceA: ADVANCE_A });
    const back = await h.run({
      woff2: base64(woff2, 'probe.woff2'),
      cff: base64(await h.file(t.cffWoff2!), 'cff.woff2'),
      otf: { operation: 'convert', input: 'woff2', output_format: 'otf' },
      cffOtf: { operation: 'convert', input: 'cff', output_format: 'otf' },
    });
    for (const name of ['otf', 'cffOtf']) {
      const bytes = await h.file(back[name]!);
      const parsed = opentype.parse(new Uint8Array(bytes).buffer);
      expect(parsed.numGlyphs, name).toBe(4);
      expect(parsed.getEnglishName('fontFamily'), name).toBe(FAMILY);
      expect(parsed.charToGlyph('A').advanceWidth, name).toBe(ADVANCE_A);
      expect(back[name]!.result!.files![0]!.filename).toMatch(/\.otf$/);
    }
    // The CFF font's own bytes come back from its WOFF2: a container change, not a conversion.
    expect(read(await h.file(back.cffOtf!), 'otf')).toMatchObject({ signature: 'cff', outlines: 'cff' });
  }, 120_000);
});

describe('EOT inputs', () => {
  it('reads an EOT whose font data is XOR-obfuscated (TTEMBED_XORENCRYPTDATA)', async () => {
    const eot = Buffer.from(inputs.eot);
    const size = eot.readUInt32LE(4);
    eot.writeUInt32LE(eot.readUInt32LE(12) | 0x1000_0000, 12);
    for (let i = eot.length - size; i < eot.length; i++) eot[i]! ^= 0x50;
    const t = await h.run({ eot: base64(eot, 'hidden.eot'), woff2: { operation: 'convert', input: 'eot', output_format: 'woff2' } });
    expect(read(await h.file(t.woff2!), 'woff2')).toMatchObject({ type: 'WOFF2', glyphs: 4, family: FAMILY, advanceA: ADVANCE_A });
  }, 60_000);
});

/** A WOFF 1.0 file of one table whose directory entry says `origLength`, its data `data` deflated. */
function woffWith(data: Buffer, origLength: number): Buffer {
  const packed = deflateSync(data);
  const header = Buffer.alloc(44 + 20);
  header.write('wOFF', 0, 'latin1');
  header.writeUInt32BE(0x00010000, 4);
  const length = header.length + packed.length + ((4 - (packed.length % 4)) % 4);
  header.writeUInt32BE(length, 8);
  header.writeUInt16BE(1, 12);
  header.writeUInt32BE(12 + 16 + origLength + ((4 - (origLength % 4)) % 4), 16);
  header.write('glyf', 44, 'latin1');
  header.writeUInt32BE(64, 48);
  header.writeUInt32BE(packed.length, 52);
  header.writeUInt32BE(origLength, 56);
  return Buffer.concat([header, packed, Buffer.alloc(length - header.length - packed.length)]);
}

describe('fonts refused before decoding', () => {
  it('ends truncated, corrupt and bomb fonts with a task error code', async () => {
    const woff2 = Buffer.from(inputs.woff2);
    // WOFF2's totalSfntSize (the size its decoder allocates) claims 2 GB.
    woff2.writeUInt32BE(0x7fff_0000, 16);
    const woff = Buffer.from(inputs.woff);
    // The first table of the WOFF claims to inflate to 1.5 GB.
    woff.writeUInt32BE(1_500_000_000, 44 + 12);
    // 100 MB of zeros deflate to 100 KB: declared truthfully, refused by the size its table declares.
    const zeros = woffWith(Buffer.alloc(100 * 1024 * 1024), 100 * 1024 * 1024);
    // A table that inflates past what it declares (4 MB, declared 64 KB): stopped at its declared size.
    const liar = woffWith(Buffer.alloc(4 * 1024 * 1024), 64 * 1024);
    // A WOFF2 whose header is sound and whose brotli stream is not.
    const mangled = Buffer.from(inputs.woff2);
    for (let i = mangled.length - 40; i < mangled.length; i++) mangled[i] = 0xa5;
    const t = await h.run({
      truncated: base64(inputs.ttf.subarray(0, Math.floor(inputs.ttf.length / 2)), 'cut.ttf'),
      garbage: base64(Buffer.from('wOF2 this is not a font at all, only its first four bytes are'), 'garbage.woff2'),
      bomb2: base64(woff2, 'bomb.woff2'),
      bomb1: base64(woff, 'bomb.woff'),
      zeros: base64(zeros, 'zeros.woff'),
      liar: base64(liar, 'liar.woff'),
      mangled: base64(mangled, 'mangled.woff2'),
      eot: base64(inputs.eot.subarray(0, inputs.eot.length - 100), 'cut.eot'),
      'truncated-out': { operation: 'convert', input: 'truncated', output_format: 'woff2' },
      'garbage-out': { operation: 'convert', input: 'garbage', output_format: 'ttf' },
      'bomb2-out': { operation: 'convert', input: 'bomb2', output_format: 'otf' },
      'bomb1-out': { operation: 'convert', input: 'bomb1', output_format: 'ttf' },
      'zeros-out': { operation: 'convert', input: 'zeros', output_format: 'woff2' },
      'liar-out': { operation: 'convert', input: 'liar', output_format: 'otf' },
      'mangled-out': { operation: 'convert', input: 'mangled', output_format: 'ttf' },
      'eot-out': { operation: 'convert', input: 'eot', output_format: 'woff' },
    });
    expect(t['truncated-out']).toMatchObject({ status: 'error', code: 'INVALID_INPUT' });
    expect(t['garbage-out']).toMatchObject({ status: 'error', code: 'INVALID_INPUT' });
    expect(t['bomb2-out']).toMatchObject({ status: 'error', code: 'FILE_TOO_LARGE', message: expect.stringContaining('MAX_FONT_BYTES') });
    expect(t['bomb1-out']).toMatchObject({ status: 'error', code: 'FILE_TOO_LARGE', message: expect.stringContaining('MAX_FONT_BYTES') });
    expect(t['zeros-out']).toMatchObject({ status: 'error', code: 'FILE_TOO_LARGE' });
    expect(t['liar-out']).toMatchObject({ status: 'error', code: 'INVALID_INPUT', message: expect.stringContaining('does not inflate to the length it declares') });
    expect(t['mangled-out']).toMatchObject({ status: 'error', code: 'INVALID_INPUT', message: expect.stringContaining('WOFF2 data does not decode') });
    expect(t['eot-out']).toMatchObject({ status: 'error', code: 'INVALID_INPUT' });
  }, 120_000);
});
