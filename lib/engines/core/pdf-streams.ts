/**
 * The decoded size of a PDF's streams, measured before any parser expands them. pdf-lib decodes every
 * object stream and cross-reference stream whole when it opens a file, qpdf and Ghostscript decode
 * content and images, so a 300 KB file whose object stream inflates to 300 MB is a memory bomb.
 *
 * The check reads the file once, sequentially and in chunks, the way pdf-lib parses it: each
 * `stream` keyword after a dictionary, its data up to /Length (when `endstream` follows there) or to
 * the matching `endstream`. Each stream's filters (FlateDecode, LZWDecode, RunLengthDecode,
 * ASCIIHexDecode, ASCII85Decode, in any chain; abbreviations too) run as counting decoders
 * (pdf-filters.ts) that hold no decoded data. An indirect or unreadable /Filter is sniffed: data that
 * starts like a zlib stream is inflated, and so on a few levels down. Image codecs are not decoded.
 *
 * Limits (settings, see config.ts):
 * - `MAX_PDF_DECODED_BYTES`: all streams, every filter stage, together;
 * - `MAX_PDF_DECODED_RATIO`: streams other than images (what parsers expand whole: object,
 *   cross-reference, content streams…) together, relative to the file's size, never less than 16 MiB.
 * Past either, the file is refused as soon as the count passes it (FILE_TOO_LARGE).
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { EngineConfig } from '../../kernel/config.js';
import { EngineFailure } from './errors.js';
import { decodedFilter, decodingChain, type FilterSpec, type Meter } from './pdf-filters.js';

export type DecodeLimits = Pick<EngineConfig, 'MAX_PDF_DECODED_BYTES' | 'MAX_PDF_DECODED_RATIO'>;

/** The ratio limit never goes below this, so that small files with ordinary compression pass. */
export const RATIO_FLOOR_BYTES = 16 * 2 ** 20;

const CHUNK = 1 << 20;
/** How far before `stream` its dictionary may start. */
const LOOKBACK = 1 << 16;
/**
 * The bytes the look-back at dictionaries may cover, per byte of the file and at least: a `stream`
 * keyword costs up to 16 tries over LOOKBACK bytes, so a file of keywords with nothing readable before
 * them would cost LOOKBACK times its size. What is counted is what the look-back reads: the searches
 * back (to their hit, or over the whole window when there is none) and the objects parsed from their
 * hit to the keyword. An ordinary file looks back over little more than its stream dictionaries (a
 * 1,000-page pdf-lib file: a few dozen bytes per stream); one past this is refused.
 */
const LOOKBACK_WORK_PER_BYTE = 16;
const LOOKBACK_WORK_FLOOR = 16 * 2 ** 20;

class LimitPassed extends Error {}

/** Sequential reads of a file by absolute offset, through one buffer. */
class Reader {
  #buf = Buffer.alloc(0);
  #start = 0;

  constructor(
    readonly handle: FileHandle,
    readonly size: number,
  ) {}

  /** The bytes [from, to) (to ≤ from + CHUNK), read again only when they are not in the buffer. */
  async slice(from: number, to: number): Promise<Buffer> {
    to = Math.min(to, this.size);
    from = Math.max(0, Math.min(from, to));
    if (from < this.#start || to > this.#start + this.#buf.length) {
      // Read ahead, and keep a little before: the scan looks back at dictionaries.
      const begin = Math.max(0, from - LOOKBACK);
      const length = Math.max(to - begin, Math.min(CHUNK + LOOKBACK, this.size - begin));
      const buf = Buffer.alloc(length);
      const { bytesRead } = await this.handle.read(buf, 0, length, begin);
      this.#buf = buf.subarray(0, bytesRead);
      this.#start = begin;
    }
    return this.#buf.subarray(from - this.#start, to - this.#start);
  }

  /** The first occurrence of `needle` at or after `from`, or -1. */
  async find(needle: Buffer, from: number): Promise<number> {
    for (let at = from; at < this.size; at += CHUNK - needle.length) {
      const window = await this.slice(at, at + CHUNK);
      const i = window.indexOf(needle);
      if (i >= 0) return at + i;
      if (at + window.length >= this.size) break;
    }
    return -1;
  }
}

// A few PDF objects, enough to read a stream's dictionary (ISO 32000-1 §7.3).
type PdfValue =
  | { kind: 'dict'; entries: Map<string, PdfValue> }
  | { kind: 'array'; items: PdfValue[] }
  | { kind: 'name'; name: string }
  | { kind: 'number'; value: number }
  | { kind: 'ref' }
  | { kind: 'other' };

