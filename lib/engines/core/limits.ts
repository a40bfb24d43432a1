/**
 * Limits checked before an engine decodes anything: the pixel count an image's header declares, a
 * PDF's size (before it is even downloaded), its signature, what its streams decode to
 * (pdf-streams.ts) and its page count. Each refusal is a task failure that says
 * what was found, what the limit is and which setting holds it.
 */
import { randomUUID } from 'node:crypto';
import { open, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EngineConfig } from '../../kernel/config.js';
import { EngineFailure } from './errors.js';
import { describeHead, IMAGE_INPUT_FORMATS, isPdfHead } from './formats.js';
import { ensurePdfDecodable, type DecodeLimits } from './pdf-streams.js';
import { findExecutable } from './probe.js';
import { runTool, type ToolPlace } from './tool.js';

const megapixels = (n: number) => `${(n / 1e6).toLocaleString('en-US', { maximumFractionDigits: 1 })} megapixels`;

export const isImageFormat = (format: string | null | undefined): boolean =>
  format !== null && format !== undefined && (IMAGE_INPUT_FORMATS as readonly string[]).includes(format);

/** Refuses a PDF over `MAX_PDF_BYTES` by its stored size, before it is downloaded. */
export function checkPdfBytes(filename: string, size: number, limits: Pick<EngineConfig, 'MAX_PDF_BYTES'>): void {
  if (size > limits.MAX_PDF_BYTES) {
    throw new EngineFailure(
      'FILE_TOO_LARGE',
      `${filename} is ${size} bytes; PDFs of up to ${limits.MAX_PDF_BYTES} bytes are processed (MAX_PDF_BYTES).`,
    );
  }
}

/** Width and height an image declares, read from its header only (nothing is decoded). */
export async function imageHeader(file: string): Promise<{ width: number; height: number; pages: number }> {
  const sharp = (await import('sharp')).default;
  try {
    const meta = await sharp(file, { limitInputPixels: false, failOn: 'none' }).metadata();
    return { width: meta.width ?? 0, height: meta.pageHeight ?? meta.height ?? 0, pages: meta.pages ?? 1 };
  } catch (err) {
    throw new EngineFailure('INVALID_INPUT', `The image could not be read: ${(err as Error).message}.`, { cause: err });
  }
}

/** Refuses an image whose header declares more than `MAX_IMAGE_PIXELS` (per frame, all frames together). */
export async function checkImagePixels(filename: string, file: string, limits: Pick<EngineConfig, 'MAX_IMAGE_PIXELS'>): Promise<void> {
  const { width, height, pages } = await imageHeader(file);
  const pixels = width * height * Math.max(1, pages);
  if (pixels > limits.MAX_IMAGE_PIXELS) {
    throw new EngineFailure(
      'IMAGE_TOO_LARGE',
      `${filename} declares ${width} × ${height} pixels${pages > 1 ? ` in ${pages} frames` : ''} (${megapixels(pixels)}); ` +
        `images of up to ${megapixels(limits.MAX_IMAGE_PIXELS)} are processed (MAX_IMAGE_PIXELS).`,
    );
  }
}

/** The first `bytes` bytes of a file. */
async function readHead(file: string, bytes: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(head, 0, bytes, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Refuses a file processed as PDF that does not start with `%PDF-` (see `isPdfHead`). */
export async function checkPdfSignature(filename: string, file: string): Promise<void> {
  const head = await readHead(file, 8);
  if (!isPdfHead(head)) {
    throw new EngineFailure('INVALID_INPUT', `${filename} is not a PDF: a PDF starts with %PDF- at its first byte, and this file starts with ${describeHead(head)}.`);
  }
}

/**
 * Whether the file has an encryption dictionary: its trailer (or cross-reference stream, which is
 * never encrypted or compressed) names `/Encrypt`. Read in chunks, the name looked for across their
 * edges. Only asked after a file could not be opened, to say why.
 */
export async function namesEncrypt(file: string): Promise<boolean> {
  const key = Buffer.from('/Encrypt');
  const handle = await open(file, 'r');
  try {
    const chunk = Buffer.alloc(1 << 20);
    let carry = Buffer.alloc(0);
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length);
      if (bytesRead === 0) return false;
      const seen = Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
      if (seen.includes(key)) return true;
      carry = seen.subarray(seen.length - key.length + 1);
    }
  } finally {
    await handle.close();
  }
}

/**
 * A PDF's page count without rendering it: qpdf reads only the page tree when it is installed;
 * otherwise pdf-lib parses the document. `password` opens an input that asks for one (the pdf/…
 * operations' `password`): given to qpdf in a file of the work folder readable by this user only,
 * never on its command line, and removed after.
 */
