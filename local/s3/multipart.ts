/**
 * Lenient multipart/form-data parsing for the local S3 front: SDK-style parts (`content-disposition:form-data;
 * name="file";filename=my report.pdf`, lowercase, no spaces, unquoted) are read as S3 reads them.
 */
import { malformedPost } from './errors.js';

/** Size cap of one part's header block. */
const MAX_PART_HEADER_BYTES = 16 * 1024;

export interface ContentDisposition {
  type: string;
  name?: string;
  filename?: string;
}

function decodeExtValue(value: string): string | undefined {
  // RFC 5987: charset'language'percent-encoded
  const m = /^([^']*)'[^']*'(.*)$/.exec(value.trim().replace(/^"(.*)"$/, '$1'));
  if (!m) return undefined;
  const bytes: number[] = [];
  const encoded = m[2] ?? '';
  for (let i = 0; i < encoded.length; i++) {
    const c = encoded[i]!;
    if (c === '%' && /^[0-9a-fA-F]{2}$/.test(encoded.slice(i + 1, i + 3))) {
      bytes.push(parseInt(encoded.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(c, 'utf8'));
    }
  }
  const charset = (m[1] ?? '').toLowerCase();
  const buf = Buffer.from(bytes);
  return charset === 'iso-8859-1' || charset === 'latin1' ? buf.toString('latin1') : buf.toString('utf8');
}

/**
 * Parses a part's Content-Disposition leniently: any case, optional spaces, quoted or unquoted values.
 * An unquoted `filename` runs to the end of the line (it may contain spaces and `;`), unless a further
 * `; name=` or `; filename*=` parameter follows it; `filename*=UTF-8''…` (RFC 5987) wins over `filename`.
 * Inside quotes, `\"` and `\\` are escapes and a quote only closes the value when `;` or the end of the
 * line follows it (other backslashes stay, so Windows paths survive).
 */
export function parseContentDisposition(header: string): ContentDisposition {
  const semi = header.indexOf(';');
  const type = (semi < 0 ? header : header.slice(0, semi)).trim().toLowerCase();
  const params = new Map<string, string>();
  let i = semi < 0 ? header.length : semi + 1;
  while (i < header.length) {
    while (i < header.length && /[\s;]/.test(header[i]!)) i++;
    if (i >= header.length) break;
    const eq = header.indexOf('=', i);
    const nextSemi = header.indexOf(';', i);
    if (eq < 0 || (nextSemi >= 0 && nextSemi < eq)) {
      // a parameter without a value: skip it
      i = nextSemi < 0 ? header.length : nextSemi + 1;
      continue;
    }
    const name = header.slice(i, eq).trim().toLowerCase();
    i = eq + 1;
    while (i < header.length && (header[i] === ' ' || header[i] === '\t')) i++;
    let value: string;
    if (header[i] === '"') {
      let j = i + 1;
      let out = '';
      let closed = false;
      while (j < header.length) {
        const c = header[j]!;
        if (c === '\\' && (header[j + 1] === '"' || header[j + 1] === '\\')) {
          out += header[j + 1];
          j += 2;
        } else if (c === '"' && /^\s*(;|$)/.test(header.slice(j + 1))) {
          closed = true;
          j++;
          break;
        } else {
          out += c;
          j++;
        }
      }
      value = closed ? out : out.replace(/"\s*$/, '');
      const after = header.indexOf(';', j);
      i = after < 0 ? header.length : after + 1;
    } else if (name === 'filename') {
      const rest = header.slice(i);
      const cut = /;\s*(?:name|filename\*)\s*=/i.exec(rest);
      value = (cut ? rest.slice(0, cut.index) : rest).trimEnd();
      i = cut ? i + cut.index + 1 : header.length;
    } else {
      const end = header.indexOf(';', i);
      value = (end < 0 ? header.slice(i) : header.slice(i, end)).trim();
      i = end < 0 ? header.length : end + 1;
    }
    if (name === 'filename*') {
      const decoded = decodeExtValue(value);
      if (decoded !== undefined && !params.has(name)) params.set(name, decoded);
    } else if (!params.has(name)) {
      params.set(name, value);
    }
  }
  return { type, name: params.get('name'), filename: params.get('filename*') ?? params.get('filename') };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
/** Header bytes as UTF-8 (what browsers and the SDKs send), or Latin-1 when they are not valid UTF-8. */
function decodeHeaderBytes(raw: Buffer): string {
  try {
    return utf8.decode(raw);
  } catch {
    return raw.toString('latin1');
  }
}

/** A part's headers: names lowercased, values trimmed, folded lines joined; CRLF or bare LF. */
export function parsePartHeaders(raw: Buffer): Map<string, string> {
  const headers = new Map<string, string>();
  const lines: string[] = [];
  for (const line of decodeHeaderBytes(raw).split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && lines.length) lines[lines.length - 1] += ' ' + line.trim();
    else if (line.trim()) lines.push(line);
  }
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return headers;
}

export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^\s*multipart\/form-data\s*(;|$)/i.test(contentType)) return undefined;
  const m = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  return boundary && boundary.length <= 200 ? boundary : undefined;
}

export type MultipartEvent = { kind: 'headers'; raw: Buffer; bodyStart: number } | { kind: 'data'; data: Buffer } | { kind: 'partEnd' } | { kind: 'end' };

const CRLF = Buffer.from('\r\n');
const CRLFCRLF = Buffer.from('\r\n\r\n');

/**
 * An incremental multipart/form-data scanner: push chunks, get events. Part bodies are handed on as they
 * arrive; only the last `delimiter.length - 1` bytes are held back (they may begin a delimiter).
 */
export class MultipartScanner {
  private state: 'preamble' | 'afterDelimiter' | 'headers' | 'body' | 'epilogue' = 'preamble';
  private readonly delimiter: Buffer;
  /** The leading CRLF lets a body that starts with the delimiter (no preamble) match `\r\n--boundary`. */
  private buf: Buffer = CRLF;
  /** Bytes consumed so far (offsets into the request body, the leading CRLF excluded). */
  private consumed = -2;

  constructor(boundary: string) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  }

  push(chunk: Buffer): MultipartEvent[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const events: MultipartEvent[] = [];
    for (;;) {
      if (this.state === 'epilogue') {
        this.take(this.buf.length);
        return events;
      }
      if (this.state === 'preamble' || this.state === 'body') {
        const idx = this.buf.indexOf(this.delimiter);
        if (idx < 0) {
          const safe = this.buf.length - (this.delimiter.length - 1);
          if (safe > 0) {
            const data = this.take(safe);
            if (this.state === 'body') events.push({ kind: 'data', data });
          }
          return events;
        }
        const data = this.take(idx);
        if (this.state === 'body') {
          if (data.length) events.push({ kind: 'data', data });
          events.push({ kind: 'partEnd' });
        }
        this.take(this.delimiter.length);
        this.state = 'afterDelimiter';
        continue;
      }
      if (this.state === 'afterDelimiter') {
        if (this.buf.length < 2) return events;
        if (this.buf[0] === 0x2d && this.buf[1] === 0x2d) {
          this.state = 'epilogue';
          events.push({ kind: 'end' });
          continue;
        }
        const lf = this.buf.indexOf(0x0a);
        if (lf < 0) {
          if (this.buf.length > 256) throw malformedPost();
          return events;
        }
        // transport padding (spaces/tabs) may precede the CRLF
        if (!/^[ \t]*\r?$/.test(this.buf.subarray(0, lf).toString('latin1'))) throw malformedPost();
        this.take(lf + 1);
        this.state = 'headers';
        continue;
      }
      // headers
      if (this.buf.length >= 2 && this.buf[0] === 0x0d && this.buf[1] === 0x0a) {
        this.take(2);
        events.push({ kind: 'headers', raw: Buffer.alloc(0), bodyStart: this.consumed });
        this.state = 'body';
        continue;
      }
      const end = this.buf.indexOf(CRLFCRLF);
      if (end < 0) {
        if (this.buf.length > MAX_PART_HEADER_BYTES) throw malformedPost();
        return events;
      }
      const raw = Buffer.from(this.take(end));
      this.take(CRLFCRLF.length);
      events.push({ kind: 'headers', raw, bodyStart: this.consumed });
      this.state = 'body';
    }
  }

  /** The body has ended: it is well-formed when the closing delimiter was seen. */
  end(): MultipartEvent[] {
    if (this.state === 'epilogue') return [];
    // lenient: a final delimiter without the closing `--`
    if (this.state === 'afterDelimiter' && !this.buf.toString('latin1').trim()) {
      this.state = 'epilogue';
      return [{ kind: 'end' }];
    }
    throw malformedPost();
  }

  private take(n: number): Buffer {
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    this.consumed += n;
    return out;
  }
}
