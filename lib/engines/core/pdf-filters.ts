/**
 * PDF stream filters as push-based decoders that count what they produce and keep only a few
 * kilobytes: FlateDecode, LZWDecode, RunLengthDecode, ASCIIHexDecode and ASCII85Decode, the filters
 * pdf-lib (and qpdf, Ghostscript, exiftool) expand. They are chained like a PDF's /Filter array; every
 * stage reports its output to a `Meter` before passing it on, and the meter throws as soon as a limit
 * is passed, so a decompression bomb is stopped after at most one chunk past the limit without its
 * decoded bytes ever being held. A last Flate, LZW or RunLength stage only counts (no window, no
 * output), so counting costs time in proportion to the compressed bytes, not to the decoded ones.
 *
 * Written from RFC 1950/1951 and ISO 32000-1 §7.4. Where decoders disagree on damaged data, these
 * keep going where a lenient reader (pdf-lib's inflate) does: distances before the start of the output
 * give zeros, the unused length and distance codes give nothing; a stored block whose length check
 * fails at the RFC position is also tried at the position pdf-lib reads it from. Data no reader can
 * decode ends the stage (its output so far has been counted).
 */

/** Receives the size of each decoded piece; throws to stop decoding (a limit was passed). */
export interface Meter {
  add(bytes: number): void;
}

/** One decoding stage: bytes in through `push`, `end` when there are no more. */
export interface Stage {
  push(chunk: Uint8Array): void;
  end(): void;
  /** The stage has reached its end-of-data (or given up): no more input is needed. */
  readonly done: boolean;
  /** `false`: the stage takes input but ignores it, so the stage before may only count its output. */
  readonly wantsBytes?: boolean;
}

/** The filters decoded here, by their canonical names (abbreviations as inline images use them). */
export type FilterName = 'FlateDecode' | 'LZWDecode' | 'RunLengthDecode' | 'ASCIIHexDecode' | 'ASCII85Decode';
const FILTERS: Record<string, FilterName> = {
  FlateDecode: 'FlateDecode',
  Fl: 'FlateDecode',
  LZWDecode: 'LZWDecode',
  LZW: 'LZWDecode',
  RunLengthDecode: 'RunLengthDecode',
  RL: 'RunLengthDecode',
  ASCIIHexDecode: 'ASCIIHexDecode',
  AHx: 'ASCIIHexDecode',
  ASCII85Decode: 'ASCII85Decode',
  A85: 'ASCII85Decode',
};

/** The canonical name of a filter decoded here, or undefined (image codecs, Crypt, unknown names). */
export const decodedFilter = (name: string): FilterName | undefined => FILTERS[name];

/** How many output bytes a counting stage gathers before it reports them to the meter. */
const REPORT_EVERY = 1 << 20;
const OUT_CHUNK = 1 << 16;
/** Deflate's window: distances reach at most this far back. */
const WINDOW = 32768;

/** Collects a stage's output: reports it to the meter and passes it on in chunks (or only counts it). */
class Output {
  readonly #meter: Meter;
  readonly #next: Stage | undefined;
  readonly #buf: Uint8Array | undefined;
  #len = 0;
  #pending = 0;

  constructor(meter: Meter, next: Stage | undefined) {
    this.#meter = meter;
    this.#next = next;
    this.#buf = next ? new Uint8Array(OUT_CHUNK) : undefined;
  }

  /** Only counting: there is no next stage, or it ignores what it gets. */
  get counting(): boolean {
    return this.#next === undefined || this.#next.wantsBytes === false;
  }

  /** The next stage wants no more (it reached its own end of data). */
  get stopped(): boolean {
    return this.#next?.done ?? false;
  }

