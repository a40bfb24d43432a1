/**
 * What an installed FFmpeg build writes: its muxers and encoders (`-muxers`, `-encoders`), asked once
 * per executable and kept for the life of the process, and from them the output formats whose muxer
 * and usual encoders it has (media-formats.ts). Detection (catalog.ts) turns these into the engine's
 * `writes:<format>` features, so that a format the build cannot write is absent from discovery and
 * refused at creation rather than failing at run time.
 */
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { GIF_NEEDS, MEDIA_OUTPUTS, needs, writesFeature } from './media-formats.js';

export interface BuildParts {
  muxers: ReadonlySet<string>;
  encoders: ReadonlySet<string>;
}

/**
 * The names of FFmpeg's `-muxers` / `-encoders` listing: after the ` --` line that ends the legend,
 * one per line as `<flags> <name> <description>`; a muxer line may name several (`sdl,sdl2`).
 */
export function parseListing(text: string): Set<string> {
  const names = new Set<string>();
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^\s*-+\s*$/.test(l));
  for (const line of lines.slice(start + 1)) {
    const name = /^\s*[A-Z.]{1,6}\s+(\S+)/.exec(line)?.[1];
    if (name) for (const n of name.split(',')) names.add(n);
  }
  return names;
}

const asked = new Map<string, BuildParts | undefined>();

function listing(executable: string, what: '-muxers' | '-encoders'): string | undefined {
  // A minimal environment, as for every tool run (probe.ts).
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), LANG: 'C.UTF-8' };
  const out = spawnSync(executable, ['-hide_banner', what], { encoding: 'utf8', timeout: 15_000, stdio: ['ignore', 'pipe', 'pipe'], env, maxBuffer: 4 * 1024 * 1024 });
  return out.status === 0 ? out.stdout : undefined;
}

/** The build's muxers and encoders (`undefined` when it does not list them). Synchronous: detection is. */
export function buildParts(executable: string): BuildParts | undefined {
  if (asked.has(executable)) return asked.get(executable);
  let parts: BuildParts | undefined;
  try {
    const muxers = listing(executable, '-muxers');
    const encoders = listing(executable, '-encoders');
    if (muxers && encoders) parts = { muxers: parseListing(muxers), encoders: parseListing(encoders) };
  } catch {
    parts = undefined;
  }
  asked.set(executable, parts);
  return parts;
}

const has = (parts: BuildParts, need: { muxer: string; encoders: Array<readonly string[]> }) =>
  parts.muxers.has(need.muxer) && need.encoders.every((choices) => choices.some((e) => parts.encoders.has(e)));

/** The output formats a build with these parts writes with their usual codecs (animated `gif` included). */
export function writableFormats(parts: BuildParts): string[] {
  const formats = Object.keys(MEDIA_OUTPUTS).filter((format) => has(parts, needs(format)));
  return has(parts, GIF_NEEDS) ? [...formats, 'gif'] : formats;
}

/** The first encoder of `choices` the build has (the build's parts unknown: the first). */
export function encoderOf(executable: string, choices: readonly string[]): string | undefined {
  const parts = buildParts(executable);
  return parts ? choices.find((e) => parts.encoders.has(e)) : choices[0];
}

/** Forgets what was asked (tests). */
export function resetBuildParts(): void {
  asked.clear();
}

/** The engine's `writes:<format>` features for the build at `executable` (media-formats.ts `writesFeature`). */
export const writesFeatures = (executable: string): string[] => {
  const parts = buildParts(executable);
  return parts ? writableFormats(parts).map(writesFeature) : [];
};
