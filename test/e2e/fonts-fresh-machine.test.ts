/**
 * Fonts on a fresh machine (no system tool: every tool path points nowhere, as after `npm ci && npm
 * start` alone), through the official `cloudconvert` SDK against the whole platform: TTF → WOFF2 and
 * WOFF2 → OTF (issue 29's acceptance), each output opened by fontkit, and discovery listing the pairs
 * on the fonteditor engine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createFont } from 'fonteditor-core';
import * as fontkit from 'fontkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_VERSIONS } from '#lib/engines/core/catalog.js';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { ADVANCE_A, drawnOtf, FAMILY } from '../fixtures/font-fixtures.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { NO_SYSTEM_TOOLS } from '../support/fresh-machine.js';
import { e2eOutput } from '../support/platform-output.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'fonts-e2e-'));
let platform: Emulator;
let cc: ReturnType<typeof cloudConvertClient>;

beforeAll(async () => {
  platform = await startEmulator({ dataDir, output: e2eOutput, env: { LOG_LEVEL: 'warn', ...NO_SYSTEM_TOOLS } });
  cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
}, 420_000);

afterAll(async () => {
  await platform?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Uploads `bytes` as `filename`, converts it to `to` and returns the task and the exported bytes. */
async function convert(bytes: Buffer, filename: string, to: string) {
  const created = await cc.jobs.create({
    tasks: {
      upload: { operation: 'import/upload' },
      convert: { operation: 'convert', input: 'upload', output_format: to },
      out: { operation: 'export/url', input: 'convert' },
    },
  } as never);
  await cc.tasks.upload(created.tasks.find((t) => t.name === 'upload')!, Readable.from([bytes]), filename, bytes.length);
  const job = await cc.jobs.wait(created.id);
  const task = job.tasks.find((t) => t.name === 'convert') as unknown as Record<string, unknown>;
  expect(task.status, String(task.message)).toBe('finished');
  const url = job.tasks.find((t) => t.name === 'out')!.result!.files![0]!.url!;
  return { task, bytes: Buffer.from(await (await fetch(url)).arrayBuffer()) };
}

describe('fonts on a fresh machine through the cloudconvert SDK', () => {
  it('converts a TTF to WOFF2 and the WOFF2 to an OpenType font that fontkit opens', async () => {
    const ttf = createFont(drawnOtf(), { type: 'otf' }).write({ type: 'ttf', toBuffer: true }) as Buffer;
    const woff2 = await convert(ttf, 'probe.ttf', 'woff2');
    expect(woff2.task).toMatchObject({ engine: 'fonteditor', engine_version: BUNDLED_VERSIONS.fonteditor });
    const read = (bytes: Buffer) => {
      const font = fontkit.create(bytes);
      return { type: font.type, glyphs: font.numGlyphs, family: font.familyName, advanceA: font.glyphForCodePoint(65).advanceWidth };
    };
    expect(read(woff2.bytes)).toEqual({ type: 'WOFF2', glyphs: 4, family: FAMILY, advanceA: ADVANCE_A });
    const otf = await convert(woff2.bytes, 'probe.woff2', 'otf');
    expect(read(otf.bytes)).toEqual({ type: 'TTF', glyphs: 4, family: FAMILY, advanceA: ADVANCE_A });
  }, 120_000);

  it('lists every pair of the five font formats on fonteditor', async () => {
    const res = await fetch(`${platform.baseUrl}/v2/convert/formats?filter[engine]=fonteditor`, { headers: { authorization: `Bearer ${platform.apiKey}` } });
    const { data } = (await res.json()) as { data: Array<{ input_format: string; output_format: string; meta?: { group?: string } }> };
    const pairs = new Set(data.map((row) => `${row.input_format}→${row.output_format}`));
    for (const from of ['ttf', 'otf', 'woff', 'woff2', 'eot']) for (const to of ['ttf', 'otf', 'woff', 'woff2', 'eot']) expect(pairs.has(`${from}→${to}`), `${from}→${to}`).toBe(true);
  });
});
