/**
 * thumbnail to WebVTT and `command` through the official `cloudconvert` SDK against the whole platform:
 * a 20-second video imported from a local site, its WebVTT thumbnails (cues covering the video, tiles
 * inside their sprites), ffprobe on it with its output captured, and arguments reaching other files or
 * the network refused at creation.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { patternVideo } from '../fixtures/engine-fixtures.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { commandOffered, engine, requires } from '../support/requires.js';
import { e2eOutput } from '../support/platform-output.js';

const media = requires(engine('ffmpeg'));
/** The command operation: offered only fully confined (bubblewrap). */
const commands = requires(engine('ffmpeg'), commandOffered());
const dataDir = mkdtempSync(path.join(tmpdir(), 'media-e2e-'));
let platform: Emulator;
let cc: ReturnType<typeof cloudConvertClient>;
let site: Server;
let videoUrl = '';

const download = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());
const api = (route: string, body: unknown) =>
  fetch(`${platform.baseUrl}${route}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { authorization: `Bearer ${platform.apiKey}`, 'content-type': 'application/json' },
  });

/** `hh:mm:ss.mmm` → seconds. */
const seconds = (t: string) => t.split(':').reduce((sum, part) => sum * 60 + Number(part), 0);

media.beforeAll(async () => {
  const video = patternVideo(20);
  site = createServer((req, res) => {
    if (req.url === '/clip.mp4') return res.writeHead(200, { 'content-type': 'video/mp4' }).end(video);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', () => resolve()));
  const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  videoUrl = `${origin}/clip.mp4`;
  platform = await startEmulator({
    dataDir,
    output: e2eOutput,
    env: { LOG_LEVEL: 'warn', FETCH_ALLOW_HOSTS: new URL(origin).host },
  });
  cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
});

afterAll(async () => {
  await platform?.stop();
  site?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

media.describe('media operations through the SDK', () => {
  it('thumbnail to vtt: cues cover the 20 s video and every #xywh tile lies inside its sprite', async () => {
    const job = await cc.jobs.wait(
      (
        await cc.jobs.create({
          tasks: {
            clip: { operation: 'import/url', url: videoUrl },
            thumbs: { operation: 'thumbnail', input: 'clip', output_format: 'vtt', interval: 2, sprite_format: 'png', width: 80 },
            out: { operation: 'export/url', input: 'thumbs' },
          },
        } as never)
      ).id,
    );
    expect(job.status).toBe('finished');
    expect(job.tasks.find((t) => t.name === 'thumbs')).toMatchObject({ engine: 'ffmpeg' });
    const files = cc.jobs.getExportUrls(job);
    const vttFile = files.find((f) => f.filename.endsWith('.vtt'));
    expect(vttFile?.filename).toBe('clip.vtt');
    const vtt = (await download(vttFile!.url!)).toString('utf8');
    expect(vtt.startsWith('WEBVTT')).toBe(true);

    const cues = [...vtt.matchAll(/^(\d{2}:\d{2}:\d{2}\.\d{3}) --> (\d{2}:\d{2}:\d{2}\.\d{3})\n(\S+)#xywh=(\d+),(\d+),(\d+),(\d+)$/gm)].map((m) => ({
      start: seconds(m[1]!),
      end: seconds(m[2]!),
      sprite: m[3]!,
      x: Number(m[4]),
      y: Number(m[5]),
      w: Number(m[6]),
      h: Number(m[7]),
    }));
    expect(cues).toHaveLength(10);
    expect(cues[0]!.start).toBe(0);
    for (let i = 1; i < cues.length; i++) expect(cues[i]!.start).toBeCloseTo(cues[i - 1]!.end, 3);
    expect(cues.at(-1)!.end).toBeCloseTo(20, 1);

    const sprites = new Map<string, { width: number; height: number }>();
    for (const name of new Set(cues.map((c) => c.sprite))) {
      const file = files.find((f) => f.filename === name);
      expect(file, `sprite ${name} is exported`).toBeDefined();
      const meta = await sharp(await download(file!.url!)).metadata();
      expect(meta.format).toBe('png');
      sprites.set(name, { width: meta.width, height: meta.height });
    }
    for (const cue of cues) {
      const sprite = sprites.get(cue.sprite)!;
      expect(cue.w).toBe(80);
      expect(cue.x + cue.w).toBeLessThanOrEqual(sprite.width);
      expect(cue.y + cue.h).toBeLessThanOrEqual(sprite.height);
    }
  });

  commands.it('command ffprobe on the imported file gives its output back (capture_output)', async () => {
    const job = await cc.jobs.wait(
      (
        await cc.jobs.create({
          tasks: {
            clip: { operation: 'import/url', url: videoUrl },
            probe: {
              operation: 'command',
              input: 'clip',
              engine: 'ffmpeg',
              command: 'ffprobe',
              arguments: '-v error -show_entries format=duration:stream=width,height -of default=noprint_wrappers=1 /input/clip/clip.mp4',
              capture_output: true,
            },
          },
        } as never)
      ).id,
    );
    expect(job.status).toBe('finished');
    const probe = job.tasks.find((t) => t.name === 'probe') as any;
    expect(probe).toMatchObject({ status: 'finished', engine: 'ffmpeg' });
    const output = probe.result.output as string;
    expect(output).toContain('width=320');
    expect(output).toContain('height=180');
    expect(Number(/duration=([\d.]+)/.exec(output)?.[1])).toBeCloseTo(20, 0);
  });

  it('refuses command arguments naming /etc/passwd or http://127.0.0.1/ with 422 on arguments', async () => {
    for (const args of ['-i /etc/passwd -f null -', '-i http://127.0.0.1/ /output/x.mp4']) {
      const res = await api('/v2/jobs', {
        tasks: {
          clip: { operation: 'import/url', url: videoUrl },
          run: { operation: 'command', input: 'clip', engine: 'ffmpeg', command: 'ffmpeg', arguments: args },
        },
      });
      expect(res.status, args).toBe(422);
      const body = (await res.json()) as { errors: Record<string, string[]> };
      expect(Object.keys(body.errors), args).toEqual(['tasks.run.arguments']);
    }
    await expect(cc.tasks.create('command', { engine: 'ffmpeg', command: 'ffprobe', arguments: '/etc/passwd' } as never)).rejects.toThrow();
    const task = await api('/v2/command', { engine: 'ffmpeg', command: 'ffprobe', arguments: 'http://127.0.0.1/' });
    expect(task.status).toBe(422);
    expect(Object.keys(((await task.json()) as { errors: Record<string, string[]> }).errors)).toEqual(['arguments']);
  });
});
