/**
 * Fonts as files: the format of a font named without an extension, its content type and group, and
 * the header checks of the fonteditor engine (lib/engines/font/layout.ts) that refuse a truncated font
 * or a decompression bomb before any decoder runs. Fonts are built byte by byte here; the conversions
 * themselves are test/integration/engines-fonts.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { formatGroup, mimeType, sniffFormat } from '#lib/engines/core/formats.js';
import { EngineFailure } from '#lib/engines/core/errors.js';
import { fontLayout } from '#lib/engines/font/layout.js';

const MAX = 30 * 1024 * 1024;

/** An sfnt with version tag `tag` and one 8-byte table (`length` declared). */
function sfnt(tag: number | string, length = 8): Buffer {
  const font = Buffer.alloc(12 + 16 + 8);
  if (typeof tag === 'number') font.writeUInt32BE(tag, 0);
  else font.write(tag, 0, 'latin1');
  font.writeUInt16BE(1, 4);
  font.writeUInt16BE(16, 6);
  font.write('head', 12, 'latin1');
  font.writeUInt32BE(28, 20);
  font.writeUInt32BE(length, 24);
  return font;
}

/** A WOFF2 header of `length` bytes declaring `totalSfntSize`, one table (`hmtx`, untransformed) of `origLength`. */
function woff2(totalSfntSize: number, origLength: number, tag = 0x0001_0000): Buffer {
  const file = Buffer.alloc(64);
  file.write('wOF2', 0, 'latin1');
  file.writeUInt32BE(tag, 4);
  file.writeUInt32BE(file.length, 8);
  file.writeUInt16BE(1, 12);
  file.writeUInt32BE(totalSfntSize, 16);
  file.writeUInt32BE(4, 20);
  file[48] = 3;
  // origLength as UIntBase128: 7 bits a byte, most significant first, no leading zeros.
  const bytes = [origLength % 128];
  for (let n = Math.floor(origLength / 128); n > 0; n = Math.floor(n / 128)) bytes.unshift((n % 128) | 0x80);
  file.set(bytes, 49);
  return file;
}

/** An EOT version 2.1 holding `font` with `flags`. */
function eot(font: Buffer, flags = 0): Buffer {
  const header = Buffer.alloc(82 + 2 + 4 * 3 + 4);
  header.writeUInt32LE(header.length + font.length, 0);
  header.writeUInt32LE(font.length, 4);
  header.writeUInt32LE(0x0002_0001, 8);
  header.writeUInt32LE(flags, 12);
  header.writeUInt16LE(0x504c, 34);
  return Buffer.concat([header, font]);
}

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    if (err instanceof EngineFailure) return { code: err.code, message: err.message };
    throw err;
  }
  return undefined;
};

describe('font files', () => {
  it('are recognised by their first bytes when named without an extension', () => {
    expect(sniffFormat(sfnt(0x0001_0000))).toBe('ttf');
    expect(sniffFormat(sfnt('true'))).toBe('ttf');
    expect(sniffFormat(sfnt('OTTO'))).toBe('otf');
    expect(sniffFormat(Buffer.from('wOFF\0\x01\0\0'))).toBe('woff');
    expect(sniffFormat(woff2(100, 8))).toBe('woff2');
    expect(sniffFormat(eot(sfnt(0x0001_0000)))).toBe('eot');
    // Text that starts like Apple's tag is not a font.
    expect(sniffFormat(Buffer.from('true story, told in plain text'))).toBeUndefined();
  });

  it('have their registered content types and the font group', () => {
    expect(['ttf', 'otf', 'woff', 'woff2', 'eot'].map(mimeType)).toEqual(['font/ttf', 'font/otf', 'font/woff', 'font/woff2', 'application/vnd.ms-fontobject']);
    expect(formatGroup('woff2')).toBe('font');
  });

  it('are laid out from their headers: container, outlines, unpacked size', () => {
    expect(fontLayout('a.ttf', sfnt(0x0001_0000), MAX)).toMatchObject({ container: 'sfnt', outlines: 'truetype' });
    expect(fontLayout('a.otf', sfnt('OTTO'), MAX)).toMatchObject({ container: 'sfnt', outlines: 'cff' });
    expect(fontLayout('a.woff2', woff2(100, 8, 0x4f54_544f), MAX)).toMatchObject({ container: 'woff2', outlines: 'cff', sfntBytes: 100 });
    expect(fontLayout('a.eot', eot(sfnt('OTTO')), MAX)).toMatchObject({ container: 'eot', outlines: 'cff', embedded: { offset: 100, length: 36, xor: false } });
    // EOT's XOR obfuscation (every byte of the font data ^ 0x50) is undone before the sfnt is checked.
    const hidden = sfnt('OTTO').map((b) => b ^ 0x50);
    expect(fontLayout('x.eot', eot(Buffer.from(hidden), 0x1000_0000), MAX)).toMatchObject({ outlines: 'cff', embedded: { xor: true } });
  });

  it('are refused when truncated, corrupt or declaring more than MAX_FONT_BYTES', () => {
    expect(refusal(() => fontLayout('cut.ttf', sfnt(0x0001_0000, 4096), MAX))).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('truncated') });
    expect(refusal(() => fontLayout('x.ttf', Buffer.from('not a font'), MAX))).toMatchObject({ code: 'INVALID_INPUT' });
    expect(refusal(() => fontLayout('bomb.woff2', woff2(2 ** 31, 8), MAX))).toMatchObject({ code: 'FILE_TOO_LARGE', message: expect.stringContaining('MAX_FONT_BYTES') });
    expect(refusal(() => fontLayout('bomb.woff2', woff2(100, 2 ** 31), MAX))).toMatchObject({ code: 'FILE_TOO_LARGE', message: expect.stringContaining('a table of 2147483648 bytes') });
    expect(refusal(() => fontLayout('cut.woff2', woff2(100, 8).subarray(0, 50), MAX))).toMatchObject({ code: 'INVALID_INPUT' });
    expect(refusal(() => fontLayout('set.woff2', woff2(100, 8, 0x7474_6366), MAX))).toMatchObject({ code: 'UNSUPPORTED_FORMAT' });
    expect(refusal(() => fontLayout('mtx.eot', eot(sfnt(0x0001_0000), 0x4), MAX))).toMatchObject({ code: 'UNSUPPORTED_FORMAT', message: expect.stringContaining('MicroType Express') });
    expect(refusal(() => fontLayout('big.ttf', sfnt(0x0001_0000), 16))).toMatchObject({ code: 'FILE_TOO_LARGE' });
  });
});
