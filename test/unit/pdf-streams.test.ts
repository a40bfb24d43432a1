/**
 * The counting decoders behind the decompression-bomb check (pdf-filters.ts) and the scan of a PDF's
 * streams (pdf-streams.ts): counts equal what zlib and the filter definitions give, whatever the
 * chunking; nothing decoded is kept; limits refuse with the setting's name.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { constants, deflateSync } from 'node:zlib';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { decodingChain, type FilterSpec, type Stage } from '#lib/engines/core/pdf-filters.js';
import { checkPdfDecodedSize } from '#lib/engines/core/pdf-streams.js';

class Capture implements Stage {
  parts: Buffer[] = [];
  done = false;
  push(chunk: Uint8Array) {
    this.parts.push(Buffer.from(chunk));
  }
  end() {}
  get bytes() {
    return Buffer.concat(this.parts);
  }
}

/** Decodes `data` through `filters` in random-sized chunks: [count of every stage, last stage's output]. */
function decode(filters: FilterSpec[] | undefined, data: Buffer, capture = false): [number, Buffer] {
  let counted = 0;
  const sink = capture ? new Capture() : undefined;
  const chain = decodingChain(filters, { add: (n) => (counted += n) }, sink)!;
  for (let i = 0; i < data.length && !chain.done; ) {
    const n = 1 + Math.floor(Math.random() * 3000);
    chain.push(data.subarray(i, i + n));
    i += n;
  }
  chain.end();
  return [counted, sink?.bytes ?? Buffer.alloc(0)];
}

const SAMPLES: Record<string, Buffer> = {
  empty: Buffer.alloc(0),
  text: Buffer.from('BT /F1 12 Tf 72 712 Td (Hello) Tj ET\n'.repeat(20_000)),
  random: randomBytes(150_000),
  runs: Buffer.alloc(2_000_000, 0x20),
  mixed: Buffer.concat([randomBytes(40_000), Buffer.alloc(90_000), randomBytes(3)]),
};
const OPTIONS = [{ level: 1 }, { level: 9 }, { level: 0 }, { strategy: constants.Z_FIXED }, { strategy: constants.Z_HUFFMAN_ONLY }, { strategy: constants.Z_RLE }];

describe('FlateDecode', () => {
  it.each(Object.keys(SAMPLES))('counts exactly what zlib inflates (%s), in any chunking and with every kind of block', (name) => {
    const data = SAMPLES[name]!;
    for (const opts of OPTIONS) {
      const z = deflateSync(data, opts);
      expect(decode([{ name: 'FlateDecode' }], z)[0], JSON.stringify(opts)).toBe(data.length);
      // As a first stage (window kept), its output is the data itself.
      const [counted, out] = decode([{ name: 'FlateDecode' }], z, true);
      expect(counted).toBe(data.length);
      expect(out.equals(data)).toBe(true);
    }
  });

  it('counts every stage of a chain: FlateDecode twice', () => {
    const data = SAMPLES.text!;
    const inner = deflateSync(data);
    expect(decode([{ name: 'FlateDecode' }, { name: 'FlateDecode' }], deflateSync(inner))[0]).toBe(inner.length + data.length);
  });

  it('stops at data it cannot decode, keeping the count so far, and ignores what follows the last block', () => {
    expect(decode([{ name: 'FlateDecode' }], Buffer.from('not zlib at all'))[0]).toBe(0);
    const z = deflateSync(SAMPLES.text!);
    expect(decode([{ name: 'FlateDecode' }], Buffer.concat([z, Buffer.from('endstream garbage')]))[0]).toBe(SAMPLES.text!.length);
    expect(decode([{ name: 'FlateDecode' }], z.subarray(0, z.length >> 1))[0]).toBeLessThan(SAMPLES.text!.length);
  });
});

describe('the other filters', () => {
  it('LZWDecode: the example of ISO 32000-1 §7.4.4.2', () => {
    const [n, out] = decode([{ name: 'LZWDecode' }], Buffer.from([0x80, 0x0b, 0x60, 0x50, 0x22, 0x0c, 0x0c, 0x85, 0x01]), true);
    expect(n).toBe(10);
    expect(out).toEqual(Buffer.from([45, 45, 45, 45, 45, 65, 45, 45, 45, 66]));
  });

  it('RunLengthDecode, ASCIIHexDecode and ASCII85Decode, up to their end-of-data markers', () => {
    expect(decode([{ name: 'RunLengthDecode' }], Buffer.from([2, 1, 2, 3, 254, 9, 128, 7, 7]), true)[1]).toEqual(Buffer.from([1, 2, 3, 9, 9, 9]));
    expect(decode([{ name: 'ASCIIHexDecode' }], Buffer.from('48 65 6c6c 6f>6565'), true)[1].toString()).toBe('Hello');
    expect(decode([{ name: 'ASCII85Decode' }], Buffer.from('87cURD]i,"Ebo80~>zzz'), true)[1].toString()).toBe('Hello World!');
    const z = deflateSync(SAMPLES.text!);
    expect(decode([{ name: 'ASCIIHexDecode' }, { name: 'FlateDecode' }], Buffer.from(`${z.toString('hex')}>`))[0]).toBe(z.length + SAMPLES.text!.length);
  });

  it('unreadable filters: zlib data is found by its header, a few levels deep', () => {
    const data = SAMPLES.runs!;
    const once = deflateSync(data);
    expect(decode(undefined, once)[0]).toBe(data.length);
    expect(decode(undefined, deflateSync(once))[0]).toBe(once.length + data.length);
    expect(decode(undefined, SAMPLES.random!)[0]).toBeLessThan(SAMPLES.random!.length);
  });
});

