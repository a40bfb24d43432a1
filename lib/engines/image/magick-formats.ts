/**
 * The formats of the imagemagick engine (ImageMagick in WebAssembly, magick.ts), by the name the file
 * API gives them (the extension), and the ImageMagick coder that reads or writes each. The engine
 * always names its coder: ImageMagick never guesses a file's format from its bytes here, so a file
 * named .bmp is read by the BMP coder or not at all (no MSL, MVG, SVG or text coder behind it).
 *
 * Each format listed has a test converting a real file (test/integration/engines-magick.test.ts);
 * outputs are checked there by readers other than ImageMagick.
 */
import { CAMERA_FORMATS } from './camera-formats.js';

/** Formats sharp reads as well (sharp stays first for the pairs it makes). */
const SHARP_READS = ['jpg', 'png', 'webp', 'avif', 'tiff', 'gif'] as const;

/** Raster formats only ImageMagick reads here. */
export const MAGICK_ONLY_INPUTS = [
  'bmp', 'ico', 'cur', 'psd', 'psb', 'tga', 'ppm', 'pgm', 'pbm', 'pnm', 'pam', 'pcx', 'jp2', 'j2k', 'jxl', 'exr', 'hdr',
  'dds', 'qoi', 'sgi', 'sun', 'ras', 'xbm', 'xpm', 'wbmp', 'dpx', 'miff',
  'jng', 'dcx', 'ptif', 'pfm', 'phm', 'vips', 'viff', 'xv', 'otb', 'palm', 'cin', 'ff', 'vicar', 'mtv', 'wpg', 'pgx',
] as const;

/**
 * Inputs without a magic number sniffFormat knows (core/formats.ts): read by their extension only.
 * Left out of the list, on purpose: MNG and PICT (their readers walk nested chunks and opcodes whose
 * sizes no header check here bounds: seconds for a 3 KB file), SIXEL, CALS, RGF and FITS (magick-wasm
 * does not read back what it writes), XCF (nothing here writes one to test with).
 */
export const MAGICK_UNSNIFFED: readonly string[] = ['jng', 'dcx', 'ptif', 'pfm', 'phm', 'vips', 'viff', 'xv', 'otb', 'palm', 'cin', 'ff', 'vicar', 'mtv', 'wpg', 'pgx'];

export const MAGICK_INPUT_FORMATS: readonly string[] = [...SHARP_READS, ...MAGICK_ONLY_INPUTS, ...CAMERA_FORMATS];

export const MAGICK_OUTPUT_FORMATS = [
  ...SHARP_READS, 'bmp', 'ico', 'pdf', 'eps', 'ps', 'tga', 'psd', 'ppm', 'pgm', 'pbm', 'pam', 'pcx', 'jp2', 'qoi', 'exr',
  'dds', 'sgi', 'sun', 'xbm', 'xpm', 'wbmp', 'dpx',
] as const;

/** The coder of a format where it is not the format's name in capitals. */
const CODERS: Readonly<Record<string, string>> = { jpg: 'JPEG', ras: 'SUN', eps: 'EPS', ps: 'PS', ff: 'FARBFELD' };

/** The ImageMagick coder that reads or writes `format`. */
export const coderOf = (format: string): string => CODERS[format] ?? format.toUpperCase();

/** Outputs that hold several images in one file: the frames selected go into one output. */
export const MULTI_FRAME_OUTPUTS: ReadonlySet<string> = new Set(['gif', 'tiff', 'pdf', 'ps', 'ico', 'psd', 'miff']);

/** Inputs whose frames are layers of one picture: without `pages`, that picture (PSD's composite, the layers of XCF flattened). */
export const LAYERED_INPUTS: ReadonlySet<string> = new Set(['psd', 'psb']);

/** Inputs holding one picture at several sizes: without `pages`, the largest. */
export const ICON_INPUTS: ReadonlySet<string> = new Set(['ico', 'cur']);

/** Outputs without transparency: transparent areas become white, as sharp makes them. */
export const OPAQUE_OUTPUTS: ReadonlySet<string> = new Set(['jpg', 'ppm', 'pgm', 'pbm', 'pcx', 'sgi', 'sun', 'xbm', 'wbmp', 'dpx', 'eps', 'ps', 'pdf']);

/** Outputs of at most 256 × 256 pixels: a larger image is made to fit. */
export const ICON_SIZE = 256;

/** Outputs laid out on pages: their size in points is the pixels at `density` (72 dpi unless given). */
export const PAGE_OUTPUTS: ReadonlySet<string> = new Set(['pdf', 'eps', 'ps']);

/** Lossy outputs whose encoder takes `quality`. */
export const QUALITY_OUTPUTS: ReadonlySet<string> = new Set(['jpg', 'webp', 'avif', 'jp2', 'pdf']);
