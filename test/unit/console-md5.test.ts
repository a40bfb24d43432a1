/**
 * The console's own MD5 (console/src/md5.ts), for the sandbox whitelist, against node:crypto: the
 * padding edges (0, 55, 56, 63, 64, 65 bytes and their neighbours past one block), a few megabytes
 * read from a Blob in slices of odd sizes, and pieces fed in any split.
 */
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isMd5, Md5, md5Hex, md5OfBlob } from '../../console/src/md5.js';

const nodeMd5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex');

describe('the console MD5', () => {
  it('knows RFC 1321\'s test suite', () => {
    const enc = new TextEncoder();
    expect(md5Hex(enc.encode(''))).toBe('d41d8cd98f00b204e9800998ecf8427e');
    expect(md5Hex(enc.encode('abc'))).toBe('900150983cd24fb0d6963f7d28e17f72');
    expect(md5Hex(enc.encode('12345678901234567890123456789012345678901234567890123456789012345678901234567890'))).toBe('57edf4a22be3c955ac49da2e2107b67a');
  });

  it.each([0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 1000])('equals node:crypto on %i bytes', (size) => {
    const bytes = randomBytes(size);
    expect(md5Hex(bytes)).toBe(nodeMd5(bytes));
  });

  it('gives the same digest however the bytes are split', () => {
    const bytes = randomBytes(5000);
    const hash = new Md5();
    for (let at = 0, step = 1; at < bytes.length; at += step, step = (step * 7 + 3) % 200) hash.update(bytes.subarray(at, at + step));
    expect(hash.hex()).toBe(nodeMd5(bytes));
  });

  it.each([
    [0, 1024],
    [56, 64],
    [3 * 1024 * 1024 + 17, 1024 * 1024 + 1],
    [5 * 1024 * 1024, 4 * 1024 * 1024],
  ])('reads a Blob of %i bytes in slices of %i, reporting progress up to 1', async (size, chunkBytes) => {
    const bytes = randomBytes(size);
    const seen: number[] = [];
    const digest = await md5OfBlob(new Blob([bytes]), { chunkBytes, onProgress: (f) => seen.push(f) });
    expect(digest).toBe(nodeMd5(bytes));
    expect(seen.length).toBe(Math.ceil(size / chunkBytes));
    if (size) expect(seen.at(-1)).toBe(1);
  });

  it('tells an MD5 from other text', () => {
    expect(isMd5(nodeMd5(Buffer.from('x')))).toBe(true);
    expect(isMd5('D41D8CD98F00B204E9800998ECF8427E')).toBe(true);
    expect(isMd5('d41d8cd98f00b204e9800998ecf8427')).toBe(false);
    expect(isMd5('g41d8cd98f00b204e9800998ecf8427e')).toBe(false);
  });
});
