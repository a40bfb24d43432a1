/**
 * What OCR this installation has, without loading any engine (the catalog and request validation use
 * it): the system Tesseract (TESSERACT_PATH) with the languages its tessdata folder holds, and
 * tesseract.js (Tesseract compiled to WebAssembly, an npm package) with the languages of the
 * `@tesseract.js-data/<lang>` packages installed beside it. Nothing is ever downloaded: a language is
 * there when its trained data is on disk. Probed once per process.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findExecutable } from './probe.js';

/** The trained-data packages' scope; each `@tesseract.js-data/<code>` ships `<code>.traineddata.gz`. */
const DATA_SCOPE = '@tesseract.js-data';
/** The folder of the LSTM-only ("best_int") models in those packages, the kind tesseract.js's default engine mode reads. */
export const DATA_FOLDER = '4.0.0_best_int';
/** Trained data that is not a language to recognize: orientation and script detection, the equation model. */
const NOT_LANGUAGES = new Set(['osd', 'equ']);

/** An OCR engine found here. */
export interface OcrInstallation {
  version: string;
  /** The languages it recognizes (Tesseract codes: `eng`, `deu`, `chi_sim`…), sorted. */
  languages: string[];
}

export interface SystemTesseract extends OcrInstallation {
  executable: string;
}

export interface TesseractJs extends OcrInstallation {
  /** tesseract.js's package folder (its `package.json` is what the OCR child loads it from). */
  folder: string;
  /** The folders the child reads: tesseract.js, tesseract.js-core and their dependencies. */
  readOnly: string[];
  /** The trained data of each language: the `.traineddata.gz` file. */
  data: Record<string, string>;
}

// `__filename` in the CommonJS bundles Lambda runs (import.meta is empty there), the module URL under tsx.
const require = createRequire(typeof __filename === 'string' ? __filename : import.meta.url);

const systemFound = new Map<string, SystemTesseract | undefined>();

/** Runs the probe with the minimal environment every tool gets; its stdout and stderr together. */
function ask(executable: string, args: string[]): string | undefined {
  try {
    const out = spawnSync(executable, args, {
      encoding: 'utf8',
      timeout: 15_000,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), LANG: 'C.UTF-8' },
    });
    return out.status === 0 ? `${out.stdout ?? ''}\n${out.stderr ?? ''}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The system Tesseract at `setting` (a name on PATH or a path): its version (`tesseract --version`)
 * and languages (`tesseract --list-langs`), or `undefined` when it is missing, broken or has no
 * language.
 */
export function systemTesseract(setting: string): SystemTesseract | undefined {
  if (systemFound.has(setting)) return systemFound.get(setting);
  let result: SystemTesseract | undefined;
  const executable = findExecutable(setting);
  const version = executable ? /tesseract v?(\d+(?:\.\d+)+)/i.exec(ask(executable, ['--version']) ?? '')?.[1] : undefined;
  if (executable && version) {
    // The first line names the tessdata folder ("List of available languages in "…" (3):"), one code a line after it.
    const listed = (ask(executable, ['--list-langs']) ?? '').split('\n').slice(1);
    const languages = listed.map((l) => l.trim()).filter((l) => /^[A-Za-z0-9_]+$/.test(l) && !NOT_LANGUAGES.has(l));
    if (languages.length) result = { executable, version, languages: [...new Set(languages)].sort() };
  }
  systemFound.set(setting, result);
  return result;
}

let jsFound: { value: TesseractJs | undefined } | undefined;

function packageFolder(name: string, from: NodeJS.Require = require): string | undefined {
  for (const dir of from.resolve.paths(name) ?? []) {
    const folder = path.join(dir, name);
    if (existsSync(path.join(folder, 'package.json'))) return folder;
  }
  return undefined;
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** A package's folder and those of its dependencies, recursively (what a child that loads it must be able to read). */
function closure(name: string, from: NodeJS.Require, seen = new Map<string, string>()): Map<string, string> | undefined {
  const folder = packageFolder(name, from);
  if (!folder) return undefined;
  if (seen.has(folder)) return seen;
  seen.set(folder, name);
  const meta = readJson(path.join(folder, 'package.json'));
  const own = createRequire(path.join(folder, 'package.json'));
  for (const dependency of Object.keys((meta?.dependencies as Record<string, string> | undefined) ?? {})) {
    if (!closure(dependency, own, seen)) return undefined;
  }
  return seen;
}

/**
 * tesseract.js with the languages of the `@tesseract.js-data/*` packages installed, or `undefined`
 * when it (or every language) is missing.
 */
export function tesseractJs(): TesseractJs | undefined {
  if (jsFound) return jsFound.value;
  let value: TesseractJs | undefined;
  const folder = packageFolder('tesseract.js');
  const folders = folder ? closure('tesseract.js', require) : undefined;
  const version = folder ? readJson(path.join(folder, 'package.json'))?.version : undefined;
  if (folder && folders && typeof version === 'string') {
    const data: Record<string, string> = {};
    for (const dir of require.resolve.paths(DATA_SCOPE) ?? []) {
      let codes: string[];
      try {
        codes = readdirSync(path.join(dir, DATA_SCOPE));
      } catch {
        continue;
      }
      for (const code of codes) {
        const file = path.join(dir, DATA_SCOPE, code, DATA_FOLDER, `${code}.traineddata.gz`);
        if (!(code in data) && !NOT_LANGUAGES.has(code) && /^[A-Za-z0-9_]+$/.test(code) && existsSync(file)) data[code] = file;
      }
    }
    const languages = Object.keys(data).sort();
    if (languages.length) value = { version, folder, readOnly: [...folders.keys()], data, languages };
  }
  jsFound = { value };
  return value;
}

/** Forgets what was found (tests that change PATH). */
export function resetOcrProbes(): void {
  systemFound.clear();
  jsFound = undefined;
}
