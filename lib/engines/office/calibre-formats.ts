/**
 * What the calibre engine (`ebook-convert`) reads and writes, and the options it takes: an allowlist
 * each. Only a format named here reaches its command line (as the extension of a file name this
 * engine chose), and only an option value checked here (an enum member or a number).
 *
 * Left out, each because no test could make or read it here: snb (calibre 6.13 reads its own SNB back
 * as no text), pml output (no output plugin in 6.13), chm, azw4, djvu, cbr, cb7 and cbc input (nothing
 * on this machine writes them).
 */

/** E-book formats calibre reads. azw and prc are MOBI files under Amazon's and Palm's names; fbz a zipped FictionBook. */
export const EBOOK_INPUTS = ['epub', 'mobi', 'azw', 'azw3', 'prc', 'fb2', 'fbz', 'lit', 'lrf', 'pdb', 'htmlz', 'txtz', 'tcr', 'rb', 'pml', 'cbz'] as const;

/** E-book formats calibre writes. */
export const EBOOK_OUTPUTS = ['epub', 'mobi', 'azw3', 'fb2', 'lit', 'lrf', 'pdb', 'htmlz', 'txtz', 'tcr', 'rb'] as const;

/**
 * Documents calibre reads and writes too. It converts them only to and from e-books: between two of
 * them (docx to pdf, pdf to txt) the office and PDF engines keep the layout better, and calibre never
 * stands in for them where they are missing.
 */
export const EBOOK_DOCUMENTS = ['docx', 'rtf', 'txt', 'pdf'] as const;

export const CALIBRE_INPUTS = [...EBOOK_INPUTS, ...EBOOK_DOCUMENTS] as const;
export const CALIBRE_OUTPUTS = [...EBOOK_OUTPUTS, ...EBOOK_DOCUMENTS] as const;

/** Inputs that are zip containers: listed, and refused when they are bombs, before calibre opens them. */
export const ZIPPED_INPUTS: readonly string[] = ['epub', 'docx', 'htmlz', 'txtz', 'cbz', 'fbz'];

/** calibre's output profiles (`--output-profile`), as calibre 6.13 names them. */
export const EBOOK_PROFILES = [
  'default', 'generic_eink', 'generic_eink_hd', 'generic_eink_large', 'kindle', 'kindle_dx', 'kindle_fire', 'kindle_oasis',
  'kindle_pw', 'kindle_pw3', 'kindle_scribe', 'kindle_voyage', 'kobo', 'ipad', 'ipad3', 'nook', 'nook_color', 'nook_hd_plus',
  'pocketbook_900', 'pocketbook_pro_912', 'sony', 'sony300', 'sony900', 'tablet',
] as const;

/** The options the engine honours (convert's schema validates them: lib/file-api/operations/convert/operation.ts). */
export const CALIBRE_OPTIONS = ['output_profile', 'base_font_size'] as const;

export interface EbookOptions {
  output_profile?: (typeof EBOOK_PROFILES)[number] | null;
  base_font_size?: number | null;
}

/** The command-line options for validated values (each value an enum member or a bounded number, checked again here). */
export function ebookOptionArgs(options: EbookOptions): string[] {
  const args: string[] = [];
  const profile = options.output_profile;
  if (profile && (EBOOK_PROFILES as readonly string[]).includes(profile)) args.push(`--output-profile=${profile}`);
  const size = options.base_font_size;
  if (typeof size === 'number' && Number.isFinite(size) && size >= 4 && size <= 72) args.push(`--base-font-size=${size}`);
  return args;
}