const WHITE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITERS = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);
const isRegular = (c: number | undefined) => c !== undefined && !WHITE.has(c) && !DELIMITERS.has(c);

class NotADictionary extends Error {}

/** A small recursive-descent reader of PDF objects over a buffer (depth and size bounded). */
class ObjectReader {
  pos: number;
  constructor(
    readonly buf: Buffer,
    start: number,
  ) {
    this.pos = start;
  }

  skipSpace(): void {
    const b = this.buf;
    while (this.pos < b.length) {
      const c = b[this.pos]!;
      if (WHITE.has(c)) this.pos++;
      else if (c === 0x25) while (this.pos < b.length && b[this.pos] !== 0x0a && b[this.pos] !== 0x0d) this.pos++;
      else break;
    }
  }

  #fail(): never {
    throw new NotADictionary();
  }

  #token(): string {
    const start = this.pos;
    while (isRegular(this.buf[this.pos])) this.pos++;
    return this.buf.toString('latin1', start, this.pos);
  }

  value(depth = 0): PdfValue {
    if (depth > 1000) this.#fail();
    this.skipSpace();
    const b = this.buf;
    const c = b[this.pos];
    if (c === undefined) this.#fail();
    if (c === 0x3c && b[this.pos + 1] === 0x3c) return this.#dict(depth);
    if (c === 0x3c) {
      const end = b.indexOf(0x3e, this.pos);
      if (end < 0) this.#fail();
      this.pos = end + 1;
      return { kind: 'other' };
    }
    if (c === 0x28) return this.#string();
    if (c === 0x2f) {
      this.pos++;
      const raw = this.#token();
      return { kind: 'name', name: raw.replace(/#([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))) };
    }
    if (c === 0x5b) {
      this.pos++;
      const items: PdfValue[] = [];
      for (;;) {
        this.skipSpace();
        if (b[this.pos] === 0x5d) {
          this.pos++;
          return { kind: 'array', items };
        }
        
        items.push(this.value(depth + 1));
      }
    }
    const token = this.#token();
    if (!token) this.#fail();
    // (`\d+(?:\.\d*)?`, not `\d+\.?\d*`: the latter backtracks quadratically on a long run of digits that is not a number.)
    if (/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/.test(token)) {
      // `n g R` is a reference.
      const save = this.pos;
      this.skipSpace();
      const gen = this.#token();
      this.skipSpace();
      if (/^\d+$/.test(token) && /^\d+$/.test(gen) && this.buf[this.pos] === 0x52 && !isRegular(this.buf[this.pos + 1])) {
        this.pos++;
        return { kind: 'ref' };
      }
      this.pos = save;
      return { kind: 'number', value: Number(token) };
    }
    return { kind: 'other' };
  }

  #dict(depth: number): PdfValue {
    this.pos += 2;
    const entries = new Map<string, PdfValue>();
    for (;;) {
      this.skipSpace();
      if (this.buf[this.pos] === 0x3e && this.buf[this.pos + 1] === 0x3e) {
        this.pos += 2;
        return { kind: 'dict', entries };
      }
      const key = this.value(depth + 1);
      if (key.kind !== 'name') this.#fail();
      entries.set(key.name, this.value(depth + 1));
    }
  }

  #string(): PdfValue {
    const b = this.buf;
    let nesting = 0;
    for (; this.pos < b.length; this.pos++) {
      const c = b[this.pos];
      if (c === 0x5c) this.pos++;
      else if (c === 0x28) nesting++;
      else if (c === 0x29 && --nesting === 0) {
        this.pos++;
        return { kind: 'other' };
      }
    }
    this.#fail();
  }
}

/** What the scan needs from a stream's dictionary. */
interface StreamInfo {
  /** The filters to decode, first first; `undefined` when they cannot be read (sniffed instead). */
  filters: FilterSpec[] | undefined;
  length: number | undefined;
  image: boolean;
}

const OBJ = Buffer.from('obj');

/**
 * The dictionary of the stream whose `stream` keyword is at `keyword` in `buf`: the object after an
 * `n g obj` before it, when only white space and comments lie between its end and the keyword.
 * `undefined` when there is none this reader understands.
 */
