/**
 * A binary a function's zip carries compressed (scripts/serverless-packed-binaries.cjs: the static
 * ffprobe, 79 MB of Lambda's 250 MB unzipped as it is, 25 MB with brotli), made runnable on its first
 * use: unpacked into a folder of this user under the temp folder (Lambda's /tmp, the only place it may
 * write), checked against the SHA-256 recorded when it was packed, and only then given its final name.
 * A truncated or altered copy is never run: a file already there (an engine function's reaper leaves
 * it for the next task, whose worker is a new process) is checked again before it is used.
 *
 * One unpack per process, however many tasks ask at once: they share its promise. The folder is 0700
 * and ours (another user's, or one others may write, is refused); the file is written under a name of
 * its own, fsynced, made 0500 and renamed, so a crash leaves a partial file nobody runs, never a short
 * binary under the final name.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliDecompress } from 'node:zlib';
import { EngineFailure } from './errors.js';

export interface PackedBinary {
  /** The brotli-compressed binary (`ffprobe.br`). */
  source: string;
  /** Its digest file (`ffprobe.sha256`, `sha256sum` format): the SHA-256 of the binary unpacked. */
  digestFile: string;
  /** Where the binary is unpacked to: a file in a folder that only this user may enter. */
  file: string;
}

const unpacking = new Map<string, Promise<string>>();

/** The runnable binary of `packed`: unpacked on the first call (the ones meanwhile wait for the same unpack). */
export function unpackedBinary(packed: PackedBinary): Promise<string> {
  let pending = unpacking.get(packed.file);
  if (!pending) {
    pending = unpack(packed).catch((err: unknown) => {
      // Another use may try again (a full /tmp frees up); a wrong digest fails again, as it should.
      unpacking.delete(packed.file);
      throw err instanceof EngineFailure ? err : new EngineFailure('ENGINE_UNAVAILABLE', `${path.basename(packed.file)} could not be unpacked: ${(err as Error).message}`, { cause: err });
    });
    unpacking.set(packed.file, pending);
  }
  return pending;
}

/** Forgets what was unpacked (tests; the files stay, and are checked again on their next use). */
export function resetUnpacked(): void {
  unpacking.clear();
}

async function unpack(packed: PackedBinary): Promise<string> {
  const expected = /^([0-9a-f]{64})\b/.exec(await readFile(packed.digestFile, 'utf8'))?.[1];
  if (!expected) throw new EngineFailure('ENGINE_UNAVAILABLE', `${packed.digestFile} holds no SHA-256 digest.`);
  await ownFolder(path.dirname(packed.file));
  if ((await digestOf(packed.file)) === expected) return packed.file;
  // Whole, not streamed: 25 MB in, 79 MB out, decompressed on libuv's pool (5× faster than a stream of 16 KiB chunks).
  const binary = await promisify(brotliDecompress)(await readFile(packed.source));
  if (sha256(binary) !== expected) {
    throw new EngineFailure('ENGINE_UNAVAILABLE', `${path.basename(packed.source)} unpacks to a file whose SHA-256 is not the one recorded when it was packed; it is not run.`);
  }
  const partial = `${packed.file}.${process.pid}.${randomBytes(6).toString('hex')}.partial`;
  try {
    const handle = await open(partial, 'wx', 0o600);
    try {
      await handle.writeFile(binary);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await chmod(partial, 0o500);
    await rename(partial, packed.file);
    return packed.file;
  } finally {
    await rm(partial, { force: true });
  }
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** The SHA-256 of `file`, or undefined when there is none (or it is not a file of this user's: a link, a folder). */
async function digestOf(file: string): Promise<string | undefined> {
  try {
    const stat = await lstat(file);
    if (!stat.isFile() || (typeof process.getuid === 'function' && stat.uid !== process.getuid())) return undefined;
    return sha256(await readFile(file));
  } catch {
    return undefined;
  }
}

/**
 * `dir`, made 0700 if absent; refused unless it and its parent (in a shared temp folder, where another
 * user could have made it first) are folders of this user, which nobody else may then write or enter.
 * Never the temp folder itself: `dir` is a folder below a folder of this user's (`engine-tools-<uid>`).
 */
export async function ownFolder(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const folder of [path.dirname(dir), dir]) {
    const stat = await lstat(folder);
    const uid = typeof process.getuid === 'function' ? process.getuid() : stat.uid;
    if (!stat.isDirectory() || stat.uid !== uid) throw new EngineFailure('ENGINE_UNAVAILABLE', `${folder} is not a folder of this user; nothing is unpacked there.`);
    if (stat.mode & 0o077) await chmod(folder, 0o700);
  }
}
