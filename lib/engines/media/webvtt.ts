/**
 * thumbnail to WebVTT (`output_format: vtt`): the seek previews video players show above the timeline.
 * One frame every `interval` seconds, scaled to a tile, laid out in sprite images of at most 10×10
 * tiles, and a `.vtt` file whose cues cover the whole video, each pointing at its tile as a media
 * fragment (`thumbnails.jpg#xywh=x,y,w,h`, relative to the `.vtt` itself, so the files are published
 * side by side).
 *
 * One FFmpeg run makes every sprite: `tpad` repeats the last frame (so there is a frame for every cue
 * however the video ends), `fps` takes one frame per interval, `trim` keeps exactly one per cue,
 * `scale` (and `crop`) make the tile, `tile` the sprites (the last one padded black).
 */
import { SPRITE_FORMATS } from '../core/formats.js';
import { mkdir, readdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EngineCall, EngineResult, Produced } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { ffmpeg, inputArgs, probe } from './ffmpeg.js';
import { mimeType } from '../core/formats.js';
import type { ResizeOptions } from '../image/sharp.js';

/** The sprite formats. */
export { SPRITE_FORMATS };
export type SpriteFormat = (typeof SPRITE_FORMATS)[number];

/** Tiles per sprite row and column. */
export const SPRITE_GRID = 10;
/** Frames per video at most: past it, the interval grows (10 sprites of 10×10). */
export const MAX_FRAMES = 1000;
/** Seconds between frames when neither `interval` nor `count` says. */
export const DEFAULT_INTERVAL = 5;
/** The tile width when neither `width` nor `height` says. */
export const DEFAULT_TILE_WIDTH = 160;
/** The shortest interval taken (a frame every 0.1 s is more than any seek preview needs). */
const MIN_INTERVAL = 0.1;

/** What thumbnail to WebVTT reads of a task's arguments. */
export interface WebvttArgs extends ResizeOptions {
  output_format?: string;
  /** Seconds between frames (each cue's length). Default: the duration over `count` when given, else 5 s. */
  interval?: number;
  /** How many frames (cues) when `interval` is not given. */
  count?: number;
  /** The sprite images' format: `jpg` (default), `png` or `webp`. */
  sprite_format?: SpriteFormat;
}

export interface Tile {
  width: number;
  height: number;
  /** The filters making a frame into a tile. */
  filter: string;
}

/** The tile size from the video's frame size and `width`/`height`/`fit` (as the image thumbnails read them). */
export function tileSize(video: { width: number; height: number }, p: ResizeOptions): Tile {
  const fit = p.fit ?? 'max';
  const exact = (width: number, height: number) => ({ width, height, filter: `scale=${width}:${height}` });
  if (p.width !== undefined && p.height !== undefined) {
    if (fit === 'scale') return exact(p.width, p.height);
    if (fit === 'crop') {
      return { width: p.width, height: p.height, filter: `scale=${p.width}:${p.height}:force_original_aspect_ratio=increase,crop=${p.width}:${p.height}` };
    }
  }
  const wanted = p.width === undefined && p.height === undefined ? { width: DEFAULT_TILE_WIDTH } : p;
  let factor = Math.min(wanted.width !== undefined ? wanted.width / video.width : Infinity, wanted.height !== undefined ? wanted.height / video.height : Infinity);
  // `max` never enlarges (the default width does not either: a small video keeps its size).
  if (fit === 'max') factor = Math.min(factor, 1);
  return exact(Math.max(1, Math.round(video.width * factor)), Math.max(1, Math.round(video.height * factor)));
}

/** The seconds between frames for a video of `duration` seconds. */
export function frameInterval(duration: number, p: Pick<WebvttArgs, 'interval' | 'count'>): number {
  const asked = p.interval ?? (p.count ? duration / p.count : DEFAULT_INTERVAL);
  return Math.max(asked, MIN_INTERVAL, duration / MAX_FRAMES);
}

/** `HH:MM:SS.mmm` */
export function vttTime(seconds: number): string {
  const ms = Math.round(seconds * 1000);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}.${pad(ms % 1000, 3)}`;
}

export interface Cue {
  start: number;
  end: number;
  sprite: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The WebVTT text of the cues (sprite names as relative URLs). */
export function webvttText(cues: readonly Cue[]): string {
  const blocks = cues.map(
    (c, i) => `${i + 1}\n${vttTime(c.start)} --> ${vttTime(c.end)}\n${encodeURIComponent(c.sprite)}#xywh=${c.x},${c.y},${c.width},${c.height}\n`,
  );
  return `WEBVTT\n\n${blocks.join('\n')}`;
}

