/**
 * The `command` operation's ImageMagick and GraphicsMagick engines (lib/engines/command/magick*.ts):
 * what the parser accepts and refuses (the 422 at task creation, naming the field), real runs of the
 * system tools on task files (outputs read back by sharp), the policy that refuses a coder even when
 * the parser is bypassed, and detection that does not take any `convert` for ImageMagick.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { CommandArgumentError, parseCommandArguments, runCommand, validateCommand, type CommandArgs } from '#lib/engines/command/command.js';
import { magickPolicy } from '#lib/engines/command/magick.js';
import { imageMagickTool } from '#lib/engines/core/magick-detect.js';
import { resetProbes } from '#lib/engines/core/probe.js';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { command as commandOperation } from '#lib/file-api/operations/command/operation.js';
import { newEngineRegistry } from '#lib/file-api/operations/engines.js';
import { discover } from '#lib/file-api/operations/discovery.js';
import { engineCall, type HandCall } from '../support/engine-call.js';
import { commandOffered, engine, requires } from '../support/requires.js';

const INPUTS = ['import-1'];

function refusal(args: string, command: string, engineName = command === 'gm' ? 'graphicsmagick' : 'imagemagick'): { field: string; message: string } {
  try {
    validateCommand({ engine: engineName, command, arguments: args }, INPUTS);
  } catch (err) {
    expect(err).toBeInstanceOf(CommandArgumentError);
    return err as CommandArgumentError;
  }
  throw new Error(`not refused: ${command} ${args}`);
}

describe('ImageMagick and GraphicsMagick arguments', () => {
  it('pass ordinary work, each file given its coder', () => {
    for (const [command, args] of [
      ['convert', '/input/import-1/a.png -resize 50% -quality 80 /output/b.jpg'],
      ['convert', "-size 64x64 xc:white /input/import-1/a.png -gravity center -composite -colorspace Gray /output/c.png"],
      ['convert', "'(' /input/import-1/a.png -flip ')' /input/import-1/a.png +append -strip /output/d.webp"],
      ['convert', 'png:/input/import-1/photo.data[0] -thumbnail 32x32^ -extent 32x32 -write /output/big.png -blur 0x2 /output/small.gif'],
      ['convert', 'gradient:red-blue label:Hello -append /output/g-%d.png'],
      ['identify', '-format "%w %h %m" /input/import-1/a.png'],
      ['magick', 'identify -verbose /input/import-1/a.tiff'],
      ['gm', 'convert /input/import-1/a.png -resize 10x10 bmp:/output/b.bmp'],
    ] as const) {
      expect(() => validateCommand({ engine: command === 'gm' ? 'graphicsmagick' : 'imagemagick', command, arguments: args }, INPUTS), args).not.toThrow();
    }
    const words = parseCommandArguments('png:/input/import-1/x.data[1] /output/y.jpg', INPUTS, 'convert');
    expect(words).toEqual([
      { kind: 'input', task: 'import-1', file: 'x.data', text: '/input/import-1/x.data', coder: 'PNG', frames: '[1]' },
      { kind: 'output', file: 'y.jpg', text: '/output/y.jpg', coder: 'JPEG' },
    ]);
  });

  it.each([
    ['an MSL script', 'msl:/input/import-1/x.msl /output/x.png'],
    ['an MVG drawing by its extension', '/input/import-1/x.mvg /output/x.png'],
    ['an SVG (it references files)', '/input/import-1/x.svg /output/x.png'],
    ['a @file list', '@/etc/passwd /output/x.png'],
    ['a @file list of a task file', '@/input/import-1/list.txt /output/x.png'],
    ['a label from a file', 'label:@/etc/passwd /output/x.png'],
    ['a caption from a file', 'caption:@notes.txt /output/x.png'],
    ['a text page of a file', 'text:/etc/passwd /output/x.png'],
    ['a URL', 'https://example.com/a.png /output/x.png'],
    ['a url: coder', 'url:http://example.com/a.png /output/x.png'],
    ['an FTP address', 'ftp://example.com/a.png /output/x.png'],
    ['an ephemeral file', 'ephemeral:/input/import-1/a.png /output/x.png'],
    ['a descriptor', 'fd:3 /output/x.png'],
    ['inline data', 'inline:data:image/png;base64,AAAA /output/x.png'],
    ['a pipe', "'|cat /etc/passwd' /output/x.png"],
    ['a system path', '/etc/passwd /output/x.png'],
    ['-write to a path', '/input/import-1/a.png -write /tmp/x.png /output/x.png'],
    ['an unknown option', '/input/import-1/a.png -frobnicate 3 /output/x.png'],
    ['a script', '/input/import-1/a.png -script s.txt /output/x.png'],
    ['a font file', '-font /etc/passwd label:x /output/x.png'],
    ['a drawing', "/input/import-1/a.png -draw 'image over 0,0 0,0 \"/etc/passwd\"' /output/x.png"],
    ['a define', '/input/import-1/a.png -define png:exclude-chunks=all /output/x.png'],
    ['-set (it renames outputs)', '/input/import-1/a.png -set filename:x ../x /output/%[filename:x].png'],
    ['an output in a refused format', '/input/import-1/a.png /output/x.svg'],
    ['an output as MSL', '/input/import-1/a.png msl:/output/x.png'],
    ['an output with a glob', '/input/import-1/a.png /output/x*.png'],
    ['an input file name with a glob', '/input/import-1/*.png /output/x.png'],
    ['a bad geometry', '/input/import-1/a.png -resize /etc/passwd /output/x.png'],
    ['a bad colour', 'xc:@/etc/passwd /output/x.png'],
    ['an unknown pattern', 'pattern:/etc/passwd /output/x.png'],
    ['no output', '/input/import-1/a.png -resize 10x10'],
    ['another input task', '/input/import-2/a.png /output/x.png'],
    ['an unclosed parenthesis', "'(' /input/import-1/a.png /output/x.png"],
  ])('refuses %s at creation, naming arguments', (_what, args) => {
    expect(refusal(args, 'convert').field).toBe('arguments');
    const parsed = commandOperation.schema.safeParse({ engine: 'imagemagick', command: 'convert', arguments: args, input: INPUTS });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['arguments']);
  });

  it('refuses gm batch and mogrify (they read scripts or rewrite inputs), and engine/command mismatches by field', () => {
    expect(refusal('batch cmds.txt', 'gm').field).toBe('arguments');
    expect(refusal('mogrify -resize 10x10 /input/import-1/a.png', 'gm').field).toBe('arguments');
    expect(refusal('/input/import-1/a.png /output/b.png', 'gm', 'imagemagick').field).toBe('command');
    expect(refusal('convert /input/import-1/a.png /output/b.png', 'convert', 'graphicsmagick').field).toBe('command');
    const parsed = commandOperation.schema.safeParse({ engine: 'imagemagick', command: 'ffmpeg', arguments: '-i /input/import-1/a.mp4 /output/b.mp4', input: INPUTS });
    expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['command']);
  });
});

describe('ImageMagick detection', () => {
  it('takes neither a `convert` on PATH (a stand-in, even one that says it is ImageMagick) nor a `magick` that is not ImageMagick', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fake-convert-'));
    writeFileSync(path.join(dir, 'convert'), '#!/bin/sh\necho "Version: ImageMagick 6.9.0-0 (a stand-in)"\n');
    writeFileSync(path.join(dir, 'magick'), '#!/bin/sh\necho "magick: this is not ImageMagick"\n');
    chmodSync(path.join(dir, 'convert'), 0o755);
    chmodSync(path.join(dir, 'magick'), 0o755);
    const saved = process.env.PATH;
    try {
      process.env.PATH = dir;
      resetProbes();
      const found = imageMagickTool(parseEngineConfig({}));
      if ('missing' in found) {
        expect(found.missing).toContain('apt-get install imagemagick');
        expect(found.missing).toContain(path.join(dir, 'magick'));
      } else expect(found.file).toBe('/usr/bin/convert');
      // Named by the setting, a stand-in is still asked what it is.
      expect(imageMagickTool(parseEngineConfig({ MAGICK_PATH: path.join(dir, 'magick') }))).toEqual({ missing: expect.stringContaining('did not answer "Version: ImageMagick"') });
    } finally {
      process.env.PATH = saved;
      resetProbes();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const im = requires(engine('imagemagick'), commandOffered());

requires(engine('imagemagick'), engine('graphicsmagick')).describe('ImageMagick and GraphicsMagick are offered to command only fully confined', () => {
  it('without bubblewrap the engines are found but their arguments are withheld, with the reason', () => {
    const registry = newEngineRegistry(parseEngineConfig({ ...process.env, BWRAP_PATH: '/nonexistent/bwrap' }));
    for (const name of ['imagemagick', 'graphicsmagick']) {
      const installation = registry.installation(name);
      expect(installation.versions.length, name).toBeGreaterThan(0);
      expect(installation.features ?? []).not.toContain('arguments');
      expect(installation.withheld?.arguments).toContain('bubblewrap');
    }
  });
});

requires(engine('imagemagick'), engine('graphicsmagick'), commandOffered()).describe('command in discovery', () => {
  it('lists command on the imagemagick and graphicsmagick engines (ffmpeg is the default row; the others are alternatives, or asked for by engine)', () => {
    const registry = newEngineRegistry(parseEngineConfig(process.env));
    const rows = discover({ 'filter[operation]': 'command', alternatives: 'true' }, { registry });
    expect(new Set(rows.map((r) => r.engine))).toEqual(new Set(['ffmpeg', 'imagemagick', 'graphicsmagick']));
    expect(discover({ 'filter[operation]': 'command', 'filter[engine]': 'graphicsmagick' }, { registry }).length).toBeGreaterThan(0);
  });
});
const gm = requires(engine('graphicsmagick'), commandOffered());

async function png(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 30 } } })
    .png()
    .toBuffer();
}

const calls: HandCall<CommandArgs>[] = [];
afterAll(() => {
  for (const c of calls) c.remove();
});

async function run(engineName: string, payload: CommandArgs, data?: Buffer, filename = 'a.png') {
  const c = engineCall<CommandArgs>(engineName, 'command', payload, [{ filename, data: data ?? (await png(40, 20)), format: 'png', taskName: 'import-1' }]);
  calls.push(c);
  return { c, result: await runCommand(c.call) };
}

im.describe('ImageMagick commands on task files', () => {
  it('convert resizes and writes JPEG and WebP that sharp reads', async () => {
    const { result } = await run('imagemagick', { engine: 'imagemagick', command: 'convert', arguments: '/input/import-1/a.png -resize 50% -write /output/half.jpg -flop /output/half.webp' });
    expect(result.files.map((f) => [f.filename, f.contentType])).toEqual([
      ['half.jpg', 'image/jpeg'],
      ['half.webp', 'image/webp'],
    ]);
    for (const file of result.files) {
      const meta = await sharp(file.path).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual([file.filename.endsWith('jpg') ? 'jpeg' : 'webp', 20, 10]);
    }
  });

  it('generators and composition: a white canvas with the input in its centre', async () => {
    const { result } = await run('imagemagick', { engine: 'imagemagick', command: 'magick', arguments: '-size 100x100 xc:white /input/import-1/a.png -gravity center -composite /output/c.png' });
    const { data, info } = await sharp(result.files[0]!.path).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([100, 100]);
    const at = (x: number, y: number) => [...data.subarray((y * 100 + x) * info.channels, (y * 100 + x) * info.channels + 3)];
    expect(at(2, 2)).toEqual([255, 255, 255]);
    expect(at(50, 50)[0]).toBeGreaterThan(150);
    expect(at(50, 50)[1]).toBeLessThan(80);
  });

  it('identify answers in result.output, with the API’s names', async () => {
    const { c, result } = await run('imagemagick', { engine: 'imagemagick', command: 'identify', arguments: '-format "%w x %h %m\\n" /input/import-1/a.png', capture_output: true });
    expect(result.files).toEqual([]);
    expect(String(result.metadata!.output).trim()).toBe('40 x 20 PNG');
    expect(String(result.metadata!.output)).not.toContain(c.workDir);
  });

  it('magick identify is identify (ImageMagick 7: one executable; 6: the identify beside convert)', async () => {
    const { result } = await run('imagemagick', { engine: 'imagemagick', command: 'magick', arguments: 'identify -format "%w,%h" /input/import-1/a.png', capture_output: true });
    expect(String(result.metadata!.output).trim()).toBe('40,20');
  });

  it('reads a file by the coder its arguments name, not by its bytes: an MVG drawing named a.png is no drawing', async () => {
    const drawing = Buffer.from('push graphic-context\nviewbox 0 0 10 10\nimage over 0,0 0,0 "/etc/passwd"\npop graphic-context\n');
    const err = await run('imagemagick', { engine: 'imagemagick', command: 'convert', arguments: '/input/import-1/a.png /output/x.png' }, drawing).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONVERSION_FAILED' });
    expect((err as Error).message).not.toContain('root:');
  });

  it('the resource limits hold: an image wider than the policy allows is refused by ImageMagick', async () => {
    const err = await run('imagemagick', { engine: 'imagemagick', command: 'convert', arguments: '-size 40000x1 xc:white /output/wide.png' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONVERSION_FAILED', message: expect.stringMatching(/limit|exceeds/i) });
  });
});

im.describe('ImageMagick policy (defence in depth, the parser bypassed)', () => {
  it.each([
    ['msl', 'MSL'],
    ['text', 'TEXT'],
    ['mvg', 'MVG'],
    ['svg', 'SVG'],
  ])('refuses the %s coder that the parser refuses', (coder, name) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'magick-policy-'));
    try {
      mkdirSync(path.join(dir, 'conf'));
      writeFileSync(path.join(dir, 'conf', 'policy.xml'), magickPolicy(parseEngineConfig({})));
      writeFileSync(path.join(dir, 'in.txt'), 'push graphic-context\npop graphic-context\n');
      const tool = imageMagickTool(parseEngineConfig(process.env));
      if ('missing' in tool) throw new Error(tool.missing);
      const args = tool.major >= 7 ? ['convert'] : [];
      // Without our policy the coder is there (the test would prove nothing otherwise).
      const list = spawnSync(tool.file, [...args, '-list', 'format'], { encoding: 'utf8' }).stdout;
      expect(list).toMatch(new RegExp(`^\\s*${name}\\*?\\s`, 'm'));
      const out = spawnSync(tool.file, [...args, `${coder}:${path.join(dir, 'in.txt')}`, path.join(dir, 'out.png')], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', MAGICK_CONFIGURE_PATH: path.join(dir, 'conf') } });
      expect(out.status).not.toBe(0);
      expect(out.stderr).toMatch(/not allowed by the security policy/);
      expect(existsSync(path.join(dir, 'out.png')) ? readFileSync(path.join(dir, 'out.png')).length : 0).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

gm.describe('GraphicsMagick commands on task files', () => {
  it('gm convert writes a BMP and a GIF that sharp reads', async () => {
    const { result } = await run('graphicsmagick', { engine: 'graphicsmagick', command: 'gm', arguments: 'convert /input/import-1/a.png -rotate 90 /output/r.gif' });
    const meta = await sharp(result.files[0]!.path).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['gif', 20, 40]);
  });

  it('gm identify answers in result.output', async () => {
    const { result } = await run('graphicsmagick', { engine: 'graphicsmagick', command: 'gm', arguments: 'identify -format "%w %h" /input/import-1/a.png', capture_output: true });
    expect(String(result.metadata!.output).trim()).toBe('40 20');
  });

  it('the resource limits hold', async () => {
    const err = await run('graphicsmagick', { engine: 'graphicsmagick', command: 'gm', arguments: 'convert -size 40000x1 xc:white /output/wide.png' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONVERSION_FAILED', message: expect.stringMatching(/limit/i) });
  });
});
