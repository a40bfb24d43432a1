/**
 * MD5 (RFC 1321) in the browser, for the sandbox whitelist: SubtleCrypto has no MD5. `Md5` takes the
 * bytes in pieces of any length and keeps only one 64-byte block pending, so `md5OfBlob` reads a file
 * slice by slice and never holds it whole.
 */

// The per-round left rotations, and the constants floor(abs(sin(i + 1)) * 2^32).
const SHIFTS = Uint8Array.of(7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21);
const K = Int32Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32) | 0);
// The message word each of the 64 steps reads.
const G = Uint8Array.from({ length: 64 }, (_, i) => (i < 16 ? i : i < 32 ? 5 * i + 1 : i < 48 ? 3 * i + 5 : 7 * i) & 15);

export class Md5 {
  #state = new Uint32Array([0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476]);
  #block = new Uint8Array(64);
  #pending = 0;
  #length = 0;
  #words = new Int32Array(16);

  update(bytes: Uint8Array): this {
    let at = 0;
    this.#length += bytes.length;
    // Fill the pending block first; then whole blocks straight from the input; keep the rest.
    if (this.#pending) {
      const take = Math.min(64 - this.#pending, bytes.length);
      this.#block.set(bytes.subarray(0, take), this.#pending);
      this.#pending += take;
      at = take;
      if (this.#pending < 64) return this;
      this.#compress(this.#block, 0);
      this.#pending = 0;
    }
    for (; at + 64 <= bytes.length; at += 64) this.#compress(bytes, at);
    this.#block.set(bytes.subarray(at), 0);
    this.#pending = bytes.length - at;
    return this;
  }

  /** The digest as 32 lowercase hexadecimal characters; the hash takes no more bytes afterwards. */
  hex(): string {
    const bits = this.#length * 8;
    const tail = new Uint8Array(((this.#pending < 56 ? 56 : 120) - this.#pending) + 8);
    tail[0] = 0x80;
    // The message length in bits, little-endian, as 64 bits (the high part from a division: no 32-bit overflow).
    const view = new DataView(tail.buffer);
    view.setUint32(tail.length - 8, bits >>> 0, true);
    view.setUint32(tail.length - 4, Math.floor(bits / 2 ** 32), true);
    const length = this.#length;
    this.update(tail);
    this.#length = length;
    let out = '';
    for (const word of this.#state) for (let b = 0; b < 4; b++) out += ((word >>> (8 * b)) & 0xff).toString(16).padStart(2, '0');
    return out;
  }

  /** One 64-byte block at `at`: the four rounds of RFC 1321 §3.4, written out per round. */
  #compress(blk: Uint8Array, at: number): void {
    const w = this.#words;
    for (let i = 0; i < 16; i++) {
      const o = at + i * 4;
      w[i] = blk[o]! | (blk[o + 1]! << 8) | (blk[o + 2]! << 16) | (blk[o + 3]! << 24);
    }
    const st = this.#state;
    let a = st[0]! | 0;
    let b = st[1]! | 0;
    let c = st[2]! | 0;
    let d = st[3]! | 0;
    for (let i = 0; i < 64; i++) {
      const f = i < 16 ? d ^ (b & (c ^ d)) : i < 32 ? c ^ (d & (b ^ c)) : i < 48 ? b ^ c ^ d : c ^ (b | ~d);
      const sum = (a + f + K[i]! + w[G[i]!]!) | 0;
      const s = SHIFTS[((i >> 4) << 2) | (i & 3)]!;
      a = d;
      d = c;
      c = b;
      b = (b + ((sum << s) | (sum >>> (32 - s)))) | 0;
    }
    st[0] = st[0]! + a;
    st[1] = st[1]! + b;
    st[2] = st[2]! + c;
    st[3] = st[3]! + d;
  }
}

/** The MD5 of bytes held in memory. */
export const md5Hex = (bytes: Uint8Array): string => new Md5().update(bytes).hex();

/**
 * The MD5 of a file (or any Blob), read in slices of `chunkBytes`; `onProgress` hears the fraction
 * read after each slice.
 */
export async function md5OfBlob(blob: Blob, opts: { chunkBytes?: number; onProgress?: (fraction: number) => void } = {}): Promise<string> {
  const chunk = opts.chunkBytes ?? 4 * 1024 * 1024;
  const hash = new Md5();
  for (let at = 0; at < blob.size; at += chunk) {
    hash.update(new Uint8Array(await blob.slice(at, at + chunk).arrayBuffer()));
    opts.onProgress?.(Math.min(1, (at + chunk) / blob.size));
  }
  return hash.hex();
}

/** Whether text is an MD5 as the API takes it (32 hexadecimal characters). */
export const isMd5 = (text: string): boolean => /^[0-9a-fA-F]{32}$/.test(text.trim());