function dictionaryBefore(buf: Buffer, keyword: number, work: { bytes: number }): Map<string, PdfValue> | undefined {
  let at = keyword;
  for (let tries = 0; tries < 16; tries++) {
    const searchedFrom = at;
    at = buf.lastIndexOf(OBJ, at - 1);
    if (at < 0) {
      // The search went back over everything before it.
      work.bytes += searchedFrom;
      return undefined;
    }
    // What this try may read: from its `obj` to the keyword and a little after.
    work.bytes += buf.length - at;
    if (isRegular(buf[at - 1]) || isRegular(buf[at + 3])) continue;
    try {
      const reader = new ObjectReader(buf, at + 3);
      const value = reader.value();
      reader.skipSpace();
      if (value.kind === 'dict' && reader.pos === keyword) return value.entries;
    } catch (err) {
      if (!(err instanceof NotADictionary) && !(err instanceof RangeError)) throw err;
    }
  }
  return undefined;
}

/** Whether a `>>` comes before the keyword with only white space and comments between (a dictionary's end). */
function afterDictionaryEnd(buf: Buffer, keyword: number, work: { bytes: number }): boolean {
  const end = buf.lastIndexOf('>>', keyword - 1, 'latin1');
  if (end < 0) {
    work.bytes += keyword;
    return false;
  }
  work.bytes += keyword - end;
  const reader = new ObjectReader(buf, end + 2);
  reader.skipSpace();
  return reader.pos === keyword;
}

function streamInfo(dict: Map<string, PdfValue> | undefined): StreamInfo {
  if (!dict) return { filters: undefined, length: undefined, image: false };
  const type = dict.get('Type');
  const subtype = dict.get('Subtype');
  const objects = type?.kind === 'name' && (type.name === 'ObjStm' || type.name === 'XRef');
  const image = !objects && subtype?.kind === 'name' && subtype.name === 'Image';
  const lengthValue = dict.get('Length');
  const length = lengthValue?.kind === 'number' && Number.isInteger(lengthValue.value) && lengthValue.value >= 0 ? lengthValue.value : undefined;
  const filter = dict.get('Filter');
  const parms = dict.get('DecodeParms') ?? dict.get('DP');
  const names = filter === undefined ? [] : filter.kind === 'name' ? [filter] : filter.kind === 'array' ? filter.items : undefined;
  if (!names || names.some((n) => n.kind !== 'name')) return { filters: undefined, length, image };
  const filters: FilterSpec[] = [];
  for (const [i, n] of names.entries()) {
    const name = decodedFilter((n as { name: string }).name);
    // An image codec or another filter this check does not decode: the chain's output stops there.
    if (!name) break;
    const p = parms?.kind === 'array' ? parms.items[i] : parms;
    const early = p?.kind === 'dict' ? p.entries.get('EarlyChange') : undefined;
    filters.push({ name, ...(early?.kind === 'number' ? { earlyChange: early.value } : {}) });
  }
  return { filters, length, image };
}

const STREAM = Buffer.from('stream');

/**
 * Where a stream's data ends, as pdf-lib finds it: /Length when `endstream` follows it, otherwise the
 * `endstream` that closes it (counting nested `stream`/`endstream` pairs); the file's end if none does.
 */
async function dataEnd(reader: Reader, start: number, length: number | undefined): Promise<number> {
  if (length !== undefined && start + length <= reader.size) {
    const after = await reader.slice(start + length, start + length + 64);
    const text = after.toString('latin1').replace(/^[\0\t\n\f\r ]+/, '');
    if (text.startsWith('endstream')) return start + length;
  }
  let nesting = 1;
  for (let at = start; ; ) {
    const hit = await reader.find(STREAM, at);
    if (hit < 0) return reader.size;
    const before = hit >= 3 ? (await reader.slice(hit - 3, hit)).toString('latin1') : '';
    if (before === 'end') {
      if (--nesting === 0) return hit - 3;
    } else nesting++;
    at = hit + STREAM.length;
  }
}

export interface DecodedSize {
  /** Every stream, every filter stage. */
  total: number;
  /** Streams other than images. */
  parsed: number;
  streams: number;
}

/**
 * Measures what a PDF's streams decode to, refusing it (FILE_TOO_LARGE, naming the setting) as soon
 * as a limit is passed; nothing decoded is kept.
 */
