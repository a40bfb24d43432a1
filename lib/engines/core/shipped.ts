/**
 * Engines shipped inside npm packages, the fallback when the system tool is absent (a fresh machine
 * after `npm ci`, a Lambda zip): static FFmpeg and ffprobe builds, and Ghostscript and qpdf compiled to
 * WebAssembly. Nothing here downloads anything: the files are in node_modules (or the function's zip,
 * where these packages are installed as externals, see scripts/serverless-lambda-package.cjs).
 *
 * Found once per process; a package that is not installed (another platform, a zip without it) is
 * simply absent.
 */
import { accessSync, chmodSync, constants, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findExecutable } from './probe.js';
import { unpackedBinary, type PackedBinary } from './unpack.js';

/** A file of an installed npm package, with the package's folder and version. */
export interface ShippedFile {
  file: string;
  folder: string;
  version: string;
  /** What the package says about the build (FFmpeg's build date and commit). */
  build?: string;
  /** Shipped compressed (a Lambda zip, scripts/serverless-packed-binaries.cjs): `file` exists once `runnableFile` has unpacked it. */
  packed?: PackedBinary;
}

/** The file to run of a shipped binary: unpacked first when it is shipped compressed. */
export const runnableFile = (shipped: ShippedFile): Promise<string> => (shipped.packed ? unpackedBinary(shipped.packed) : Promise.resolve(shipped.file));

// `__filename` in the CommonJS bundles Lambda runs (import.meta is empty there), the module URL under tsx.
const require = createRequire(typeof __filename === 'string' ? __filename : import.meta.url);

function packageFolder(name: string, entry = 'package.json'): string | undefined {
  try {
    const resolved = require.resolve(`${name}/${entry}`);
    // The package's root: the folder of `name` under node_modules.
    const marker = `${path.sep}node_modules${path.sep}${name.split('/').join(path.sep)}`;
    const at = resolved.lastIndexOf(marker);
    return at >= 0 ? resolved.slice(0, at + marker.length) : path.dirname(resolved);
  } catch {
    return undefined;
  }
}

function readPackage(folder: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

const found = new Map<string, ShippedFile | undefined>();

/**
 * A runnable copy of a binary the package ships. The package's own file when this process may run
 * it; otherwise (npm packs ffprobe without the execute bit for others, and a Lambda runs as another
 * user than the one that unzipped it) a copy with mode 0755 in a folder of this user under the OS
 * temp folder, made once and reused by later processes when it has the same size.
 */
function runnable(file: string, name: string, version: string): string | undefined {
  try {
    accessSync(file, constants.X_OK);
    return file;
  } catch {
    // copied below
  }
  try {
    const dir = toolsFolder(name, version);
    const copy = path.join(dir, path.basename(file));
    if (existsSync(copy) && statSync(copy).size === statSync(file).size) {
      accessSync(copy, constants.X_OK);
      return copy;
    }
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const partial = `${copy}.${process.pid}.partial`;
    copyFileSync(file, partial);
    chmodSync(partial, 0o755);
    renameSync(partial, copy);
    return copy;
  } catch {
    return undefined;
  }
}

/** Where this user's runnable copies of a package's binaries go. */
function toolsFolder(name: string, version: string): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  return path.join(tmpdir(), `engine-tools-${uid}`, `${name.replace(/[^\w.-]+/g, '_')}-${version}`);
}

/** The binary `binary` of the package `name` (e.g. `@ffmpeg-installer/linux-x64`), runnable, if it is installed. */
export function shippedBinary(name: string, binary: string, buildField?: string): ShippedFile | undefined {
  const key = `bin\0${name}\0${binary}`;
  if (found.has(key)) return found.get(key);
  let result: ShippedFile | undefined;
  const folder = packageFolder(name);
  const meta = folder ? readPackage(folder) : undefined;
  const source = folder ? path.join(folder, binary) : undefined;
  if (folder && meta && source && existsSync(source)) {
    const version = String(meta.version ?? '0');
    const file = runnable(source, name, version);
    if (file) result = { file, folder: path.dirname(file), version, build: buildField ? String(meta[buildField] ?? '') || undefined : undefined };
  } else if (folder && meta && source && existsSync(`${source}.br`) && existsSync(`${source}.sha256`)) {
    const version = String(meta.version ?? '0');
    const file = path.join(toolsFolder(name, version), binary);
    const packed = { source: `${source}.br`, digestFile: `${source}.sha256`, file };
    result = { file, folder: path.dirname(file), version, build: buildField ? String(meta[buildField] ?? '') || undefined : undefined, packed };
  }
  found.set(key, result);
  return result;
}

/** The platform package of a static FFmpeg/ffprobe build for this machine (Linux x64 is the one the service ships). */
export const platformPackage = (tool: 'ffmpeg' | 'ffprobe') => `@${tool}-installer/${process.platform}-${process.arch}`;

/** A WebAssembly engine's loader module (its `.wasm` beside it), if the package is installed. */
export function shippedModule(name: string, entry: string, version: string): ShippedFile | undefined {
  const key = `wasm\0${name}\0${entry}`;
  if (found.has(key)) return found.get(key);
  let result: ShippedFile | undefined;
  const folder = packageFolder(name, entry);
  try {
    const file = require.resolve(`${name}/${entry}`);
    if (folder && existsSync(file)) result = { file, folder, version };
  } catch {
    // not installed
  }
  found.set(key, result);
  return result;
}

