/**
 * The system ImageMagick and GraphicsMagick (the `command` operation's engines), found by what they
 * say they are, never by name alone. `MAGICK_PATH` names ImageMagick's executable; otherwise each
 * `magick` (ImageMagick 7) on PATH, then the system's /usr/bin/convert (ImageMagick 6; see
 * SYSTEM_CONVERT) is asked its version, and the first that answers "Version: ImageMagick" is the
 * engine. GraphicsMagick is `gm` (`GM_PATH`), answering "GraphicsMagick".
 */
import path from 'node:path';
import type { EngineConfig } from '../../kernel/config.js';
import { findExecutable, toolVersion } from './probe.js';

/** An installed ImageMagick: its main executable and major version (7: `magick`, 6: `convert` beside `identify` and `composite`). */
export interface MagickTool {
  file: string;
  version: string;
  major: number;
}

/** Every executable called `name` on PATH, in order. */
function allOnPath(name: string): string[] {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  return [...new Set(dirs.map((dir) => findExecutable(path.join(dir, name))).filter((f): f is string => f !== undefined))];
}

/**
 * ImageMagick 6's `convert` where the system packages put it, by absolute path: a `convert` found on
 * PATH may be another program, or a wrapper that passes some calls on to the real one with other
 * arguments (this project's CI machines have such a stand-in in /usr/local/bin).
 */
const SYSTEM_CONVERT = ['/usr/bin/convert'];

const IMAGEMAGICK_VERSION = /Version: ImageMagick (\d+\.\d+\.\d+(?:-\d+)?)/;

/** The system ImageMagick, or why there is none. */
export function imageMagickTool(settings: Pick<EngineConfig, 'MAGICK_PATH'>): MagickTool | { missing: string } {
  const named = settings.MAGICK_PATH ? [settings.MAGICK_PATH] : [...allOnPath('magick'), ...SYSTEM_CONVERT];
  const candidates = named.map((f) => findExecutable(f)).filter((f): f is string => f !== undefined);
  for (const file of candidates) {
    const version = toolVersion(file, ['-version'], IMAGEMAGICK_VERSION);
    if (version) return { file, version, major: Number(version.split('.')[0]) };
  }
  const tried = candidates.length ? ` (${candidates.join(', ')} did not answer "Version: ImageMagick")` : '';
  return { missing: `ImageMagick was not found${tried}; install it (apt-get install imagemagick) or set MAGICK_PATH` };
}

/** The system GraphicsMagick, or why there is none. */
export function graphicsMagickTool(settings: Pick<EngineConfig, 'GM_PATH'>): { file: string; version: string } | { missing: string } {
  const file = findExecutable(settings.GM_PATH);
  const version = file ? toolVersion(file, ['version'], /GraphicsMagick (\d+(?:\.\d+)+)/) : undefined;
  if (file && version) return { file, version };
  const said = file ? ` (${file} did not answer "GraphicsMagick")` : '';
  return { missing: `GraphicsMagick was not found${said}; install it (apt-get install graphicsmagick) or set GM_PATH` };
}

/** For ImageMagick 6: the executable of one of its tools (`identify`, `composite`), beside `convert`. */
export function magickSibling(tool: MagickTool, name: string): string | undefined {
  if (tool.major >= 7 || name === 'convert') return tool.file;
  const file = findExecutable(path.join(path.dirname(tool.file), name));
  return file && toolVersion(file, ['-version'], IMAGEMAGICK_VERSION) ? file : undefined;
}
