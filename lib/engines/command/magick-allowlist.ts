/**
 * What the `command` operation lets ImageMagick (`convert`, `identify`, `magick`) and GraphicsMagick
 * (`gm`) be asked: the ALLOWLIST, as data (magick-arguments.ts reads the words as the tools read them
 * and accepts only what is named here).
 *
 * Why these: resizing, cropping, padding, rotating, colour work, effects, frames and layers, text
 * labels, identify's format strings: what CloudConvert's users run. Left out on purpose: every option
 * whose value is a file or a script (`-font`, `-profile`, `-texture`, `-tile`, `-draw` and
 * `-annotate` (MVG can name files), `-script`, `-define`, `-set` (it can rename outputs), `-limit`,
 * `-debug`, `-log`, `-monitor`) and every coder that reads other files, URLs or programs (msl, mvg,
 * text, txt, url, http, https, ftp, file, ephemeral, mpc, cache, fd, inline, ps, pdf, svg, msvg, …).
 * The policy (magick-policy.ts) enables the same coders only, so that a coder this parser let through
 * by mistake is still refused by ImageMagick itself.
 */

/** How an option's value is checked (magick-arguments.ts). */
export type MagickValue =
  | 'geometry'
  | 'number'
  | 'int'
  | 'colour'
  | 'levels'
  | 'indexes'
  | 'format'
  | 'output'
  | 'sampling'
  | 'gravity'
  | 'colorspace'
  | 'type'
  | 'filter'
  | 'compose'
  | 'layers'
  | 'alpha'
  | 'units'
  | 'interlace'
  | 'dispose'
  | 'channel'
  | 'virtual-pixel'
  | 'dither'
  | 'orient';

/** Options with the kinds of the values they take, by the word as written (`-repage` takes a geometry, `+repage` none). */
const both = (name: string, ...values: MagickValue[]): Array<[string, MagickValue[]]> => [
  [`-${name}`, values],
  [`+${name}`, []],
];
const minus = (name: string, ...values: MagickValue[]): Array<[string, MagickValue[]]> => [[`-${name}`, values]];

export const MAGICK_OPTIONS: ReadonlyMap<string, readonly MagickValue[]> = new Map<string, MagickValue[]>([
  // Size and shape
  ...minus('resize', 'geometry'),
  ...minus('thumbnail', 'geometry'),
  ...minus('scale', 'geometry'),
  ...minus('sample', 'geometry'),
  ...minus('adaptive-resize', 'geometry'),
  ...minus('crop', 'geometry'),
  ...minus('extent', 'geometry'),
  ...minus('shave', 'geometry'),
  ...minus('chop', 'geometry'),
  ...minus('border', 'geometry'),
  ...minus('frame', 'geometry'),
  ...minus('roll', 'geometry'),
  ...minus('extract', 'geometry'),
  ...minus('geometry', 'geometry'),
  ...minus('size', 'geometry'),
  ...minus('density', 'geometry'),
  ...both('page', 'geometry'),
  ...both('repage', 'geometry'),
  ...both('gravity', 'gravity'),
  ...minus('rotate', 'number'),
  ...minus('flip'),
  ...minus('flop'),
  ...minus('transpose'),
  ...minus('transverse'),
  ...minus('trim'),
  ...minus('auto-orient'),
  ...minus('orient', 'orient'),
  ...minus('deskew', 'number'),
  // Colour
  ...minus('colorspace', 'colorspace'),
  ...minus('type', 'type'),
  ...minus('depth', 'int'),
  ...minus('colors', 'int'),
  ...both('dither', 'dither'),
  ...minus('monochrome'),
  ...minus('negate'),
  ...minus('normalize'),
  ...minus('equalize'),
  ...minus('auto-level'),
  ...minus('auto-gamma'),
  ...minus('gamma', 'number'),
  ...minus('level', 'levels'),
  ...minus('contrast-stretch', 'levels'),
  ...minus('brightness-contrast', 'levels'),
  ...minus('modulate', 'levels'),
  ...minus('sepia-tone', 'number'),
  ...minus('posterize', 'int'),
  ...minus('threshold', 'number'),
  ...minus('solarize', 'number'),
  ...both('fuzz', 'number'),
  ...minus('transparent', 'colour'),
  ...both('background', 'colour'),
  ...both('fill', 'colour'),
  ...both('stroke', 'colour'),
  ...minus('strokewidth', 'number'),
  ...both('bordercolor', 'colour'),
  ...both('mattecolor', 'colour'),
  ...minus('alpha', 'alpha'),
  ...both('channel', 'channel'),
  ...minus('separate'),
  ...minus('combine'),
  ...minus('flatten'),
  // Effects
  ...minus('blur', 'geometry'),
  ...minus('gaussian-blur', 'geometry'),
  ...minus('sharpen', 'geometry'),
  ...minus('unsharp', 'geometry'),
  ...minus('despeckle'),
  ...minus('enhance'),
  ...minus('charcoal', 'number'),
  ...minus('edge', 'number'),
  ...minus('emboss', 'number'),
  ...minus('implode', 'number'),
  ...minus('swirl', 'number'),
  ...minus('vignette', 'geometry'),
  ...minus('virtual-pixel', 'virtual-pixel'),
  ...minus('filter', 'filter'),
  // Several images
  ...minus('composite'),
  ...minus('compose', 'compose'),
  ...both('append'),
  ...minus('coalesce'),
  ...minus('layers', 'layers'),
  ...both('clone', 'indexes'),
  ...both('delete', 'indexes'),
  ...both('swap', 'indexes'),
  ...minus('reverse'),
  ...minus('delay', 'geometry'),
  ...minus('loop', 'int'),
  ...minus('dispose', 'dispose'),
  // Output
  ...minus('quality', 'number'),
  ...both('strip'),
  ...minus('interlace', 'interlace'),
  ...minus('sampling-factor', 'sampling'),
  ...minus('units', 'units'),
  ...both('antialias'),
  ...minus('pointsize', 'number'),
  ...minus('write', 'output'),
  // identify
  ...minus('format', 'format'),
  ...minus('verbose'),
  ...minus('ping'),
  ...minus('quiet'),
]);