export async function checkPdfDecodedSize(filename: string, file: string, limits: DecodeLimits): Promise<DecodedSize> {
  const handle = await open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    const reader = new Reader(handle, size);
    const parsedLimit = Math.min(limits.MAX_PDF_DECODED_BYTES, Math.max(RATIO_FLOOR_BYTES, limits.MAX_PDF_DECODED_RATIO * size));
    const totals: DecodedSize = { total: 0, parsed: 0, streams: 0 };
    const lookback = { bytes: 0 };
    const lookbackLimit = LOOKBACK_WORK_FLOOR + LOOKBACK_WORK_PER_BYTE * size;
    const refuse = (which: 'total' | 'parsed'): never => {
      throw new EngineFailure(
        'FILE_TOO_LARGE',
        which === 'total'
          ? `${filename}'s compressed streams decode to more than ${limits.MAX_PDF_DECODED_BYTES} bytes; ` +
              `PDFs whose streams decode to at most that are processed (MAX_PDF_DECODED_BYTES).`
          : `${filename}'s compressed streams other than images decode to more than ${parsedLimit} bytes, more than ` +
              `${limits.MAX_PDF_DECODED_RATIO} times its size of ${size} bytes; PDFs whose streams decode to at most ` +
              `${limits.MAX_PDF_DECODED_RATIO} times their size (and at least 16 MiB) are processed (MAX_PDF_DECODED_RATIO, MAX_PDF_DECODED_BYTES).`,
      );
    };

    let at = 0;
    for (;;) {
      const hit = await reader.find(STREAM, at);
      if (hit < 0) break;
      at = hit + STREAM.length;
      // `endstream`, or `stream` inside a longer word, is not a stream's start.
      const pre = hit > 0 ? (await reader.slice(hit - 1, hit))[0] : undefined;
      if (isRegular(pre)) continue;
      // A dictionary before it, with only white space and comments between: pdf-lib reads a stream there.
      // (The bytes after the keyword are kept: a comment before it must not seem to end at it.)
      // (A view of the reader's buffer, which a later read replaces but never changes.)
      const lookFrom = Math.max(0, hit - LOOKBACK);
      const around = await reader.slice(lookFrom, hit + STREAM.length + 1);
      const keyword = hit - lookFrom;
      const dict = dictionaryBefore(around, keyword, lookback);
      const found = dict !== undefined || afterDictionaryEnd(around, keyword, lookback);
      if (lookback.bytes > lookbackLimit) {
        throw new EngineFailure(
          'INVALID_INPUT',
          `${filename} holds more \`stream\` keywords with no stream dictionary before them than can be checked ` +
            `(over ${lookbackLimit} bytes looked at for a file of ${size} bytes); it is not processed.`,
        );
      }
      if (!found) continue;
      const info = streamInfo(dict);

      // The data starts after the end of line that follows `stream`.
      let start = hit + STREAM.length;
      const eol = await reader.slice(start, start + 2);
      if (eol[0] === 0x0d && eol[1] === 0x0a) start += 2;
      else if (eol[0] === 0x0a || eol[0] === 0x0d) start += 1;
      const stop = await dataEnd(reader, start, info.length);
      at = Math.max(at, stop);
      totals.streams++;

      const meter: Meter = {
        add(n) {
          totals.total += n;
          if (!info.image) totals.parsed += n;
          if (totals.total > limits.MAX_PDF_DECODED_BYTES) throw new LimitPassed('total');
          if (totals.parsed > parsedLimit) throw new LimitPassed('parsed');
        },
      };
      const chain = info.filters?.length === 0 ? undefined : decodingChain(info.filters, meter);
      if (!chain) continue;
      try {
        for (let from = start; from < stop && !chain.done; from += CHUNK) {
          chain.push(await reader.slice(from, Math.min(stop, from + CHUNK)));
        }
        chain.end();
      } catch (err) {
        if (err instanceof LimitPassed) refuse(err.message as 'total' | 'parsed');
        throw err;
      }
    }
    return totals;
  } finally {
    await handle.close();
  }
}

/** Files already measured within their limits, by path, size and change time (a PDF is checked once per engine call). */
const measured = new Map<string, number>();

/** `checkPdfDecodedSize`, once per file version: the checks before an engine and pdf-lib's loader share it. */
export async function ensurePdfDecodable(filename: string, file: string, limits: DecodeLimits): Promise<void> {
  const handle = await open(file, 'r');
  let key: string;
  try {
    const st = await handle.stat();
    key = `${file}\0${st.size}\0${st.mtimeMs}\0${st.ino}\0${limits.MAX_PDF_DECODED_BYTES}\0${limits.MAX_PDF_DECODED_RATIO}`;
  } finally {
    await handle.close();
  }
  if (measured.has(key)) return;
  await checkPdfDecodedSize(filename, file, limits);
  if (measured.size > 256) measured.clear();
  measured.set(key, Date.now());
}
