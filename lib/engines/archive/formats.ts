/**
 * The archive formats of the `archivetool` engine (7-Zip in WebAssembly): what it reads, what it
 * writes, and how each format is named to 7-Zip. Aliases (`tgz` for `tar.gz`…) are in the one alias
 * table (core/formats.ts `normalizeFormat`); the names here are the canonical ones.
 */

/** Compressed tar forms: written as a tar, then compressed (7-Zip writes one layer per run). */
export const TAR_COMPRESSED = { 'tar.gz': 'gzip', 'tar.bz2': 'bzip2', 'tar.xz': 'xz' } as const;
/** Single-file compressors: `gz`, `bz2`, `xz` hold exactly one file. */
export const SINGLE_FILE = { gz: 'gzip', bz2: 'bzip2', xz: 'xz' } as const;

/** Single-file compressors 7-Zip reads but does not write: compress (`.Z`), LZMA-alone, and bzip2 as `bz`. */
const SINGLE_FILE_READ_ONLY = ['z', 'lzma', 'bz'] as const;
/** Tars in a container read but not written here: LZMA-alone, and a 7z holding one tar. */
const TAR_READ_ONLY = ['tar.lzma', 'tar.7z'] as const;
/** Whether an input holds one file, named after the archive (as gunzip names it). */
export const holdsOneFile = (format: string | null): boolean =>
  format !== null && (format in SINGLE_FILE || (SINGLE_FILE_READ_ONLY as readonly string[]).includes(format));

/** Archives written as they are, by their 7-Zip type (`-t`). */
const WHOLE = { zip: 'zip', '7z': '7z', tar: 'tar' } as const;

/** Formats `convert` writes (and `archive` on this engine). */
export const ARCHIVE_OUTPUT_FORMATS = ['zip', '7z', 'tar', 'tar.gz', 'tar.bz2', 'tar.xz', 'gz', 'bz2', 'xz'] as const;

/**
 * Formats read (each has a test extracting an archive made in the test): the outputs, `jar`, `war`, `apk` (zips),
 * RAR (4 and 5), WIM, cpio and ar (deb), Microsoft Cabinet, LHA (`lzh`, `lha`), ARJ, compress (`Z`)
 * LZMA-alone, xar (`pkg`) and ISO 9660 (test/support/archive-writers.ts writes them).
 */
export const ARCHIVE_INPUT_FORMATS = [...ARCHIVE_OUTPUT_FORMATS, 'jar', 'war', 'apk', 'rar', 'wim', 'cpio', 'ar', 'deb', 'cab', 'lzh', 'lha', 'arj', ...SINGLE_FILE_READ_ONLY, 'xar', 'pkg', 'iso', ...TAR_READ_ONLY] as const;

/** Files 7-Zip shows that are no entry of the archive: a xar's table of contents. Left out of what is extracted. */
const NOT_ENTRIES: Readonly<Record<string, string>> = { xar: '[TOC].xml', pkg: '[TOC].xml' };
export const isEntryOf = (format: string | null, name: string): boolean => format === null || NOT_ENTRIES[format] !== name;

export type ArchiveOutputFormat = (typeof ARCHIVE_OUTPUT_FORMATS)[number];

/** How an output format is written: a 7-Zip type, and for tar forms the compressor run after it. */
export function writePlan(format: ArchiveOutputFormat): { type: string; compress?: string; single?: boolean } {
  if (format in TAR_COMPRESSED) return { type: 'tar', compress: TAR_COMPRESSED[format as keyof typeof TAR_COMPRESSED] };
  if (format in SINGLE_FILE) return { type: SINGLE_FILE[format as keyof typeof SINGLE_FILE], single: true };
  return { type: WHOLE[format as keyof typeof WHOLE] };
}

/** Inputs that are a compressed tar: extracted twice (the compressor's one file, then the tar). */
export const isCompressedTar = (format: string | null): boolean =>
  format !== null && (format in TAR_COMPRESSED || (TAR_READ_ONLY as readonly string[]).includes(format));

export const ARCHIVE_CONTENT_TYPES: Readonly<Record<string, string>> = {
  zip: 'application/zip',
  '7z': 'application/x-7z-compressed',
  tar: 'application/x-tar',
  'tar.gz': 'application/gzip',
  'tar.bz2': 'application/x-bzip2',
  'tar.xz': 'application/x-xz',
  gz: 'application/gzip',
  bz2: 'application/x-bzip2',
  xz: 'application/x-xz',
};
