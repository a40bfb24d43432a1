/**
 * What this installation has: executables found on PATH (or at a configured path) and their versions.
 * Probes never throw: a missing or broken tool is `undefined`, which makes its engine "not
 * available". Results are kept for the life of the process (a warm function instance).
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const found = new Map<string, string | undefined>();

/** The absolute path of an executable given by name (searched on PATH) or path, if it is there. */
export function findExecutable(nameOrPath: string, searchPath = process.env.PATH ?? ''): string | undefined {
  const key = `${nameOrPath}\0${searchPath}`;
  if (found.has(key)) return found.get(key);
  const candidates = nameOrPath.includes('/')
    ? [path.resolve(nameOrPath)]
    : searchPath
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, nameOrPath));
  let result: string | undefined;
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      result = candidate;
      break;
    } catch {
      // not here
    }
  }
  found.set(key, result);
  return result;
}

/** The real location of an executable (symlinks resolved), e.g. to find a program's own folder. */
export function realLocation(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

const versions = new Map<string, string | undefined>();

/**
 * Runs `command args` once (15 s at most: `soffice --version` alone takes 2–3 s on a busy machine) and picks the version out of its output with `pattern`
 * (first group). Synchronous on purpose: request validation is synchronous, and it runs once per
 * tool per process.
 */
export function toolVersion(command: string, args: string[], pattern: RegExp): string | undefined {
  const key = `${command}\0${args.join(' ')}`;
  if (versions.has(key)) return versions.get(key);
  let version: string | undefined;
  try {
    // A minimal environment, as for every tool run: no credential of this process reaches a tool.
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), LANG: 'C.UTF-8' };
    const out = spawnSync(command, args, { encoding: 'utf8', timeout: 15_000, stdio: ['ignore', 'pipe', 'pipe'], env });
    version = pattern.exec(`${out.stdout ?? ''}\n${out.stderr ?? ''}`)?.[1];
  } catch {
    version = undefined;
  }
  versions.set(key, version);
  return version;
}

/** Forgets what was probed (tests that change PATH or settings). */
export function resetProbes(): void {
  found.clear();
  versions.clear();
}
