/**
 * thumbnail to WebVTT (lib/engines/media/webvtt.ts) on a real 20-second video: the `.vtt` parses, its cues
 * follow each other without gap from 0 to the video's end, every `#xywh` region lies inside its sprite,
 * the tiles are different frames, and the sprites come in the asked format and tile size.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { parseEngineConfig } from '#lib/kernel/config.js';
import type { EngineResult } from '#lib/engines/core/call.js';
import { EngineFailure } from '#lib/engines/core/errors.js';
import { newEngineRegistry } from '#lib/file-api/operations/engines.js';
import { frameInterval, tileSize, videoWebvtt, vttTime, type WebvttArgs } from '#lib/engines/media/webvtt.js';
import { engineCall, type HandCall } from '../support/engine-call.js';
import { engine, requires } from '../support/requires.js';

const media = requires(engine('ffmpeg'));

/** A 20-second 320×180 video whose every frame differs (a moving test pattern with a frame counter). */
function testVideo(seconds = 20): Buffer {
  const ffmpeg = newEngineRegistry(parseEngineConfig(process.env)).installation('ffmpeg').versions[0]!.executable!;
  const dir = mkdtempSync(path.join(tmpdir(), 'fixture-webvtt-'));
  try {
    const out = path.join(dir, 'video.mp4');
    execFileSync(ffmpeg, [
      '-hide_banner', '-loglevel', 'error', '-y',
      '-f', 'lavfi', '-i', `testsrc=s=320x180:r=25:d=${seconds}`,
      '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', '50',
      out,
    ]);
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface ParsedCue {
  start: number;
  end: number;
  url: string;
  xywh: [number, number, number, number];
}

const seconds = (t: string) => {
  const [h, m, s] = t.split(':');
  return Number(h) * 3600 + Number(m) * 60 + Number(s);
};

/** A small WebVTT reader: the header, then blocks of an optional id, a timing line and one payload line. */
function parseVtt(text: string): ParsedCue[] {
  const blocks = text.replace(/\r\n/g, '\n').trim().split(/\n{2,}/);
  expect(blocks.shift()).toMatch(/^WEBVTT(\s|$)/);
  return blocks.map((block) => {
    const lines = block.split('\n');
    const timing = lines.findIndex((l) => l.includes('-->'));
    const match = /^(\d{2}:\d{2}:\d{2}\.\d{3}) --> (\d{2}:\d{2}:\d{2}\.\d{3})$/.exec(lines[timing] ?? '');
    expect(match, block).not.toBeNull();
    const payload = lines.slice(timing + 1);
    expect(payload).toHaveLength(1);
    const [url, fragment] = payload[0]!.split('#');
    const xywh = /^xywh=(\d+),(\d+),(\d+),(\d+)$/.exec(fragment ?? '');
    expect(xywh, payload[0]).not.toBeNull();
    return {
      start: seconds(match![1]!),
      end: seconds(match![2]!),
      url: decodeURIComponent(url!),
      xywh: [Number(xywh![1]), Number(xywh![2]), Number(xywh![3]), Number(xywh![4])],
    };
  });
}

describe('WebVTT arithmetic', () => {
  it('writes cue times as HH:MM:SS.mmm', () => {
    expect(vttTime(0)).toBe('00:00:00.000');
    expect(vttTime(5)).toBe('00:00:05.000');
    expect(vttTime(3723.4567)).toBe('01:02:03.457');
  });

  it('takes the interval asked, else duration / count, else 5 s, never more than 1000 frames', () => {
    expect(frameInterval(20, { interval: 2 })).toBe(2);
    expect(frameInterval(20, { count: 8 })).toBe(2.5);
    expect(frameInterval(20, {})).toBe(5);
    expect(frameInterval(7200, { interval: 1 })).toBe(7.2);
  });

  it('sizes tiles like image thumbnails: 160 px wide by default, aspect kept, never enlarged under max', () => {
    const hd = { width: 1920, height: 1080 };
    expect(tileSize(hd, {})).toMatchObject({ width: 160, height: 90 });
    expect(tileSize(hd, { height: 72 })).toMatchObject({ width: 128, height: 72 });
    expect(tileSize(hd, { width: 200, height: 200 })).toMatchObject({ width: 200, height: 113 });
    expect(tileSize(hd, { width: 100, height: 100, fit: 'crop' })).toMatchObject({ width: 100, height: 100 });
    expect(tileSize(hd, { width: 100, height: 100, fit: 'scale' })).toMatchObject({ width: 100, height: 100 });
    expect(tileSize({ width: 120, height: 90 }, {})).toMatchObject({ width: 120, height: 90 });
  });
});

media.describe('thumbnail to WebVTT', () => {
  let video: Buffer;
  const calls: HandCall<WebvttArgs>[] = [];
  media.beforeAll(() => {
    video = testVideo(20);
  });
  afterAll(() => {
    for (const c of calls) c.remove();
  });

  async function run(payload: WebvttArgs): Promise<{ result: EngineResult; cues: ParsedCue[]; sprites: Map<string, Buffer> }> {
    const c = engineCall<WebvttArgs>('ffmpeg', 'thumbnail', { output_format: 'vtt', ...payload }, [{ filename: 'clip.mp4', data: video, format: 'mp4' }]);
    calls.push(c);
    const result = await videoWebvtt(c.call);
    const [vtt, ...images] = result.files;
    expect(vtt).toMatchObject({ filename: 'clip.vtt', contentType: 'text/vtt' });
    const cues = parseVtt(readFileSync(vtt!.path, 'utf8'));
    const sprites = new Map(images.map((f) => [f.filename, readFileSync(f.path)]));
    return { result, cues, sprites };
  }

  /** Cues follow each other from 0 to the end of the 20 s video; each region lies inside its sprite. */
  async function checkCoverage(cues: ParsedCue[], sprites: Map<string, Buffer>) {
    expect(cues[0]!.start).toBe(0);
    for (let i = 1; i < cues.length; i++) expect(cues[i]!.start).toBeCloseTo(cues[i - 1]!.end, 3);
    for (const cue of cues) expect(cue.end).toBeGreaterThan(cue.start);
    expect(cues.at(-1)!.end).toBeCloseTo(20, 1);
    for (const cue of cues) {
      const sprite = sprites.get(cue.url);
      expect(sprite, `${cue.url} is one of the files`).toBeDefined();
      const { width, height } = await sharp(sprite!).metadata();
      const [x, y, w, h] = cue.xywh;
      expect(x + w).toBeLessThanOrEqual(width!);
      expect(y + h).toBeLessThanOrEqual(height!);
    }
  }

  const tilePixels = (sprite: Buffer, [x, y, w, h]: ParsedCue['xywh']) =>
    sharp(sprite).extract({ left: x, top: y, width: w, height: h }).greyscale().raw().toBuffer();

  it('makes one sprite and cues every 5 s covering the 20 s, each pointing at a different frame', async () => {
    const { cues, sprites } = await run({});
    expect(cues.map((c) => [c.start, c.end])).toEqual([
      [0, 5],
      [5, 10],
      [10, 15],
      [15, 20],
    ]);
    expect([...sprites.keys()]).toEqual(['clip.jpg']);
    await checkCoverage(cues, sprites);
    // 160 px wide tiles of a 16:9 video, four in a row.
    expect(cues.map((c) => c.xywh)).toEqual([
      [0, 0, 160, 90],
      [160, 0, 160, 90],
      [320, 0, 160, 90],
      [480, 0, 160, 90],
    ]);
    const meta = await sharp(sprites.get('clip.jpg')!).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 640, height: 90 });
    // The tiles are the video at different times: no two alike.
    const tiles = await Promise.all(cues.map((c) => tilePixels(sprites.get(c.url)!, c.xywh)));
    for (let i = 0; i < tiles.length; i++) {
      for (let j = i + 1; j < tiles.length; j++) {
        let diff = 0;
        for (let k = 0; k < tiles[i]!.length; k++) diff += Math.abs(tiles[i]![k]! - tiles[j]![k]!);
        expect(diff / tiles[i]!.length, `tiles ${i} and ${j}`).toBeGreaterThan(2);
      }
    }
  });

  it('splits 200 frames into two sprites of 10×10 tiles, in webp, at the asked width', async () => {
    const { cues, sprites } = await run({ interval: 0.1, width: 64, sprite_format: 'webp' });
    expect(cues).toHaveLength(200);
    expect([...sprites.keys()]).toEqual(['clip-1.webp', 'clip-2.webp']);
    for (const sprite of sprites.values()) expect(await sharp(sprite).metadata()).toMatchObject({ format: 'webp', width: 640, height: 360 });
    expect(cues[99]).toMatchObject({ url: 'clip-1.webp', xywh: [576, 324, 64, 36] });
    expect(cues[100]).toMatchObject({ url: 'clip-2.webp', xywh: [0, 0, 64, 36] });
    await checkCoverage(cues, sprites);
  });

  it('takes `count` frames when no interval is given, cropped to the asked box, in png', async () => {
    const { cues, sprites } = await run({ count: 3, width: 50, height: 50, fit: 'crop', sprite_format: 'png' });
    expect(cues.map((c) => c.end)).toEqual([6.667, 13.333, 20]);
    expect(await sharp(sprites.get('clip.png')!).metadata()).toMatchObject({ format: 'png', width: 150, height: 50 });
    await checkCoverage(cues, sprites);
  });

  it('refuses sprites past MAX_IMAGE_PIXELS, naming the limit', async () => {
    const c = engineCall<WebvttArgs>('ffmpeg', 'thumbnail', { output_format: 'vtt', interval: 1, width: 320 }, [{ filename: 'clip.mp4', data: video, format: 'mp4' }], {
      MAX_IMAGE_PIXELS: '100000',
    });
    calls.push(c);
    const err = await videoWebvtt(c.call).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineFailure);
    expect(err).toMatchObject({ code: 'IMAGE_TOO_LARGE', message: expect.stringContaining('100000 pixels') });
  });
});
