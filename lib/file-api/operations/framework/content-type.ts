/**
 * The content type of a task file: the one rule, applied once, when the file is stored (every
 * step's `save`, the content of import/raw and import/base64, an upload taken from its form), and
 * recorded as the stored object's type; a download sends it.
 *
 * - The name's extension first (`photo.png`: image/png), as the real service types its export URLs.
 * - A name that says nothing (`photo`, `scan.bin`): the content's signature, from its first bytes
 *   (lib/engines/formats.ts `sniffFormat`, the rule the engines read input formats by): PNG, JPEG,
 *   GIF, WebP, TIFF, AVIF, PDF, MP4/MOV/M4A (ftyp), WebM/Matroska, ZIP, MP3, Ogg, WAV, FLAC, and HTML
 *   or SVG only where the text opens with their tag. Other text is not guessed at: a wrong guess
 *   could make harmless bytes active, and a right one gains little.
 * - Else what the source declared (a fetched URL's `Content-Type`, an engine's output type), when it
 *   says something; else none (storage answers `binary/octet-stream`).
 *
 * Active content (HTML, SVG, XML: what a browser runs scripts in) is never served inline, whatever
 * the export asked: storage answers cannot carry `X-Content-Type-Options`, and an `attachment` is
 * never rendered (`<img src>` still shows an SVG, where scripts do not run).
 */
import { Readable } from 'node:stream';
import { SNIFF_BYTES, sniffFormat } from '../../../engines/core/formats.js';
import { isSpecificType, typeOfExtension } from '../../../adapters/user-storage/mime.js';

export { isSpecificType, SNIFF_BYTES, typeOfExtension as typeOfName };

/** The type the content's first bytes show, if they show one. */
export function typeOfContent(head: Buffer): string | undefined {
  const format = sniffFormat(head);
  return format ? typeOfExtension(`.${format}`) : undefined;
}

/** The type a file is stored with. `head`: its first bytes (only needed when the name says nothing). */
export function fileType(filename: string, head?: Buffer, declared?: string): string | undefined {
  return typeOfExtension(filename) ?? (head && typeOfContent(head)) ?? (isSpecificType(declared) ? declared : undefined);
}

/**
 * A stream on its way into storage, and the type it is stored with: its first bytes are looked at
 * only when the name says nothing (the stream handed back holds them again).
 */
export async function typedStream(filename: string, body: Readable, declared?: string): Promise<{ body: Readable; contentType?: string }> {
  const byName = typeOfExtension(filename);
  if (byName) return { body, contentType: byName };
  const peeked = await peekHead(body);
  return { body: peeked.body, contentType: fileType(filename, peeked.head, declared) };
}

/** Types a browser runs scripts in when it renders them. */
export function isActiveType(type: string): boolean {
  const t = type.toLowerCase().split(';')[0]!.trim();
  return t === 'text/html' || t === 'application/xhtml+xml' || t === 'image/svg+xml' || t === 'text/xsl' || /^(text|application)\/xml$/.test(t) || t.endsWith('+xml');
}

/** How a download is served: its type (the name's, else the stored one), and inline only where that is safe. */
export function servedAs(filename: string, stored: string | undefined, inline: boolean): { contentType?: string; inline: boolean } {
  const contentType = typeOfExtension(filename) ?? (isSpecificType(stored) ? stored : undefined);
  return { ...(contentType ? { contentType } : {}), inline: inline && !(contentType && isActiveType(contentType)) };
}

/**
 * The first `bytes` of a stream, and the whole stream again to read on (no byte read twice, nothing
 * buffered beyond the first chunks; back-pressure and errors pass through).
 */
export async function peekHead(body: Readable, bytes = SNIFF_BYTES): Promise<{ head: Buffer; body: Readable }> {
  const source = body[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  const chunks: Buffer[] = [];
  let length = 0;
  while (length < bytes) {
    const next = await source.next();
    if (next.done) break;
    const chunk = Buffer.from(next.value);
    chunks.push(chunk);
    length += chunk.length;
  }
  const head = Buffer.concat(chunks);
  async function* whole() {
    try {
      if (head.length) yield head;
      for (let next = await source.next(); !next.done; next = await source.next()) yield next.value;
    } finally {
      await source.return?.();
    }
  }
  return { head: head.subarray(0, bytes), body: Readable.from(whole(), { objectMode: false }) };
}
