/**
 * MD5 (RFC 1321) in the browser, for the sandbox whitelist: SubtleCrypto has no MD5. `Md5` takes the
 * bytes in pieces of any length and keeps only one 64-byte block pending, so `md5OfBlob` reads a file
 * slice by slice and never holds it whole.
 */

// The per-round left rotations, and the constants floor(abs(sin(i + 1)) * 2^32).
const SHIFTS = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];
const K = Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32) >>> 0);

export class Md5 {
  #state = new Uint32Array([0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476]);
  #block = new Uint8Array(64);
  #pending = 0;
  #length = 0;
  #words = new Uint32Array(16);

  update(bytes: Uint8Array): this {
    let at = 0;
    this.#length += bytes.length;
    while (at < bytes.length) {
      const take = Math.min(64 - this.#pending, bytes.length - at);
      this.#block.set(bytes.subarray(at, at + take), this.#pending);
      this.#pending += take;
      at += take;
      if (this.#pending === 64) {
        this.#compress();
        this.#pending = 0;
      }
    }
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

  #compress(): void {
    const w = this.#words;
    const blk = this.#block;
    for (let i = 0; i < 16; i++) w[i] = blk[i * 4]! | (blk[i * 4 + 1]! << 8) | (blk[i * 4 + 2]! << 16) | (blk[i * 4 + 3]! << 24);
    let [a, b, c, d] = this.#state as unknown as [number, number, number, number];
    for (let i = 0; i < 64; i++) {
      const round = i >> 4;
      let f: number;
      let g: number;
      if (round === 0) {
        f = (b & c) | (~b & d);
        g = i;
      } else if (round === 1) {
        f = (d & b) | (~d & c);
        g = (5 * i + 1) & 15;
      } else if (round === 2) {
        f = b ^ c ^ d;
        g = (3 * i + 5) & 15;
      } else {
        f = c ^ (b | ~d);
        g = (7 * i) & 15;
      }
      const sum = (a + f + K[i]! + w[g]!) | 0;
      const s = SHIFTS[round * 4 + (i & 3)]!;
      a = d;
      d = c;
      c = b;
      b = (b + ((sum << s) | (sum >>> (32 - s)))) | 0;
    }
    const st = this.#state;
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
