/**
 * ENGINE_MAX_INPUT_BYTES: processing refuses inputs that would not leave room in the work folder
 * (the process function's /tmp) before downloading them, one file or several together, and says
 * which setting holds the limit; inputs within it are processed.
 */
import { readdirSync } from 'node:fs';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jpeg } from '../fixtures/engine-fixtures.js';
import { base64, startEngineHarness, type Harness } from './engines-harness.js';

let h: Harness;
let photo: Buffer;
let pdf: Buffer;
let engineDir: string;

beforeAll(async () => {
  photo = await jpeg(400, 300);
  const doc = await PDFDocument.create();
  const image = await doc.embedJpg(photo);
  doc.addPage([400, 300]).drawImage(image, { x: 0, y: 0 });
  pdf = Buffer.from(await doc.save());
  // Room for one photo or one PDF, not for two.
  h = await startEngineHarness({ ENGINE_MAX_INPUT_BYTES: String(Math.round(Math.max(photo.length, pdf.length) * 1.5)) });
  engineDir = h.config.ENGINE_TMP_DIR;
});
afterAll(async () => {
  await h?.close();
});

describe('ENGINE_MAX_INPUT_BYTES', () => {
  it('processes an input within the limit', async () => {
    const t = await h.run({ photo: base64(photo, 'photo.jpg'), small: { operation: 'thumbnail', input: 'photo', output_format: 'png', width: 50 } });
    expect(t.small).toMatchObject({ status: 'finished' });
  });

  it('refuses one input over the limit with FILE_TOO_LARGE naming the file and the setting, leaving no work folder', async () => {
    const big = await jpeg(1600, 1200);
    const t = await h.run({ photo: base64(big, 'big.jpg'), small: { operation: 'thumbnail', input: 'photo', output_format: 'png', width: 50 } });
    expect(t.small).toMatchObject({ status: 'error', code: 'FILE_TOO_LARGE' });
    expect(t.small!.message).toContain('big.jpg');
    expect(t.small!.message).toContain('ENGINE_MAX_INPUT_BYTES');
    expect(readdirSync(engineDir).filter((n) => !n.startsWith('chrome'))).toEqual([]);
  });

  it('counts every input of a task together: two PDFs that fit alone do not fit one merge', async () => {
    const t = await h.run({
      a: base64(pdf, 'a.pdf'),
      b: base64(pdf, 'b.pdf'),
      one: { operation: 'optimize', input: 'a', engine: 'qpdf' },
      both: { operation: 'merge', input: ['a', 'b'], output_format: 'pdf' },
    });
    expect(t.one).toMatchObject({ status: 'finished' });
    expect(t.both).toMatchObject({ status: 'error', code: 'FILE_TOO_LARGE' });
    expect(t.both!.message).toContain('2 input files');
  });
});