describe('the scan of a PDF', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pdf-streams-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const LIMITS = { MAX_PDF_DECODED_BYTES: 2 ** 30, MAX_PDF_DECODED_RATIO: 100 };

  const file = (name: string, bytes: Uint8Array) => {
    const p = path.join(dir, name);
    writeFileSync(p, bytes);
    return p;
  };

  it('measures a pdf-lib document with object and cross-reference streams', async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    for (let i = 0; i < 20; i++) doc.addPage().drawText(`page ${i} `.repeat(50), { x: 10, y: 700, size: 8, font });
    const bytes = await doc.save({ useObjectStreams: true });
    const measured = await checkPdfDecodedSize('doc.pdf', file('doc.pdf', bytes), LIMITS);
    // 20 content streams, an object stream and a cross-reference stream at least.
    expect(measured.streams).toBeGreaterThanOrEqual(22);
    expect(measured.total).toBeGreaterThan(bytes.length);
  });

  it('passes long ordinary documents: 1,000 pages, with and without object streams', async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    for (let i = 0; i < 1000; i++) doc.addPage([300, 400]).drawText(`page ${i + 1}`, { x: 20, y: 360, size: 12, font });
    for (const useObjectStreams of [true, false]) {
      const bytes = await doc.save({ useObjectStreams });
      const measured = await checkPdfDecodedSize('long.pdf', file(`long-${useObjectStreams}.pdf`, bytes), LIMITS);
      expect(measured.streams).toBeGreaterThanOrEqual(1000);
    }
  });

  it('refuses past the total, naming MAX_PDF_DECODED_BYTES, and past the ratio, naming MAX_PDF_DECODED_RATIO', async () => {
    const content = deflateSync(Buffer.alloc(3_000_000, 0x20));
    const pdf = Buffer.concat([
      Buffer.from(`%PDF-1.4\n1 0 obj\n<< /Filter /FlateDecode /Length ${content.length} >>\nstream\n`),
      content,
      Buffer.from(`\nendstream\nendobj\n2 0 obj\n<< /Filter /Fl /Length ${content.length} >> stream\r\n`),
      content,
      Buffer.from('\nendstream\nendobj\n%%EOF\n'),
    ]);
    const p = file('two.pdf', pdf);
    expect(await checkPdfDecodedSize('two.pdf', p, LIMITS)).toMatchObject({ total: 6_000_000, parsed: 6_000_000, streams: 2 });
    await expect(checkPdfDecodedSize('two.pdf', p, { ...LIMITS, MAX_PDF_DECODED_BYTES: 5_000_000 })).rejects.toMatchObject({
      code: 'FILE_TOO_LARGE',
      message: expect.stringContaining('MAX_PDF_DECODED_BYTES'),
    });
    // 6 MB from about 12 KB is far past 100 times the size, but under the 16 MiB floor; a 40 MB stream is not.
    const big = deflateSync(Buffer.alloc(40_000_000, 0x20));
    const bomb = Buffer.concat([Buffer.from(`%PDF-1.4\n1 0 obj\n<< /Filter /FlateDecode /Length ${big.length} >>stream\n`), big, Buffer.from('\nendstream\nendobj\n')]);
    await expect(checkPdfDecodedSize('bomb.pdf', file('bomb.pdf', bomb), LIMITS)).rejects.toMatchObject({
      code: 'FILE_TOO_LARGE',
      message: expect.stringContaining('MAX_PDF_DECODED_RATIO'),
    });
  });

  it('reads the stream where pdf-lib does: /Length when endstream follows it, else the closing endstream', async () => {
    const data = deflateSync(Buffer.alloc(1_000_000, 0x41));
    const lying = Buffer.concat([Buffer.from('%PDF-1.4\n1 0 obj\n<< /Filter /FlateDecode /Length 5 >>\nstream\n'), data, Buffer.from('\nendstream\nendobj\n')]);
    expect((await checkPdfDecodedSize('lying.pdf', file('lying.pdf', lying), LIMITS)).total).toBe(1_000_000);
    const inString = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Title (a stream of words) >>\nendobj\n%% a comment: stream\n');
    expect(await checkPdfDecodedSize('words.pdf', file('words.pdf', inString), LIMITS)).toMatchObject({ streams: 0 });
  });
});
