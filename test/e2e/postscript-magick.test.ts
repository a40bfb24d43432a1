/**
 * Through the official `cloudconvert` SDK against the whole platform: an EPS drawn in the test
 * converted to PNG (read by sharp), a PDF to PS, ImageMagick's `convert` as a `command` task (output
 * read by sharp), and ImageMagick arguments reaching other files refused with a 422 on `arguments`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { commandOffered, engine, requires } from '../support/requires.js';
import { e2eOutput } from '../support/platform-output.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'postscript-e2e-'));
let platform: Emulator;
let cc: ReturnType<typeof cloudConvertClient>;
const imagemagick = requires(engine('imagemagick'), commandOffered());

const EPS = '%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 120 60\n1 0 0 setrgbcolor 0 0 moveto 120 0 lineto 120 60 lineto 0 60 lineto closepath fill\nshowpage\n';
const base64 = (data: string | Buffer) => Buffer.from(data).toString('base64');
const download = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());

beforeAll(async () => {
  platform = await startEmulator({ dataDir, output: e2eOutput, env: { LOG_LEVEL: 'warn' } });
  cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function run(tasks: Record<string, unknown>) {
  const job = await cc.jobs.wait((await cc.jobs.create({ tasks } as never)).id);
  const files = cc.jobs.getExportUrls(job);
  return { job, files };
}

it('EPS to PNG on Ghostscript, at the density asked', async () => {
  const { job, files } = await run({
    eps: { operation: 'import/base64', file: base64(EPS), filename: 'box.eps' },
    png: { operation: 'convert', input: 'eps', output_format: 'png', density: 144 },
    out: { operation: 'export/url', input: 'png' },
  });
  expect(job.status).toBe('finished');
  expect(job.tasks.find((t) => t.name === 'png')).toMatchObject({ engine: 'ghostscript' });
  const { data, info } = await sharp(await download(files[0]!.url!)).raw().toBuffer({ resolveWithObject: true });
  expect([info.width, info.height]).toEqual([240, 120]);
  expect([data[0]! > 200, data[1]! < 60]).toEqual([true, true]);
}, 120_000);

imagemagick.it('command with ImageMagick convert: the output is an image sharp reads', async () => {
  const png = await sharp({ create: { width: 64, height: 32, channels: 3, background: '#00ff00' } }).png().toBuffer();
  const { job, files } = await run({
    img: { operation: 'import/base64', file: base64(png), filename: 'in.png' },
    cmd: { operation: 'command', input: 'img', engine: 'imagemagick', command: 'convert', arguments: '/input/img/in.png -resize 50% -rotate 90 /output/small.jpg' },
    out: { operation: 'export/url', input: 'cmd' },
  });
  expect(job.status).toBe('finished');
  expect(job.tasks.find((t) => t.name === 'cmd')).toMatchObject({ engine: 'imagemagick' });
  const meta = await sharp(await download(files[0]!.url!)).metadata();
  expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 16, 32]);
}, 120_000);

imagemagick.it('refuses ImageMagick arguments that reach other files with 422 on arguments', async () => {
  for (const args of ['msl:/input/img/in.png /output/x.png', '@/etc/passwd /output/x.png', '/input/img/in.png -write /tmp/x.png /output/x.png']) {
    const res = await fetch(`${platform.baseUrl}/v2/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        tasks: {
          img: { operation: 'import/base64', file: base64('x'), filename: 'in.png' },
          cmd: { operation: 'command', input: 'img', engine: 'imagemagick', command: 'convert', arguments: args },
        },
      }),
    });
    expect(res.status, args).toBe(422);
    expect(Object.keys(((await res.json()) as { errors: Record<string, string[]> }).errors), args).toEqual(['tasks.cmd.arguments']);
  }
}, 120_000);