const ENCODER_ARGS: Record<SpriteFormat, string[]> = {
  jpg: ['-c:v', 'mjpeg', '-q:v', '4', '-pix_fmt', 'yuvj444p'],
  png: ['-c:v', 'png'],
  webp: ['-c:v', 'libwebp', '-quality', '80'],
};

/** thumbnail to vtt: sprites of frames every `interval` seconds and the `.vtt` pointing into them. */
export async function videoWebvtt(call: EngineCall<WebvttArgs>): Promise<EngineResult> {
  const [input] = call.inputs;
  const p = call.payload;
  const format: SpriteFormat = p.sprite_format ?? 'jpg';
  if (!SPRITE_FORMATS.includes(format)) throw new EngineFailure('UNSUPPORTED_FORMAT', `sprite_format must be one of ${SPRITE_FORMATS.join(', ')}.`);
  const info = await probe(call, input!.path, input!.format);
  if (!info.width || !info.height) throw new EngineFailure('INVALID_INPUT', `${input!.filename} has no video stream.`);
  if (!(info.duration > 0)) throw new EngineFailure('INVALID_INPUT', `${input!.filename} does not say how long it is; WebVTT thumbnails need its duration.`);

  const duration = info.duration;
  const interval = frameInterval(duration, p);
  const frames = Math.max(1, Math.ceil(duration / interval - 1e-9));
  const tile = tileSize({ width: info.width, height: info.height }, p);
  const columns = Math.min(SPRITE_GRID, frames);
  const rows = Math.min(SPRITE_GRID, Math.ceil(frames / columns));
  const perSprite = columns * rows;
  const sprites = Math.ceil(frames / perSprite);
  if (columns * tile.width * rows * tile.height > call.config.MAX_IMAGE_PIXELS) {
    throw new EngineFailure(
      'IMAGE_TOO_LARGE',
      `A sprite of ${columns}×${rows} tiles of ${tile.width}×${tile.height} pixels is past the limit of ${call.config.MAX_IMAGE_PIXELS} pixels; ask for a smaller width or height.`,
    );
  }

  const [vttName] = call.names('vtt', 1);
  const stem = vttName!.replace(/\.vtt$/i, '') || 'thumbnails';
  const spriteNames = Array.from({ length: sprites }, (_, i) => (sprites === 1 ? `${stem}.${format}` : `${stem}-${i + 1}.${format}`));

  const work = path.join(call.dir, 'sprites');
  await mkdir(work, { recursive: true });
  const rate = `1000/${Math.round(interval * 1000)}`;
  const filters = [`tpad=stop_mode=clone:stop_duration=${(interval * 2).toFixed(3)}`, `fps=${rate}`, `trim=end_frame=${frames}`, tile.filter, `tile=${columns}x${rows}`];
  await ffmpeg(call, [
    ...inputArgs(input!.path, input!.format),
    '-an',
    '-sn',
    '-dn',
    '-vf',
    filters.join(','),
    ...ENCODER_ARGS[format],
    '-frames:v',
    String(sprites),
    path.join(work, `sprite-%04d.${format}`),
  ]);
  const made = (await readdir(work)).filter((n) => n.startsWith('sprite-')).sort();
  if (made.length !== sprites) throw new EngineFailure('CONVERSION_FAILED', `FFmpeg made ${made.length} of ${sprites} thumbnail sprites of ${input!.filename}.`);

  const produced: Produced[] = [];
  const vttPath = call.output(vttName!);
  const cues: Cue[] = Array.from({ length: frames }, (_, k) => {
    const at = k % perSprite;
    return {
      start: k * interval,
      end: k === frames - 1 ? duration : (k + 1) * interval,
      sprite: spriteNames[Math.floor(k / perSprite)]!,
      x: (at % columns) * tile.width,
      y: Math.floor(at / columns) * tile.height,
      width: tile.width,
      height: tile.height,
    };
  });
  await writeFile(vttPath, webvttText(cues));
  produced.push({ path: vttPath, filename: vttName!, contentType: 'text/vtt' });
  for (const [i, name] of spriteNames.entries()) {
    const out = call.output(name);
    await rename(path.join(work, made[i]!), out);
    produced.push({ path: out, filename: name, contentType: mimeType(format) });
  }
  return { files: produced };
}
