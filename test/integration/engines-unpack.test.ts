/**
 * A binary shipped compressed in a function's zip (lib/engines/core/unpack.ts), made runnable on its
 * first use: unpacked once however many ask, checked against its recorded SHA-256, never left
 * half-written under its name, and refused (ENGINE_UNAVAILABLE) when the digest does not match.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetUnpacked, unpackedBinary, type PackedBinary } from '#lib/engines/core/unpack.js';

let dir: string;
let count = 0;
// A program that says who it is: runnable once unpacked.
const program = Buffer.from(`#!/bin/sh\necho unpacked-${'x'.repeat(2000)}\n`);
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'unpack-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => resetUnpacked());

/** A package folder holding `tool.br` and `tool.sha256`, and where it is to be unpacked. */
function packed(data: Buffer, digest = sha256(data), compressed = brotliCompressSync(data)): PackedBinary {
  const at = path.join(dir, `case-${++count}`);
  mkdirSync(path.join(at, 'package'), { recursive: true });
  const source = path.join(at, 'package', 'tool.br');
  const digestFile = path.join(at, 'package', 'tool.sha256');
  writeFileSync(source, compressed);
  writeFileSync(digestFile, `${digest}  tool\n`);
  return { source, digestFile, file: path.join(at, 'tools', 'tool-1.0', 'tool') };
}

const runs = (file: string) => execFileSync(file, { encoding: 'utf8' }).startsWith('unpacked-');

describe('unpackedBinary', () => {
  it('unpacks on first use into a folder only this user may enter, 0500, and runs', async () => {
    const p = packed(program);
    const file = await unpackedBinary(p);
    expect(file).toBe(p.file);
    expect(readFileSync(file).equals(program)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o500);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(runs(file)).toBe(true);
    expect(readdirSync(path.dirname(file))).toEqual(['tool']);
  });

  it('shares one unpack between the uses that ask at once, and unpacks no more after it', async () => {
    const p = packed(program);
    const uses = [unpackedBinary(p), unpackedBinary(p), unpackedBinary(p)];
    expect(new Set(uses).size).toBe(1);
    await Promise.all(uses);
    const inode = statSync(p.file).ino;
    // The compressed file gone: a second unpack could not happen.
    rmSync(p.source);
    expect(await unpackedBinary(p)).toBe(p.file);
    expect(statSync(p.file).ino).toBe(inode);
  });

  it('refuses to run what does not match the recorded digest, and leaves nothing behind', async () => {
    const p = packed(program, sha256(Buffer.from('another program')));
    await expect(unpackedBinary(p)).rejects.toMatchObject({ name: 'EngineFailure', code: 'ENGINE_UNAVAILABLE' });
    expect(readdirSync(path.dirname(p.file))).toEqual([]);
  });

  it('refuses a truncated archive, and leaves nothing behind', async () => {
    const whole = brotliCompressSync(program);
    const p = packed(program, sha256(program), whole.subarray(0, Math.floor(whole.length / 2)));
    await expect(unpackedBinary(p)).rejects.toMatchObject({ name: 'EngineFailure', code: 'ENGINE_UNAVAILABLE' });
    expect(readdirSync(path.dirname(p.file))).toEqual([]);
  });

  it('unpacks again over a copy altered since (a new process checks before it runs)', async () => {
    const p = packed(program);
    await unpackedBinary(p);
    chmodSync(p.file, 0o700);
    writeFileSync(p.file, '#!/bin/sh\necho planted\n');
    resetUnpacked();
    const file = await unpackedBinary(p);
    expect(readFileSync(file).equals(program)).toBe(true);
    expect(runs(file)).toBe(true);
  });

  it('replaces a link left under its name, even to the right bytes, by a file of its own', async () => {
    const p = packed(program);
    const elsewhere = path.join(dir, `elsewhere-${count}`);
    writeFileSync(elsewhere, program, { mode: 0o700 });
    mkdirSync(path.dirname(p.file), { recursive: true, mode: 0o700 });
    symlinkSync(elsewhere, p.file);
    const file = await unpackedBinary(p);
    expect(lstatSync(file).isFile()).toBe(true);
    expect(readFileSync(file).equals(program)).toBe(true);
  });

  it('refuses a digest file without a digest', async () => {
    const p = packed(program);
    writeFileSync(p.digestFile, 'not a digest\n');
    await expect(unpackedBinary(p)).rejects.toMatchObject({ code: 'ENGINE_UNAVAILABLE' });
  });
});
