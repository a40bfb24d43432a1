/**
 * pdf/rotate-pages through the official `cloudconvert` SDK against the whole platform: the pages named
 * turn by the rotation given (their `/Rotate`), the others stay as they were; bad arguments are a 422
 * naming the field.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { textPdf } from '../fixtures/engine-fixtures.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { e2eOutput } from '../support/platform-output.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'rotate-e2e-'));
let platform: Emulator;
let cc: ReturnType<typeof cloudConvertClient>;

beforeAll(async () => {
  platform = await startEmulator({ dataDir, output: e2eOutput, env: { LOG_LEVEL: 'warn' } });
  cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
}, 420_000);

afterAll(async () => {
  await platform?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const rotations = async (bytes: Buffer) => (await PDFDocument.load(bytes)).getPages().map((p) => p.getRotation().angle);

async function rotate(source: Buffer, args: Record<string, unknown>): Promise<Buffer> {
  const created = await cc.jobs.create({
    tasks: {
      in: { operation: 'import/base64', file: source.toString('base64'), filename: 'ten.pdf' },
      turn: { operation: 'pdf/rotate-pages', input: 'in', ...args },
      out: { operation: 'export/url', input: 'turn' },
    },
  } as never);
  const job = await cc.jobs.wait(created.id);
  for (const task of job.tasks) expect(task.status, `${task.name}: ${task.message}`).toBe('finished');
  const [file] = job.tasks.find((t) => t.name === 'out')!.result!.files!;
  return Buffer.from(await (await fetch(file!.url!)).arrayBuffer());
}

describe('pdf/rotate-pages', () => {
  it('turns pages 1 and 3 by 90 degrees and leaves the others', async () => {
    const source = Buffer.from(await textPdf(10));
    expect(await rotations(source)).toEqual(Array(10).fill(0));
    const rotated = await rotate(source, { rotation: 90, pages: '1,3' });
    expect(await rotations(rotated)).toEqual([90, 0, 90, 0, 0, 0, 0, 0, 0, 0]);
  }, 120_000);

  it('turns every page when no pages are given, adding to a rotation a page already has', async () => {
    const doc = await PDFDocument.load(await textPdf(3));
    doc.getPage(1).setRotation({ type: 'degrees', angle: 90 } as never);
    const rotated = await rotate(Buffer.from(await doc.save()), { rotation: 180 });
    expect(await rotations(rotated)).toEqual([180, 270, 180]);
  }, 120_000);

  it('answers 422 naming rotation or pages when they are not what the operation takes', async () => {
    const bad = async (args: Record<string, unknown>) => {
      const response = await fetch(`${platform.baseUrl}/v2/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${platform.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ tasks: { in: { operation: 'import/url', url: 'https://example.com/a.pdf' }, turn: { operation: 'pdf/rotate-pages', input: 'in', ...args } } }),
      });
      expect(response.status).toBe(422);
      return Object.keys(((await response.json()) as { errors: Record<string, unknown> }).errors);
    };
    expect(await bad({ rotation: 45 })).toEqual(['tasks.turn.rotation']);
    expect(await bad({ rotation: 90, pages: 'first' })).toEqual(['tasks.turn.pages']);
  });
});
