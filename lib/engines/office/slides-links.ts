/**
 * Impress and Draw's formats where only the platform confines LibreOffice (office-links.ts says why
 * this matters): the zip packages and OLE2 files among them go through office-links.ts's rules like
 * the others; the formats here are checked to be what they say, or refused.
 * - EMF, WMF and PDF hold no reference LibreOffice follows: each is checked by its signature only (a
 *   file named .emf that is really flat XML or HTML would be read as that, links and all);
 * - SVG and flat ODF (fodp, fodg) are XML whose links (xlink:href, CSS url(), styles, entities) cannot
 *   be stripped with confidence: they are refused there, and converted only under full confinement.
 */
import { EngineFailure } from '../core/errors.js';

/** Formats only full confinement converts: their links cannot be stripped. */
const FLAT_XML = new Set(['svg', 'fodp', 'fodg']);

const startsWith = (bytes: Buffer, signature: number[], at = 0) => signature.every((b, i) => bytes[at + i] === b);

const SIGNATURES: Record<string, (bytes: Buffer) => boolean> = {
  // EMR_HEADER (record type 1) whose signature field, at byte 40, is " EMF".
  emf: (b) => startsWith(b, [0x01, 0x00, 0x00, 0x00]) && b.subarray(40, 44).toString('latin1') === ' EMF',
  // The placeable header's key, or a bare header: type 1 (memory) or 2 (disk), header size 9 words.
  wmf: (b) => startsWith(b, [0xd7, 0xcd, 0xc6, 0x9a]) || startsWith(b, [0x01, 0x00, 0x09, 0x00]) || startsWith(b, [0x02, 0x00, 0x09, 0x00]),
  pdf: (b) => b.subarray(0, 5).toString('latin1') === '%PDF-',
};

/**
 * For the formats of this module: checks `bytes` (throws INVALID_INPUT when they are another format or
 * cannot be made safe) and says `true`; `false` for every other format (office-links.ts's rules).
 */
export function checkedDrawing(bytes: Buffer, format: string, filename: string): boolean {
  if (FLAT_XML.has(format)) {
    throw new EngineFailure('INVALID_INPUT', `${filename}: ${format} files are converted only where LibreOffice runs fully confined (their links cannot be removed here); convert it on an installation with bubblewrap.`);
  }
  const matches = SIGNATURES[format];
  if (!matches) return false;
  if (!matches(bytes)) throw new EngineFailure('INVALID_INPUT', `${filename} is not a ${format} file (its content is another format, which the office engine does not read here).`);
  return true;
}