/** Forgets what was found (tests). */
export function resetShipped(): void {
  found.clear();
}

/** The static FFmpeg of @ffmpeg-installer for this platform. */
export const shippedFfmpeg = () => shippedBinary(platformPackage('ffmpeg'), 'ffmpeg', 'ffmpeg');
/** The static ffprobe of @ffprobe-installer for this platform. */
export const shippedFfprobe = () => shippedBinary(platformPackage('ffprobe'), 'ffprobe', 'ffprobe');
/**
 * The binaries this process unpacks from its zip on their first use (none outside a Lambda zip): an
 * engine function's reaper leaves them in /tmp for its next task, which checks each against its digest
 * before it runs it (unpack.ts).
 */
export const unpackedTools = (): string[] => [shippedFfprobe()?.packed?.file].filter((file): file is string => Boolean(file));
/** Ghostscript compiled to WebAssembly (@okathira/ghostpdl-wasm). */
export const ghostscriptWasm = () => shippedModule('@okathira/ghostpdl-wasm', 'gs.js', '10.06.0');
/** 7-Zip compiled to WebAssembly (7z-wasm 1.2.0 is 7-Zip 24.09): the archive engine. */
export const sevenZipWasm = () => shippedModule('7z-wasm', '7zz.es6.js', '24.09');
/** qpdf compiled to WebAssembly (@neslinesli93/qpdf-wasm). */
export const qpdfWasm = () => shippedModule('@neslinesli93/qpdf-wasm', 'dist/qpdf.js', '12.2.0');
/** ImageMagick compiled to WebAssembly (@imagemagick/magick-wasm): its 32-bit build (the 64-bit one needs memory64, which Node 20 lacks), its ES module in `folder`/dist. */
export const imagemagickWasm = () => shippedModule('@imagemagick/magick-wasm', 'magick.wasm', '7.1.2-30');

/** ExifTool in WebAssembly: the loader of @uswriting/exiftool and the zeroperl runtime it runs on. */
export interface ExiftoolModule extends ShippedFile {
  /** zeroperl's ES module (its zeroperl.wasm beside it). */
  runtime: string;
}

/**
 * ExifTool compiled to WebAssembly (@uswriting/exiftool on @6over3/zeroperl-ts), if installed. Their ES
 * module builds: zeroperl's CommonJS build looks for its .wasm at its build machine's path, so only the
 * `dist/esm` copies are used (and packed).
 */
export function exiftoolWasm(): ExiftoolModule | undefined {
  const key = 'wasm\0@uswriting/exiftool';
  if (found.has(key)) return found.get(key) as ExiftoolModule | undefined;
  let result: ExiftoolModule | undefined;
  // Found by folder: both packages export only entry points, and a package's CommonJS files may be
  // left out of a function's zip (serverless.yml).
  const folder = installedFolder('@uswriting/exiftool', require);
  const runtimeFolder = folder ? installedFolder('@6over3/zeroperl-ts', createRequire(path.join(folder, 'package.json'))) : undefined;
  if (folder && runtimeFolder) {
    const file = path.join(folder, 'dist', 'esm', 'index.js');
    const runtime = path.join(runtimeFolder, 'dist', 'esm', 'index.js');
    if (existsSync(file) && existsSync(runtime) && existsSync(path.join(runtimeFolder, 'dist', 'esm', 'zeroperl.wasm'))) {
      result = { file, folder, version: String(readPackage(folder)?.version ?? '0'), runtime };
    }
  }
  found.set(key, result);
  return result;
}

/** The folder of the package `name` as `from` would find it (the nearest node_modules holding it). */
function installedFolder(name: string, from: NodeJS.Require): string | undefined {
  for (const dir of from.resolve.paths(name) ?? []) {
    const folder = path.join(dir, name);
    if (existsSync(path.join(folder, 'package.json'))) return folder;
  }
  return undefined;
}

/** Whether there is an ffprobe to run: the system one (FFPROBE_PATH), or the shipped build. */
export function ffprobeFound(settings: { FFPROBE_PATH: string; SHIPPED_ENGINES: boolean }): boolean {
  return Boolean(findExecutable(settings.FFPROBE_PATH) ?? (settings.SHIPPED_ENGINES ? shippedFfprobe() : undefined));
}

/** The ffprobe to run: the system one (FFPROBE_PATH) when present, else the shipped build (unpacked on first use in a Lambda zip). */
export async function ffprobeExecutable(settings: { FFPROBE_PATH: string; SHIPPED_ENGINES: boolean }): Promise<string | undefined> {
  const system = findExecutable(settings.FFPROBE_PATH);
  if (system) return system;
  const shipped = settings.SHIPPED_ENGINES ? shippedFfprobe() : undefined;
  return shipped && runnableFile(shipped);
}

/** The qpdf to run: the system one (QPDF_PATH) when present, else the WebAssembly build. */
export type QpdfTool = { variant: 'system'; file: string } | { variant: 'wasm'; file: string; module: ShippedFile };

export function qpdfTool(settings: { QPDF_PATH: string; SHIPPED_ENGINES: boolean }): QpdfTool | undefined {
  const system = findExecutable(settings.QPDF_PATH);
  if (system) return { variant: 'system', file: system };
  const wasm = settings.SHIPPED_ENGINES ? qpdfWasm() : undefined;
  return wasm ? { variant: 'wasm', file: wasm.file, module: wasm } : undefined;
}
