/**
 * SVG → PDF as vectors (issue 30's vector family): Draw where LibreOffice is installed (the default
 * then), Chromium on a fresh machine; never pdf-lib's picture of the drawing. A vector PDF holds the
 * drawing's text and no image.
 */
import { PDFDocument } from 'pdf-lib';
import { afterAll, expect } from 'vitest';
import { closeBrowser } from '#lib/engines/chrome/browser.js';
import type { TaskRecord } from '#lib/file-api/records/model.js';
import { svg } from '../fixtures/slides-fixtures.js';
import { pdfImageCount } from '../support/pdf-images.js';
import { pdfText } from '../support/pdf-text.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { engine, requires, tool } from '../support/requires.js';
import { base64, startEngineHarness, type Harness } from './engines-harness.js';

const chrome = requires(engine('chrome'));
const office = requires(tool('soffice'), engine('libreoffice'));

let h: Harness;
let receiver: Receiver;
afterAll(async () => {
  await h?.close();
  await receiver?.close();
  await closeBrowser();
});

async function run(tasks: Record<string, Record<string, unknown>>): Promise<Record<string, TaskRecord>> {
  h ??= await startEngineHarness();
  receiver ??= await startReceiver();
  return h.run(tasks);
}

async function expectVectorPdf(task: TaskRecord, engineName: string) {
  expect(task, JSON.stringify({ status: task.status, message: task.message })).toMatchObject({ status: 'finished', engine: engineName });
  const pdf = await h.file(task);
  const doc = await PDFDocument.load(pdf);
  expect(doc.getPageCount()).toBe(1);
  // 400 × 200 CSS pixels is 300 × 150 points.
  const { width, height } = doc.getPage(0).getSize();
  expect(Math.abs(width - 300)).toBeLessThan(3);
  expect(Math.abs(height - 150)).toBeLessThan(3);
  expect(await pdfImageCount(pdf)).toBe(0);
  expect(await pdfText(pdf)).toContain('Vector drawing words');
}

office.it('svg → pdf goes to Draw by default where LibreOffice is installed', async () => {
  const t = await run({ in: base64(svg('Vector drawing words'), 'drawing.svg'), pdf: { operation: 'convert', input: 'in', output_format: 'pdf' } });
  await expectVectorPdf(t.pdf!, 'libreoffice');
}, 300_000);

chrome.it('svg → pdf on Chromium: one page of the drawing’s size, as vectors; nothing it links to is fetched', async () => {
  const t = await run({ in: base64(svg('Vector drawing words'), 'drawing.svg'), pdf: { operation: 'convert', input: 'in', output_format: 'pdf', engine: 'chrome' } });
  await expectVectorPdf(t.pdf!, 'chrome');
  const linked = await run({
    in: base64(svg('Linked drawing words', `<image x="0" y="0" width="50" height="50" href="${receiver.url}/svg/x.png"/><image x="60" y="0" width="50" height="50" xlink:href="${receiver.url}/svg/y.png"/>`), 'linked.svg'),
    pdf: { operation: 'convert', input: 'in', output_format: 'pdf', engine: 'chrome' },
  });
  expect(linked.pdf).toMatchObject({ status: 'finished', engine: 'chrome' });
  expect(await pdfText(await h.file(linked.pdf!))).toContain('Linked drawing words');
  expect(receiver.requests).toEqual([]);
}, 300_000);
