// Minimal typings for the font packages, which ship none: wawoff2 (the fonteditor engine's
// woff2 codec) and the test-only readers and writers fontkit and opentype.js.
declare module 'wawoff2' {
  export function compress(sfnt: Uint8Array): Promise<Uint8Array>;
  export function decompress(woff2: Uint8Array): Promise<Uint8Array>;
}

declare module 'fontkit' {
  export interface Glyph {
    advanceWidth: number;
    bbox: { minX: number; minY: number; maxX: number; maxY: number };
  }
  export interface Font {
    type: string;
    numGlyphs: number;
    familyName: string;
    glyphForCodePoint(codePoint: number): Glyph;
  }
  export function create(buffer: Uint8Array): Font;
}

declare module 'opentype.js' {
  class Path {
    moveTo(x: number, y: number): void;
    lineTo(x: number, y: number): void;
    curveTo(x1: number, y1: number, x2: number, y2: number, x: number, y: number): void;
    close(): void;
  }
  class Glyph {
    constructor(options: { name: string; unicode?: number; advanceWidth: number; path: Path });
    advanceWidth: number;
  }
  class Font {
    constructor(options: { familyName: string; styleName: string; unitsPerEm: number; ascender: number; descender: number; glyphs: Glyph[] });
    numGlyphs: number;
    getEnglishName(name: string): string | undefined;
    toArrayBuffer(): ArrayBuffer;
    charToGlyph(char: string): Glyph;
  }
  const opentype: { Path: typeof Path; Glyph: typeof Glyph; Font: typeof Font; parse(buffer: ArrayBuffer): Font };
  export default opentype;
}