export async function pdfPageCount(file: string, opts: ToolPlace & { qpdf?: string; limits: DecodeLimits; password?: string }): Promise<number> {
  await checkPdfSignature('The file', file);
  const qpdf = opts.qpdf ? findExecutable(opts.qpdf) : undefined;
  if (qpdf) {
    const passwordFile = opts.password ? path.join(opts.workDir, `.password-${randomUUID()}`) : undefined;
    try {
      if (passwordFile) await writeFile(passwordFile, `${opts.password}\n`, { mode: 0o600, flag: 'wx' });
      const args = [...(passwordFile ? [`--password-file=${passwordFile}`] : []), '--show-npages', file];
      const { stdout } = await runTool(qpdf, args, { ...opts, captureStdout: true });
      const n = Number.parseInt(stdout.trim(), 10);
      if (Number.isFinite(n)) return n;
    } catch (err) {
      if (opts.signal.aborted) throw err;
      // qpdf gives up on some damaged files that pdf-lib still reads: fall through.
    } finally {
      if (passwordFile) await rm(passwordFile, { force: true });
    }
  }
  // pdf-lib expands object and cross-reference streams whole: their decoded size is checked first.
  await ensurePdfDecodable('The PDF', file, opts.limits);
  const { PDFDocument } = await import('pdf-lib');
  const { readFile } = await import('node:fs/promises');
  try {
    const doc = await PDFDocument.load(await readFile(file), { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
    return doc.getPageCount();
  } catch (err) {
    throw new EngineFailure('INVALID_INPUT', `The PDF could not be read: ${(err as Error).message}.`, { cause: err });
  }
}

/** Refuses a PDF with more than `MAX_PDF_PAGES` pages (`password`: the input's own, when it asks for one). */
export async function checkPdfPages(
  filename: string,
  file: string,
  limits: Pick<EngineConfig, 'MAX_PDF_PAGES' | 'QPDF_PATH'> & DecodeLimits,
  place: ToolPlace,
  password?: string,
): Promise<number> {
  await checkPdfSignature(filename, file);
  // Before qpdf or pdf-lib open it: what its streams decode to (decompression bombs).
  await ensurePdfDecodable(filename, file, limits);
  let pages: number;
  try {
    pages = await pdfPageCount(file, { ...place, qpdf: limits.QPDF_PATH, limits, password });
  } catch (err) {
    // An input that opens only with its password, where no system qpdf reads it (pdf-lib cannot
    // decrypt): the operation that was given the password opens it with qpdf and checks the page count
    // itself (lib/engines/pdf/qpdf-pages.ts); its decoded size was checked above.
    if (password !== undefined && err instanceof EngineFailure && err.code === 'INVALID_INPUT') return Number.NaN;
    // Neither reads it and it has an encryption dictionary: say so rather than "could not be read".
    if (err instanceof EngineFailure && err.code === 'INVALID_INPUT' && (await namesEncrypt(file))) {
      throw new EngineFailure('ENCRYPTED_INPUT', `${filename} needs a password to open; decrypt it first (pdf/decrypt), or give the password to an operation that takes one.`, { cause: err });
    }
    throw err;
  }
  if (pages > limits.MAX_PDF_PAGES) {
    throw new EngineFailure('TOO_MANY_PAGES', `${filename} has ${pages} pages; PDFs of up to ${limits.MAX_PDF_PAGES} pages are processed (MAX_PDF_PAGES).`);
  }
  return pages;
}

/** What an archive's listing declares, read before anything is extracted (archive/listing.ts). */
export interface ArchiveTotals {
  entries: number;
  expandedBytes: number;
}

/** From this many extracted bytes on, the expansion ratio counts (a few MiB of zeros is no bomb). */
const RATIO_FROM_BYTES = 16 * 2 ** 20;

/**
 * Refuses an archive whose listing declares more entries, more extracted bytes or a higher
 * expansion ratio than the settings allow (`archiveBytes`: the archive's own size). What the listing
 * declares can lie: the extraction itself is bounded by the same byte limit while it writes.
 */
export function checkArchiveTotals(
  filename: string,
  totals: ArchiveTotals,
  archiveBytes: number,
  limits: Pick<EngineConfig, 'ARCHIVE_MAX_ENTRIES' | 'ARCHIVE_MAX_EXPANDED_BYTES' | 'ARCHIVE_MAX_RATIO'>,
): void {
  if (totals.entries > limits.ARCHIVE_MAX_ENTRIES) {
    throw new EngineFailure('ARCHIVE_TOO_LARGE', `${filename} has ${totals.entries} entries; archives of up to ${limits.ARCHIVE_MAX_ENTRIES} are extracted (ARCHIVE_MAX_ENTRIES).`);
  }
  if (totals.expandedBytes > limits.ARCHIVE_MAX_EXPANDED_BYTES) {
    throw new EngineFailure(
      'ARCHIVE_TOO_LARGE',
      `${filename} declares ${totals.expandedBytes} bytes once extracted; archives of up to ${limits.ARCHIVE_MAX_EXPANDED_BYTES} are extracted (ARCHIVE_MAX_EXPANDED_BYTES).`,
    );
  }
  const ratio = totals.expandedBytes / Math.max(1, archiveBytes);
  if (totals.expandedBytes >= RATIO_FROM_BYTES && ratio > limits.ARCHIVE_MAX_RATIO) {
    throw new EngineFailure(
      'ARCHIVE_TOO_LARGE',
      `${filename} expands ${Math.round(ratio)} times (${archiveBytes} bytes to ${totals.expandedBytes}); archives expanding up to ${limits.ARCHIVE_MAX_RATIO} times are extracted (ARCHIVE_MAX_RATIO).`,
    );
  }
}
