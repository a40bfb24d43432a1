/**
 * The `optimize` profiles as Ghostscript pdfwrite arguments: what each does to images, fonts and
 * resolution (docs/using/engines.md says the same to users).
 *
 * Ghostscript passes JPEG (and JPEG 2000) images through as they are unless told otherwise, and only
 * downsamples images above 1.5 times a profile's resolution: a photo already under it came out
 * byte-identical. So every lossy profile re-encodes colour and grey images as JPEG at its quality,
 * set through the distiller parameters (QFactor), which both builds honour (the -dJPEGQ switch
 * changes nothing in pdfwrite, measured on gs 10.00 and 10.06).
 */

export const OPTIMIZE_PROFILE_NAMES = ['web', 'print', 'archive', 'mrc', 'max'] as const;

interface Profile {
  /** Ghostscript's preset it starts from: the fonts it embeds, the colour handling. */
  settings: '/screen' | '/ebook' | '/printer' | '/prepress';
  /** Colour, grey and black-and-white images above 1.5 times this (dpi) are downsampled to it; none: never. */
  dpi?: { colour: number; gray: number; mono: number };
  /** JPEG quality (1–100) every colour and grey image is re-encoded at; none: lossless only. */
  quality?: number;
}

const PROFILES: Record<(typeof OPTIMIZE_PROFILE_NAMES)[number], Profile> = {
  web: { settings: '/ebook', dpi: { colour: 150, gray: 150, mono: 300 }, quality: 65 },
  print: { settings: '/printer', dpi: { colour: 300, gray: 300, mono: 1200 }, quality: 85 },
  archive: { settings: '/prepress' },
  // Mixed raster content is not something pdfwrite does: the closest is colour and grey images
  // (a scan's background) at a low resolution and quality, black-and-white ones (its text) kept sharp.
  mrc: { settings: '/ebook', dpi: { colour: 100, gray: 150, mono: 300 }, quality: 50 },
  max: { settings: '/screen', dpi: { colour: 72, gray: 72, mono: 300 }, quality: 40 },
};

/**
 * JPEG for colour and grey images in the WebAssembly build's pdfwrite output: its automatic filter
 * choice was reported to keep photographs losslessly (Flate, 16 times larger); the system build keeps
 * its automatic choice (Flate for flat images such as screenshots), which reads the same quality.
 */
const DCT_IMAGES = ['-dAutoFilterColorImages=false', '-dColorImageFilter=/DCTEncode', '-dAutoFilterGrayImages=false', '-dGrayImageFilter=/DCTEncode'];

/** Lossless images: JPEGs kept as they are (re-encoding only loses), every other image Flate. */
const LOSSLESS_IMAGES = ['-dAutoFilterColorImages=false', '-dColorImageFilter=/FlateEncode', '-dAutoFilterGrayImages=false', '-dGrayImageFilter=/FlateEncode'];

/**
 * Ghostscript's scale of the standard JPEG tables for a quality, as libjpeg maps its quality
 * (50 is the tables as they are, 100 all ones).
 */
export function qFactor(quality: number): number {
  const q = Math.min(100, Math.max(1, Math.round(quality)));
  return Math.max(0.01, q < 50 ? 50 / q : (200 - 2 * q) / 100);
}

/** What `optimizePdf` adds for a profile: switches (before the output file) and a program to run last (before the document). */
export interface OptimizeSwitches {
  switches: string[];
  /** PostScript of ours setting the JPEG tables (-c … -f, just before the document), or none. */
  program: string[];
}

/** The arguments for `profile` (web when unknown), `quality` overriding the profile's own (and making archive lossy). */
export function optimizeSwitches(profile: string | undefined, quality: number | undefined, wasm: boolean): OptimizeSwitches {
  const p = PROFILES[(profile ?? 'web') as keyof typeof PROFILES] ?? PROFILES.web;
  const dpi = p.dpi
    ? ['-dDownsampleColorImages=true', '-dDownsampleGrayImages=true', '-dDownsampleMonoImages=true', `-dColorImageResolution=${p.dpi.colour}`, `-dGrayImageResolution=${p.dpi.gray}`, `-dMonoImageResolution=${p.dpi.mono}`]
    : ['-dDownsampleColorImages=false', '-dDownsampleGrayImages=false', '-dDownsampleMonoImages=false'];
  const q = quality ?? p.quality;
  if (q === undefined) return { switches: [`-dPDFSETTINGS=${p.settings}`, ...dpi, ...LOSSLESS_IMAGES], program: [] };
  // Halved colour detail (4:2:0) where the eye does not miss it; print quality keeps it all.
  const samples = q < 80 ? '[2 1 1 2]' : '[1 1 1 1]';
  const table = `<< /QFactor ${qFactor(q).toFixed(2)} /Blend 1 /HSamples ${samples} /VSamples ${samples} >>`;
  const dicts = ['ColorImageDict', 'ColorACSImageDict', 'GrayImageDict', 'GrayACSImageDict'].map((d) => `/${d} ${table}`).join(' ');
  return {
    switches: [`-dPDFSETTINGS=${p.settings}`, ...dpi, '-dPassThroughJPEGImages=false', '-dPassThroughJPXImages=false', ...(wasm ? DCT_IMAGES : [])],
    program: ['-c', `<< ${dicts} >> setdistillerparams`, '-f'],
  };
}