  byte(b: number): void {
    if (!this.#buf || this.counting) {
      this.count(1);
      return;
    }
    this.#buf[this.#len++] = b;
    if (this.#len === OUT_CHUNK) this.flush();
  }

  bytes(src: Uint8Array): void {
    if (!this.#buf || this.counting) {
      this.count(src.length);
      return;
    }
    for (let i = 0; i < src.length; ) {
      const n = Math.min(src.length - i, OUT_CHUNK - this.#len);
      this.#buf.set(src.subarray(i, i + n), this.#len);
      this.#len += n;
      i += n;
      if (this.#len === OUT_CHUNK) this.flush();
    }
  }

  /** Output that is only counted (a counting stage). */
  count(n: number): void {
    this.#pending += n;
    if (this.#pending >= REPORT_EVERY) this.flush();
  }

  flush(): void {
    if (this.#pending) {
      const n = this.#pending;
      this.#pending = 0;
      this.#meter.add(n);
    }
    if (this.#buf && this.#len) {
      const piece = this.#buf.slice(0, this.#len);
      this.#len = 0;
      this.#meter.add(piece.length);
      if (!this.#next!.done && !this.counting) this.#next!.push(piece);
    }
  }

  end(): void {
    this.flush();
    this.#next?.end();
  }
}

/** Input bytes kept between pushes: what is left of the last chunk (a few bytes before it kept for re-reading). */
class Input {
  buf: Uint8Array = new Uint8Array(0);
  pos = 0;
  ended = false;

  add(chunk: Uint8Array, keepBefore = 0): void {
    const from = Math.max(0, this.pos - keepBefore);
    const rest = this.buf.subarray(from);
    const joined = new Uint8Array(rest.length + chunk.length);
    joined.set(rest, 0);
    joined.set(chunk, rest.length);
    this.pos -= from;
    this.buf = joined;
  }

  get available(): number {
    return this.buf.length - this.pos;
  }
}

/** Thrown inside a decoder when it needs bytes that have not arrived yet (it resumes on the next push). */
const NEED_INPUT = Symbol('need input');
/** Thrown inside a decoder on data it cannot decode (the stage ends). */
const BAD_DATA = Symbol('bad data');

// RFC 1951 §3.2.5: length and distance bases and extra bits.
const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

interface Huffman {
  /** Indexed by the next `maxLen` bits (least significant first): (code length << 16) | symbol, 0 for none. */
  table: Int32Array;
  maxLen: number;
}

/** A decoding table for canonical Huffman code lengths (RFC 1951 §3.2.2). */
function huffman(lengths: ArrayLike<number>): Huffman {
  let maxLen = 0;
  for (let i = 0; i < lengths.length; i++) if (lengths[i]! > maxLen) maxLen = lengths[i]!;
  const size = 1 << maxLen;
  const table = new Int32Array(size);
  let code = 0;
  for (let len = 1; len <= maxLen; len++, code <<= 1) {
    for (let symbol = 0; symbol < lengths.length; symbol++) {
      if (lengths[symbol] !== len) continue;
      // Codes are read least significant bit first: index the table by the reversed code.
      let reversed = 0;
      for (let i = 0, c = code; i < len; i++, c >>= 1) reversed = (reversed << 1) | (c & 1);
      for (let i = reversed; i < size; i += 1 << len) table[i] = (len << 16) | symbol;
      code++;
    }
  }
  return { table, maxLen };
}

const FIXED_LITERALS = huffman(Array.from({ length: 288 }, (_, i) => (i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8)));
const FIXED_DISTANCES = huffman(Array.from({ length: 32 }, () => 5));

const enum Phase {
  Header,
  Block,
  Stored,
  Codes,
  Done,
}

/** FlateDecode: a zlib stream (RFC 1950) of deflate blocks (RFC 1951). */
class Inflate implements Stage {
  readonly #in = new Input();
  readonly #out: Output;
  /** Full mode: the last 32 KiB of output (what distances reach back into), then the output not yet passed on. */
  #history: Uint8Array | undefined;
  #hpos = 0;
  #hstart = 0;
  #bits = 0;
  #nbits = 0;
  #phase = Phase.Header;
  #final = false;
  #stored = 0;
  #literals: Huffman = FIXED_LITERALS;
  #distances: Huffman = FIXED_DISTANCES;

  constructor(meter: Meter, next: Stage | undefined) {
    this.#out = new Output(meter, next);
    this.#history = this.#out.counting ? undefined : new Uint8Array(WINDOW + OUT_CHUNK);
  }

  get done(): boolean {
    return this.#phase === Phase.Done || this.#out.stopped;
  }

  push(chunk: Uint8Array): void {
    if (this.done) return;
    this.#in.add(chunk, 4);
    this.#run();
    this.#settle();
  }

  end(): void {
    if (this.#phase !== Phase.Done) {
      this.#in.ended = true;
      this.#run();
      this.#phase = Phase.Done;
    }
    this.#pass();
    this.#out.end();
  }

  #byte(): number {
    const input = this.#in;
    if (input.pos < input.buf.length) return input.buf[input.pos++]!;
    if (input.ended) return -1;
    throw NEED_INPUT;
  }

  #getBits(n: number): number {
    while (this.#nbits < n) {
      const b = this.#byte();
      if (b < 0) throw BAD_DATA;
      this.#bits |= b << this.#nbits;
      this.#nbits += 8;
    }
    const v = this.#bits & ((1 << n) - 1);
    this.#bits >>>= n;
    this.#nbits -= n;
    return v;
  }

  #getCode(h: Huffman): number {
    while (this.#nbits < h.maxLen) {
      const b = this.#byte();
      if (b < 0) break; // the end of the data: the code may still be complete
      this.#bits |= b << this.#nbits;
      this.#nbits += 8;
    }
    const entry = h.table[this.#bits & ((1 << h.maxLen) - 1)]!;
    const len = entry >> 16;
    if (len < 1 || len > this.#nbits) throw BAD_DATA;
    this.#bits >>>= len;
    this.#nbits -= len;
    return entry & 0xffff;
  }

  #emit(b: number): void {
    const h = this.#history;
    if (!h) {
      this.#out.count(1);
      return;
    }
    if (this.#hpos === h.length) this.#slide();
    h[this.#hpos++] = b;
  }

  #copy(length: number, distance: number): void {
    const h = this.#history;
    if (!h) {
      this.#out.count(length);
      return;
    }
    while (length > 0) {
      if (this.#hpos === h.length) this.#slide();
      const n = Math.min(length, h.length - this.#hpos);
      let p = this.#hpos;
      // Before the first byte of output there are zeros (as lenient readers give).
      for (const end = p + n; p < end; p++) h[p] = p >= distance ? h[p - distance]! : 0;
      this.#hpos = p;
      length -= n;
    }
  }

  /** Passes the output gathered so far on and keeps the last 32 KiB for distances. */
  #slide(): void {
    const h = this.#history!;
    this.#pass();
    if (this.#hpos > WINDOW) {
      h.copyWithin(0, this.#hpos - WINDOW, this.#hpos);
      this.#hpos = WINDOW;
    }
    this.#hstart = this.#hpos;
  }

  #pass(): void {
    if (this.#history && this.#hpos > this.#hstart) {
      this.#out.bytes(this.#history.subarray(this.#hstart, this.#hpos));
      this.#hstart = this.#hpos;
    }
  }

  /** Between pushes: once the next stage stops wanting the bytes (sniffed data that is not zlib), only count. */
  #settle(): void {
    this.#pass();
    if (this.#history && this.#out.counting) this.#history = undefined;
  }

  #run(): void {
    const input = this.#in;
    // Where the last whole unit ended: a unit cut short by the end of a chunk is read again from there.
    let pos = input.pos;
    let bits = this.#bits;
    let nbits = this.#nbits;
    try {
      while (this.#phase !== Phase.Done && !this.#out.stopped) {
        this.#step();
        pos = input.pos;
        bits = this.#bits;
        nbits = this.#nbits;
      }
    } catch (signal) {
      if (signal === NEED_INPUT) {
        input.pos = pos;
        this.#bits = bits;
        this.#nbits = nbits;
      } else if (signal === BAD_DATA) {
        this.#phase = Phase.Done;
      } else {
        throw signal;
      }
    }
  }

  /** One unit of work: the header, a block header, some stored bytes or one Huffman symbol. */
  #step(): void {
    switch (this.#phase) {
      case Phase.Header: {
        const cmf = this.#byte();
        const flg = this.#byte();
        if (cmf < 0 || flg < 0 || (cmf & 0x0f) !== 8 || ((cmf << 8) + flg) % 31 !== 0 || flg & 0x20) throw BAD_DATA;
        this.#phase = Phase.Block;
        return;
      }
      case Phase.Block:
        return this.#blockHeader();
      case Phase.Stored: {
        const input = this.#in;
        if (input.available === 0) {
          if (input.ended) throw BAD_DATA;
          throw NEED_INPUT;
        }
        const n = Math.min(this.#stored, input.available);
        if (this.#history) for (let i = 0; i < n; i++) this.#emit(input.buf[input.pos + i]!);
        else this.#out.count(n);
        input.pos += n;
        this.#stored -= n;
        if (this.#stored === 0) this.#phase = this.#final ? Phase.Done : Phase.Block;
        return;
      }
      case Phase.Codes: {
        const symbol = this.#getCode(this.#literals);
        if (symbol < 256) {
          this.#emit(symbol);
          return;
        }
        if (symbol === 256) {
          this.#phase = this.#final ? Phase.Done : Phase.Block;
          return;
        }
        const li = symbol - 257;
        const length = li < 29 ? LENGTH_BASE[li]! + this.#getBits(LENGTH_EXTRA[li]!) : 0;
        const di = this.#getCode(this.#distances);
        const distance = di < 30 ? DIST_BASE[di]! + this.#getBits(DIST_EXTRA[di]!) : 0;
        this.#copy(length, distance);
        return;
      }
      case Phase.Done:
        return;
    }
  }

  #blockHeader(): void {
    this.#final = this.#getBits(1) === 1;
    const type = this.#getBits(2);
    if (type === 0) return this.#storedHeader();
    if (type === 1) {
      this.#literals = FIXED_LITERALS;
      this.#distances = FIXED_DISTANCES;
      this.#phase = Phase.Codes;
      return;
    }
    if (type !== 2) throw BAD_DATA;
    const nlit = this.#getBits(5) + 257;
    const ndist = this.#getBits(5) + 1;
    const nclen = this.#getBits(4) + 4;
    const clens = new Uint8Array(19);
    for (let i = 0; i < nclen; i++) clens[CODE_LENGTH_ORDER[i]!] = this.#getBits(3);
    const clTable = huffman(clens);
    const lengths = new Uint8Array(nlit + ndist);
    let i = 0;
    let prev = 0;
    while (i < lengths.length) {
      const sym = this.#getCode(clTable);
      if (sym < 16) {
        lengths[i++] = prev = sym;
        continue;
      }
      const [bits, base, value] = sym === 16 ? [2, 3, prev] : sym === 17 ? [3, 3, 0] : [7, 11, 0];
      if (sym !== 16) prev = 0;
      for (let n = this.#getBits(bits) + base; n > 0; n--) if (i < lengths.length) lengths[i++] = value;
      else break;
    }
    this.#literals = huffman(lengths.subarray(0, nlit));
    this.#distances = huffman(lengths.subarray(nlit));
    this.#phase = Phase.Codes;
  }

  /**
   * A stored block's LEN and NLEN: at the next byte boundary of the bit stream (RFC 1951); if they do
   * not check out there, where a reader that drops every bit it has buffered finds them (pdf-lib).
   */
  #storedHeader(): void {
    const input = this.#in;
    const unread = this.#nbits >> 3;
    const candidates = unread > 0 ? [input.pos - unread, input.pos] : [input.pos];
    this.#bits = 0;
    this.#nbits = 0;
    for (const at of candidates) {
      if (at < 0) continue;
      if (at + 4 > input.buf.length) {
        if (input.ended) throw BAD_DATA;
        throw NEED_INPUT;
      }
      const b = input.buf;
      const len = b[at]! | (b[at + 1]! << 8);
      const nlen = b[at + 2]! | (b[at + 3]! << 8);
      if (len === (~nlen & 0xffff) || (len === 0 && nlen === 0)) {
        input.pos = at + 4;
        this.#stored = len;
        this.#phase = len === 0 ? (this.#final ? Phase.Done : Phase.Block) : Phase.Stored;
        return;
      }
    }
    throw BAD_DATA;
  }
}

/** LZWDecode (ISO 32000-1 §7.4.4): 9- to 12-bit codes, most significant bit first; 256 clears, 257 ends. */
class Lzw implements Stage {
  readonly #out: Output;
  readonly #early: number;
  /** Per entry: its length, first byte, last byte and the entry it extends (full mode). */
  readonly #length = new Uint16Array(4096);
  readonly #first = new Uint8Array(4096);
  readonly #last = new Uint8Array(4096);
  readonly #prefix = new Int16Array(4096);
  readonly #scratch: Uint8Array | undefined;
  #next = 258;
  #codeLen = 9;
  #prev = -1;
  #bits = 0;
  #nbits = 0;
  #done = false;

  constructor(meter: Meter, next: Stage | undefined, earlyChange = 1) {
    this.#out = new Output(meter, next);
    this.#early = earlyChange;
    this.#scratch = this.#out.counting ? undefined : new Uint8Array(4096);
    for (let i = 0; i < 256; i++) {
      this.#length[i] = 1;
      this.#first[i] = i;
      this.#last[i] = i;
      this.#prefix[i] = -1;
    }
  }

  get done(): boolean {
    return this.#done || this.#out.stopped;
  }

  push(chunk: Uint8Array): void {
    for (let i = 0; i < chunk.length && !this.done; i++) {
      this.#bits = ((this.#bits << 8) | chunk[i]!) & 0xffffff;
      this.#nbits += 8;
      while (this.#nbits >= this.#codeLen && !this.done) {
        const code = (this.#bits >> (this.#nbits - this.#codeLen)) & ((1 << this.#codeLen) - 1);
        this.#nbits -= this.#codeLen;
        this.#code(code);
      }
    }
  }

  end(): void {
    this.#done = true;
    this.#out.end();
  }

  #write(entry: number): void {
    if (!this.#scratch) {
      this.#out.count(this.#length[entry]!);
      return;
    }
    let n = this.#length[entry]!;
    for (let e = entry; e >= 0 && n > 0; e = this.#prefix[e]!) this.#scratch[--n] = this.#last[e]!;
    this.#out.bytes(this.#scratch.subarray(0, this.#length[entry]!));
  }

  #code(code: number): void {
    if (code === 256) {
      this.#next = 258;
      this.#codeLen = 9;
      this.#prev = -1;
      return;
    }
    if (code === 257) {
      this.#done = true;
      return;
    }
    if (this.#prev >= 0) {
      if (code > this.#next || (code === this.#next && this.#next >= 4096)) {
        this.#done = true; // a code that cannot be there: the data ends
        return;
      }
      if (this.#next < 4096) {
        const n = this.#next++;
        this.#length[n] = Math.min(4096, this.#length[this.#prev]! + 1);
        this.#first[n] = this.#first[this.#prev]!;
        this.#last[n] = code === n ? this.#first[this.#prev]! : this.#first[code]!;
        this.#prefix[n] = this.#prev;
      }
    } else if (code > 255) {
      this.#done = true;
      return;
    }
    this.#write(code);
    this.#prev = code;
    if (this.#next + this.#early >= 1 << this.#codeLen && this.#codeLen < 12) this.#codeLen++;
  }
}

/** RunLengthDecode (§7.4.5): a length byte, then literal bytes or one byte repeated; 128 ends. */
class RunLength implements Stage {
  readonly #out: Output;
  /** Literal bytes still to copy, or -n: the next byte is repeated n times. */
  #state = 0;
  #done = false;

  constructor(meter: Meter, next: Stage | undefined) {
    this.#out = new Output(meter, next);
  }

  get done(): boolean {
    return this.#done || this.#out.stopped;
  }

  push(chunk: Uint8Array): void {
    for (let i = 0; i < chunk.length && !this.done; i++) {
      const b = chunk[i]!;
      if (this.#state > 0) {
        this.#out.byte(b);
        this.#state--;
      } else if (this.#state < 0) {
        if (this.#out.counting) this.#out.count(-this.#state);
        else for (let n = -this.#state; n > 0; n--) this.#out.byte(b);
        this.#state = 0;
      } else if (b === 128) this.#done = true;
      else this.#state = b < 128 ? b + 1 : -(257 - b);
    }
  }

  end(): void {
    this.#done = true;
    this.#out.end();
  }
}

const hexValue = (c: number) => (c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 0x37 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1);

/** ASCIIHexDecode (§7.4.2): pairs of hex digits, white space and other bytes skipped, `>` ends. */
class AsciiHex implements Stage {
  readonly #out: Output;
  #high = -1;
  #done = false;

  constructor(meter: Meter, next: Stage | undefined) {
    this.#out = new Output(meter, next);
  }

  get done(): boolean {
    return this.#done || this.#out.stopped;
  }

  push(chunk: Uint8Array): void {
    for (let i = 0; i < chunk.length && !this.done; i++) {
      const c = chunk[i]!;
      if (c === 0x3e) {
        this.#done = true;
        break;
      }
      const v = hexValue(c);
      if (v < 0) continue;
      if (this.#high < 0) this.#high = v;
      else {
        this.#out.byte((this.#high << 4) | v);
        this.#high = -1;
      }
    }
  }

  end(): void {
    if (this.#high >= 0 && !this.#out.stopped) this.#out.byte(this.#high << 4);
    this.#done = true;
    this.#out.end();
  }
}

/** ASCII85Decode (§7.4.3): groups of five characters `!`..`u` for four bytes, `z` for four zeros, `~` ends. */
class Ascii85 implements Stage {
  readonly #out: Output;
  #group = 0;
  #count = 0;
  #done = false;

  constructor(meter: Meter, next: Stage | undefined) {
    this.#out = new Output(meter, next);
  }

  get done(): boolean {
    return this.#done || this.#out.stopped;
  }

  #flushGroup(chars: number): void {
    let value = this.#group;
    for (let i = chars; i < 5; i++) value = value * 85 + 84;
    for (let i = 0; i < chars - 1; i++) this.#out.byte(Math.floor(value / 256 ** (3 - i)) & 0xff);
  }

  push(chunk: Uint8Array): void {
    for (let i = 0; i < chunk.length && !this.done; i++) {
      const c = chunk[i]!;
      if (c === 0x7e) {
        this.#done = true;
        break;
      }
      if (c === 0x7a && this.#count === 0) {
        for (let n = 0; n < 4; n++) this.#out.byte(0);
        continue;
      }
      if (c < 0x21 || c > 0x75) continue;
      this.#group = this.#group * 85 + (c - 0x21);
      if (++this.#count === 5) {
        this.#flushGroup(5);
        this.#group = 0;
        this.#count = 0;
      }
    }
  }

  end(): void {
    if (this.#count > 1 && !this.#out.stopped) this.#flushGroup(this.#count);
    this.#done = true;
    this.#out.end();
  }
}

/** Whether two bytes are a zlib header as FlateDecode requires (deflate, valid check bits, no preset dictionary). */
export const isZlibHeader = (cmf: number, flg: number): boolean => (cmf & 0x0f) === 8 && ((cmf << 8) + flg) % 31 === 0 && (flg & 0x20) === 0;

/**
 * For streams whose filters cannot be read (an indirect /Filter, a dictionary this module cannot
 * parse): decodes as FlateDecode when the data starts like a zlib stream, again for what that gives,
 * a few levels deep; otherwise passes nothing on.
 */
class Sniff implements Stage {
  readonly #meter: Meter;
  readonly #depth: number;
  #head: number[] = [];
  #inner: Stage | undefined;
  /** Not zlib data: the rest is taken in and ignored (the stage before keeps decoding, and counting). */
  #ignoring = false;

  constructor(meter: Meter, depth = 0) {
    this.#meter = meter;
    this.#depth = depth;
  }

  get done(): boolean {
    return this.#inner?.done ?? false;
  }

  get wantsBytes(): boolean {
    return !this.#ignoring;
  }

  push(chunk: Uint8Array): void {
    if (this.#ignoring || this.done) return;
    if (this.#inner) {
      this.#inner.push(chunk);
      return;
    }
    let i = 0;
    while (this.#head.length < 2 && i < chunk.length) this.#head.push(chunk[i++]!);
    if (this.#head.length < 2) return;
    if (!isZlibHeader(this.#head[0]!, this.#head[1]!) || this.#depth >= 4) {
      this.#ignoring = true;
      return;
    }
    this.#inner = new Inflate(this.#meter, new Sniff(this.#meter, this.#depth + 1));
    this.#inner.push(Uint8Array.from(this.#head));
    this.#inner.push(chunk.subarray(i));
  }

  end(): void {
    this.#inner?.end();
  }
}

/** A filter of a stream and its parameters, as its dictionary gives them. */
export interface FilterSpec {
  name: FilterName;
  earlyChange?: number;
}

function stage(f: FilterSpec, meter: Meter, next: Stage | undefined): Stage {
  switch (f.name) {
    case 'FlateDecode':
      return new Inflate(meter, next);
    case 'LZWDecode':
      return new Lzw(meter, next, f.earlyChange);
    case 'RunLengthDecode':
      return new RunLength(meter, next);
    case 'ASCIIHexDecode':
      return new AsciiHex(meter, next);
    case 'ASCII85Decode':
      return new Ascii85(meter, next);
  }
}

/**
 * Several chains fed the same data, for a stream whose filters cannot be read; the meter sees the
 * largest count among them.
 */
class FanOut implements Stage {
  readonly #chains: Stage[];

  constructor(meter: Meter, chains: Array<(meter: Meter) => Stage>) {
    const counts = chains.map(() => 0);
    let reported = 0;
    this.#chains = chains.map((make, i) =>
      make({
        add(n) {
          counts[i]! += n;
          const most = Math.max(...counts);
          if (most > reported) {
            const more = most - reported;
            reported = most;
            meter.add(more);
          }
        },
      }),
    );
  }

  get done(): boolean {
    return this.#chains.every((c) => c.done);
  }

  push(chunk: Uint8Array): void {
    for (const c of this.#chains) if (!c.done) c.push(chunk);
  }

  end(): void {
    for (const c of this.#chains) c.end();
  }
}

/**
 * The decoding chain for a stream's filters (first filter first), each stage reporting its output to
 * `meter`; the last stage only counts, or passes its output to `sink` (tests). `undefined` filters:
 * they cannot be read (an indirect /Filter, a dictionary this check cannot parse), so the data is
 * decoded as if it started with each filter decoded here, sniffing for zlib data after it, and the
 * largest count is taken.
 */
export function decodingChain(filters: readonly FilterSpec[] | undefined, meter: Meter, sink?: Stage): Stage | undefined {
  if (filters === undefined) {
    const names: FilterName[] = ['LZWDecode', 'RunLengthDecode', 'ASCIIHexDecode', 'ASCII85Decode'];
    return new FanOut(meter, [(m) => new Sniff(m), ...names.map((name) => (m: Meter) => stage({ name }, m, new Sniff(m)))]);
  }
  let next: Stage | undefined = sink;
  for (let i = filters.length - 1; i >= 0; i--) next = stage(filters[i]!, meter, next);
  return next;
}
