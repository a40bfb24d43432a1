/**
 * The font formats the fonteditor engine reads and writes (each to each), and the container a font
 * file is, from its first bytes (the format of a file named without an extension is sniffed in
 * lib/engines/core/formats.ts, as every format's). An sfnt file (ttf or otf) is the font itself; WOFF, WOFF2 and EOT wrap
 * one. Whether its outlines are TrueType (`glyf`) or CFF is the sfnt's version tag.
 */
export const FONT_FORMATS = ['ttf', 'otf', 'woff', 'woff2', 'eot'] as const;
export type FontFormat = (typeof FONT_FORMATS)[number];

export type FontContainer = 'sfnt' | 'woff' | 'woff2' | 'eot';
export type Outlines = 'truetype' | 'cff';

/** The outlines an sfnt version tag announces: 0x00010000 and Apple's `true` TrueType, `OTTO` CFF. */
export function sfntOutlines(tag: number): Outlines | undefined {
  if (tag === 0x0001_0000 || tag === 0x7472_7565) return 'truetype';
  if (tag === 0x4f54_544f) return 'cff';
  return undefined;
}

/** EOT versions 1.0, 2.1 and 2.2 (the only ones there are). */
export const EOT_VERSIONS: readonly number[] = [0x0001_0000, 0x0002_0001, 0x0002_0002];

/**
 * The container of a font file from its first bytes (at least 36): an sfnt by its version tag, WOFF
 * `wOFF`, WOFF2 `wOF2`, EOT (little-endian, no signature at its start) by its magic number 0x504C at
 * byte 34 and a known version at byte 8.
 */
export function fontContainer(head: Uint8Array): FontContainer | undefined {
  if (head.length < 4) return undefined;
  const tag = ((head[0]! << 24) | (head[1]! << 16) | (head[2]! << 8) | head[3]!) >>> 0;
  if (sfntOutlines(tag)) return 'sfnt';
  if (tag === 0x774f_4646) return 'woff';
  if (tag === 0x774f_4632) return 'woff2';
  if (head.length >= 36 && head[34] === 0x4c && head[35] === 0x50) {
    const version = (head[8]! | (head[9]! << 8) | (head[10]! << 16) | (head[11]! << 24)) >>> 0;
    if (EOT_VERSIONS.includes(version)) return 'eot';
  }
  return undefined;
}