const words = (text: string): ReadonlySet<string> => new Set(text.toLowerCase().split(/\s+/).filter(Boolean));

/** Values of the enumerated kinds (compared in lower case, as both tools do). */
export const MAGICK_ENUMS: Readonly<Partial<Record<MagickValue, ReadonlySet<string>>>> = {
  gravity: words('none center east forget northeast north northwest southeast south southwest west'),
  colorspace: words('cmy cmyk gray hcl hsb hsl hwb lab lch lms log luv ohta rec601luma rec601ycbcr rec709luma rec709ycbcr rgb srgb transparent xyz ycbcr ycc yiq ypbpr yuv linear-gray lineargray'),
  type: words('bilevel grayscale grayscalealpha grayscalematte palette palettealpha palettematte paletebilevelalpha truecolor truecoloralpha truecolormatte colorseparation colorseparationalpha optimize'),
  filter: words('point box triangle hermite hanning hann hamming blackman gaussian quadratic cubic catrom mitchell lanczos lanczos2 lanczossharp lanczosradius robidoux robidouxsharp bessel sinc spline'),
  compose: words('over in out atop xor plus minus add subtract difference multiply screen overlay darken lighten copy clear src dst src-over dst-over multiply dissolve blend softlight hardlight colorize hue saturate luminize lighten-intensity darken-intensity'),
  layers: words('coalesce compare-any compare-clear compare-overlay dispose flatten merge mosaic optimize optimize-frame optimize-plus optimize-transparency remove-dups remove-zero trim-bounds'),
  alpha: words('activate associate background copy deactivate discrete disassociate extract off on opaque remove set shape transparent'),
  units: words('undefined pixelsperinch pixelspercentimeter'),
  interlace: words('none line plane partition jpeg gif png'),
  dispose: words('undefined none background previous 0 1 2 3'),
  channel: words('red green blue alpha cyan magenta yellow black gray opacity index all rgb rgba cmyk cmyka'),
  'virtual-pixel': words('background black checker-tile dither edge gray horizontal-tile horizontal-tile-edge mirror random tile transparent vertical-tile vertical-tile-edge white'),
  dither: words('none floydsteinberg riemersma'),
  orient: words('undefined topleft topright bottomright bottomleft lefttop righttop rightbottom leftbottom'),
};

/**
 * Image coders a file may be read or written as, by the prefix the API accepts (`png:`) or the
 * extension a file has, to the coder name passed to the tool. Raster formats the tools decode
 * themselves, nothing that follows references or runs a delegate.
 */
export const MAGICK_FILE_CODERS: Readonly<Record<string, string>> = {
  png: 'PNG',
  png8: 'PNG8',
  png24: 'PNG24',
  png32: 'PNG32',
  jpg: 'JPEG',
  jpeg: 'JPEG',
  gif: 'GIF',
  webp: 'WEBP',
  tif: 'TIFF',
  tiff: 'TIFF',
  bmp: 'BMP',
  ico: 'ICO',
  pnm: 'PNM',
  ppm: 'PPM',
  pgm: 'PGM',
  pbm: 'PBM',
  pam: 'PAM',
  tga: 'TGA',
  pcx: 'PCX',
};

/** Coders that make an image from their argument rather than a file (`xc:white`, `gradient:red-blue`, `label:Hello`). */
export const MAGICK_GENERATORS: ReadonlySet<string> = new Set(['xc', 'canvas', 'gradient', 'radial-gradient', 'label', 'caption', 'pattern']);

/** `pattern:` names: the tools' built-in tiles (no file is read). */
export const MAGICK_PATTERNS: ReadonlySet<string> = words(
  'bricks checkerboard circles crosshatch crosshatch30 crosshatch45 fishscales gray0 gray5 gray10 gray20 gray25 gray30 gray40 gray50 gray60 gray70 gray75 gray80 gray90 gray95 gray100 hexagons horizontal horizontal2 horizontal3 horizontalsaw hs_bdiagonal hs_cross hs_diagcross hs_fdiagonal hs_horizontal hs_vertical left30 left45 leftshingle octagons right30 right45 rightshingle smallfishscales vertical vertical2 vertical3 verticalbricks verticalleftshingle verticalrightshingle verticalsaw',
);

/** Coders the tools may use at all (the policy's allowlist, ImageMagick's names): the file coders, the generators and what they need. */
export const MAGICK_POLICY_CODERS: readonly string[] = [
  ...new Set([...Object.values(MAGICK_FILE_CODERS), 'JPG', 'TIF', 'PNG48', 'PNG64', 'PNG00', 'ICON', 'XC', 'CANVAS', 'GRADIENT', 'RADIAL-GRADIENT', 'LABEL', 'CAPTION', 'PATTERN', 'NULL']),
];

/** The tools `gm` and `magick` may be asked to be (their first word). */
export const MAGICK_TOOLS: ReadonlySet<string> = new Set(['convert', 'identify', 'composite']);
