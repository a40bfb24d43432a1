/**
 * `video_codec` takes CloudConvert's names, x264 and x265 (what its SDKs and recorded answers send),
 * and the aliases h264 and h265: the file that comes out holds that codec, as ffprobe reads it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { ffprobeExecutable } from '#lib/engines/core/shipped.js';
import { colourVideo } from '../fixtures/engine-fixtures.js';
import { engine, requires } from '../support/requires.js';
import { base64, startEngineHarness, type Harness } from './engines-harness.js';

let h: Harness;
let dir: string;
let video: Buffer;
const ffmpeg = requires(engine('ffmpeg'));

beforeAll(async () => {
  if (!ffmpeg.met) return;
  h = await startEngineHarness();
  dir = mkdtempSync(path.join(tmpdir(), 'video-codecs-'));
  video = colourVideo();
});
afterAll(async () => {
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function codecOf(file: string): Promise<string> {
  const probe = (await ffprobeExecutable(parseEngineConfig(process.env)))!;
  return execFileSync(probe, ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=codec_name', '-of', 'csv=p=0', file], { encoding: 'utf8' }).trim();
}

ffmpeg.describe('video_codec names', () => {
  it.each([
    ['x264', 'h264'],
    ['x265', 'hevc'],
    ['h264', 'h264'],
    ['h265', 'hevc'],
  ])('%s gives a %s stream', async (name, codec) => {
    const t = await h.run({
      clip: base64(video, 'clip.mp4'),
      out: { operation: 'convert', input: 'clip', output_format: 'mkv', video_codec: name, preset: 'ultrafast', width: 64, height: 48 },
    });
    expect(t.out).toMatchObject({ status: 'finished', engine: 'ffmpeg' });
    expect(await codecOf(await h.saveTo(dir, t.out!))).toBe(codec);
  });
});
