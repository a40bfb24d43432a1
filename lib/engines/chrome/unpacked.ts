/**
 * The bundled Chromium of @sparticuz/chromium, unpacked into a folder of its own version.
 *
 * Left to itself, @sparticuz/chromium unpacks into the temp folder's `chromium` (and `fonts`, `al2023`,
 * the SwiftShader libraries beside them) and runs whatever is already there: another program's
 * @sparticuz/chromium of another version (or another user's file) silently becomes this engine's
 * browser. It has no setting for where to unpack; it asks `os.tmpdir()`, which reads TMPDIR. So it is
 * run with TMPDIR pointing at a fresh folder for the duration of its synchronous part (where it reads
 * the temp folder, for each file it unpacks), and the folder, once complete and marked so, is renamed
 * to `engine-tools-<uid>/sparticuz-chromium-<version>`: a folder of this user (0700, checked as the
 * unpacked ffprobe's is, lib/engines/core/unpack.ts), only ever whole under its final name.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BUNDLED_VERSIONS } from '../core/catalog.js';
import { EngineFailure } from '../core/errors.js';
import { ownFolder } from '../core/unpack.js';

export interface UnpackedChromium {
  executablePath: string;
  /** The version of the @sparticuz/chromium package it came from (the folder's name). */
  packageVersion: string;
  /** What of the browser's environment must point into its folder (Lambda's fonts and libraries). */
  env: Record<string, string>;
}

/** Written last into a folder whose files are all there. */
const COMPLETE = '.unpacked';

// `__filename` in the CommonJS bundles Lambda runs (import.meta is empty there), the module URL under tsx.
const require = createRequire(typeof __filename === 'string' ? __filename : import.meta.url);

/** The installed package's version, read from its package.json (which its `exports` do not list). */
function packageVersion(): string {
  let dir = path.dirname(require.resolve('@sparticuz/chromium'));
  for (let i = 0; i < 5; i++, dir = path.dirname(dir)) {
    try {
      const meta = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (meta.name === '@sparticuz/chromium' && meta.version) return meta.version;
    } catch {
      // not the package's root yet
    }
  }
  return `chromium-${BUNDLED_VERSIONS.chromium}`;
}

const folderOf = (version: string) =>
  path.join(tmpdir(), `engine-tools-${typeof process.getuid === 'function' ? process.getuid() : 0}`, `sparticuz-chromium-${version}`);

const isComplete = (folder: string, version: string) => {
  try {
    return readFileSync(path.join(folder, COMPLETE), 'utf8') === version && existsSync(path.join(folder, 'chromium'));
  } catch {
    return false;
  }
};

let pending: Promise<UnpackedChromium> | undefined;

/** The bundled Chromium, unpacked on the first call of this process (later calls share it). */
export function bundledChromium(): Promise<UnpackedChromium> {
  pending ??= unpack().catch((err: unknown) => {
    pending = undefined;
    throw err instanceof EngineFailure ? err : new EngineFailure('ENGINE_UNAVAILABLE', `The bundled Chromium could not be unpacked: ${(err as Error).message}`, { cause: err });
  });
  return pending;
}

/** Forgets the unpacked browser (tests: a later call checks the folder again, as a new process would). */
export function resetBundledChromium(): void {
  pending = undefined;
}

async function unpack(): Promise<UnpackedChromium> {
  const { default: chromium } = await import('@sparticuz/chromium');
  const version = packageVersion();
  const folder = folderOf(version);
  await ownFolder(folder);
  if (!isComplete(folder, version)) {
    const staging = await mkdtemp(path.join(path.dirname(folder), `.sparticuz-chromium-${version}-`));
    try {
      const unpacked = await unpackInto(staging, () => chromium.executablePath());
      if (path.dirname(unpacked) !== staging) {
        throw new EngineFailure('ENGINE_UNAVAILABLE', `@sparticuz/chromium ${version} unpacked to ${unpacked}, not into the folder of its own version; it is not run.`);
      }
      await relocateFonts(staging, folder);
      await writeFile(path.join(staging, COMPLETE), version);
      await install(staging, folder, version);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }
  return { executablePath: path.join(folder, 'chromium'), packageVersion: version, env: browserEnvIn(folder) };
}

/**
 * Runs @sparticuz/chromium's unpacking with the temp folder at `dir`. It reads the temp folder only
 * before its first await (a check for an unpacked browser, then one target per compressed file), so
 * TMPDIR is set for that synchronous part only; the caller checks where the browser landed.
 */
function unpackInto(dir: string, start: () => Promise<string>): Promise<string> {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    return start();
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

/** Its fontconfig file names the temp folder's `fonts` (/tmp/fonts) literally: point it at this folder's. */
async function relocateFonts(staging: string, folder: string): Promise<void> {
  const conf = path.join(staging, 'fonts', 'fonts.conf');
  if (!existsSync(conf)) return;
  const text = await readFile(conf, 'utf8');
  await writeFile(conf, text.replaceAll('/tmp/fonts', path.join(folder, 'fonts')));
}

/** `staging` becomes `folder`: over the empty folder made for it, or another process's complete one wins. */
async function install(staging: string, folder: string, version: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await rename(staging, folder);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || attempt > 0) throw err;
      if (isComplete(folder, version)) return;
      // What a crash left half-written in our own folder: replaced.
      await rm(folder, { recursive: true, force: true });
    }
  }
}

/**
 * On Amazon Linux 2023 (Lambda), @sparticuz/chromium points FONTCONFIG_PATH and LD_LIBRARY_PATH at
 * the temp folder's `fonts` and `al2023/lib` when it is loaded: the browser gets this folder's instead.
 */
function browserEnvIn(folder: string): Record<string, string> {
  const env: Record<string, string> = {};
  const libs = path.join(folder, 'al2023', 'lib');
  // Unpacked for Amazon Linux 2023 (its libraries are there), or FONTCONFIG_PATH left at its default:
  // its fonts are this folder's.
  if (existsSync(libs) || process.env.FONTCONFIG_PATH === path.join(tmpdir(), 'fonts')) env.FONTCONFIG_PATH = path.join(folder, 'fonts');
  if (existsSync(libs)) {
    const others = (process.env.LD_LIBRARY_PATH ?? '').split(':').filter((p) => p && p !== path.join(tmpdir(), 'al2023', 'lib'));
    env.LD_LIBRARY_PATH = [libs, ...others].join(':');
  }
  return env;
}
