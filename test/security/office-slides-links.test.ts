/**
 * Presentations and drawings follow none of their links (issue 30's Links acceptance for PPTX): a
 * picture linked to a loopback URL is not fetched and one linked to a file outside the task folder is
 * not embedded, with LibreOffice fully confined (bubblewrap) and where only the platform confines it
 * (Lambda: the links are removed before LibreOffice opens the file, office-links.ts and slides-links.ts).
 * Without either, LibreOffice 7.4 fetches the loopback picture and embeds both (checked by hand).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TaskRecord } from '#lib/file-api/records/model.js';
import { pptxLinkingImages, svg } from '../fixtures/slides-fixtures.js';
import { pdfImageCount } from '../support/pdf-images.js';
import { pdfText } from '../support/pdf-text.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { requires, tool } from '../support/requires.js';
import { base64, startEngineHarness, type Harness } from '../integration/engines-harness.js';

const confinedOffice = requires(tool('soffice'), tool('bwrap'));
const office = requires(tool('soffice'));

let receiver: Receiver;
let secretDir: string;
let secretPng: string;
beforeAll(async () => {
  receiver = await startReceiver();
  secretDir = mkdtempSync(path.join(tmpdir(), 'slides-secret-'));
  secretPng = path.join(secretDir, 'secret.png');
  writeFileSync(secretPng, await sharp({ create: { width: 64, height: 64, channels: 3, background: '#ff00ff' } }).png().toBuffer());
});
afterAll(async () => {
  await receiver?.close();
  rmSync(secretDir, { recursive: true, force: true });
});

const seen = (prefix: string) => receiver.requests.filter((r) => r.path.startsWith(prefix)).map((r) => r.path);

/** An SVG drawing pictures from the loopback and from the secret file, by href and by xlink:href. */
const linkedSvg = (prefix: string) =>
  svg(
    'After the links',
    `<image x="10" y="10" width="64" height="64" href="${receiver.url}${prefix}image.png"/><image x="100" y="10" width="64" height="64" xlink:href="file://${secretPng}"/>` +
      `<image x="200" y="10" width="64" height="64" xlink:href="${receiver.url}${prefix}xlink.png"/>`,
  );

/** A presentation and drawings with links to the loopback (under `prefix`) and to the secret file. */
const linkedInputs = async (prefix: string) => ({
  pptx: base64(await pptxLinkingImages(['After the links'], [`${receiver.url}${prefix}pptx.png`, `file://${secretPng}`]), 'linked.pptx'),
  pptxPdf: { operation: 'convert', input: 'pptx', output_format: 'pdf' },
  pptxPng: { operation: 'convert', input: 'pptx', output_format: 'png' },
  svg: base64(linkedSvg(prefix), 'linked.svg'),
  svgPdf: { operation: 'convert', input: 'svg', output_format: 'pdf', engine: 'libreoffice' },
});

/** A PDF made from a linked document: nothing fetched, no picture in it, its text there. */
async function expectNothingLinked(h: Harness, task: TaskRecord, prefix: string) {
  expect(task, JSON.stringify({ status: task.status, message: task.message })).toMatchObject({ status: 'finished', engine: 'libreoffice' });
  expect(seen(prefix)).toEqual([]);
  const pdf = await h.file(task);
  expect(await pdfImageCount(pdf)).toBe(0);
  expect(await pdfText(pdf)).toContain('After the links');
}

confinedOffice.describe('Impress and Draw fully confined follow no link', () => {
  let h: Harness;
  let t: Record<string, TaskRecord>;
  confinedOffice.beforeAll(async () => {
    h = await startEngineHarness();
    t = await h.run(await linkedInputs('/confined/'));
  }, 600_000);
  afterAll(async () => {
    await h?.close();
  });

  it('PPTX: external picture relationships to the loopback and to file:// are neither fetched nor embedded', async () => {
    await expectNothingLinked(h, t.pptxPdf!, '/confined/');
  });

  it('PPTX to PNG: nothing fetched, and no magenta from the secret picture in the slide', async () => {
    const task = t.pptxPng!;
    expect(task.status, task.message ?? '').toBe('finished');
    expect(seen('/confined/')).toEqual([]);
    const { data, info } = await sharp(await h.file(task)).raw().toBuffer({ resolveWithObject: true });
    let magenta = 0;
    for (let i = 0; i < data.length; i += info.channels) if (data[i]! > 240 && data[i + 1]! < 20 && data[i + 2]! > 240) magenta++;
    expect(magenta).toBe(0);
  });

  it('SVG: <image> sources on the loopback and file:// are neither fetched nor embedded', async () => {
    await expectNothingLinked(h, t.svgPdf!, '/confined/');
  });
});

office.describe('Impress and Draw where only the platform confines LibreOffice (ENGINE_CONFINEMENT=platform)', () => {
  let h: Harness;
  let t: Record<string, TaskRecord>;
  office.beforeAll(async () => {
    h = await startEngineHarness({ ENGINE_CONFINEMENT: 'platform' });
    t = await h.run({
      ...(await linkedInputs('/platform/')),
      // Flat XML under a metafile's name: LibreOffice would read it by its content.
      fake: base64(linkedSvg('/fake/'), 'picture.emf'),
      fakePng: { operation: 'convert', input: 'fake', output_format: 'png', engine: 'libreoffice' },
    });
  }, 600_000);
  afterAll(async () => {
    await h?.close();
  });

  it('PPTX: the external relationships are removed before LibreOffice opens it', async () => {
    await expectNothingLinked(h, t.pptxPdf!, '/platform/');
  });

  it('SVG is refused there (its links cannot be removed with confidence), with a clear error', () => {
    expect(t.svgPdf).toMatchObject({ status: 'error', code: 'INVALID_INPUT' });
    expect(t.svgPdf!.message).toMatch(/fully confined/);
    expect(seen('/platform/')).toEqual([]);
  });

  it('a file named like a metafile that is something else is refused', () => {
    expect(t.fakePng).toMatchObject({ status: 'error', code: 'INVALID_INPUT' });
    expect(seen('/fake/')).toEqual([]);
  });
});
