/**
 * PDF out on a fresh machine (no system tool: every tool path points nowhere, as after `npm ci && npm
 * start` alone), through the official `cloudconvert` SDK against the whole platform: PDF → DOCX and
 * PDF → TXT with the text kept (issue 30's acceptance), each output read by a reader the engine does not
 * use (mammoth for the Word file, string checks for the text), and discovery listing the pairs on pdfjs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import mammoth from 'mammoth';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_VERSIONS } from '#lib/engines/core/catalog.js';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { NO_SYSTEM_TOOLS } from '../support/fresh-machine.js';
import { e2eOutput } from '../support/platform-output.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'pdf-out-e2e-'));
let platform: Emulator;
let cc: ReturnType<typeof cloudConvertClient>;

const PARAGRAPHS = ['The contract starts on the first of March and runs', 'for two years from that day.', 'Either side may end it with three months of notice.'];

/** Two pages: a heading and two paragraphs (the first of two lines), then one paragraph. */
async function letter(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  const first = doc.addPage([612, 792]);
  first.drawText('Service Agreement', { x: 72, y: 700, size: 22, font });
  first.drawText(PARAGRAPHS[0]!, { x: 72, y: 660, size: 12, font });
  first.drawText(PARAGRAPHS[1]!, { x: 72, y: 645.6, size: 12, font });
  first.drawText(PARAGRAPHS[2]!, { x: 72, y: 616.8, size: 12, font });
  doc.addPage([612, 792]).drawText('Signed by both parties.', { x: 72, y: 700, size: 12, font });
  return Buffer.from(await doc.save());
}

beforeAll(async () => {
  platform = await startEmulator({ dataDir, output: e2eOutput, env: { LOG_LEVEL: 'warn', ...NO_SYSTEM_TOOLS } });
  cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
}, 420_000);

afterAll(async () => {
  await platform?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Imports `bytes` as `filename`, converts it to `to` and returns the task and the exported bytes. */
async function convert(bytes: Buffer, filename: string, to: string) {
  const created = await cc.jobs.create({
    tasks: {
      in: { operation: 'import/base64', file: bytes.toString('base64'), filename },
      convert: { operation: 'convert', input: 'in', output_format: to },
      out: { operation: 'export/url', input: 'convert' },
    },
  } as never);
  const job = await cc.jobs.wait(created.id);
  const task = job.tasks.find((t) => t.name === 'convert') as unknown as Record<string, unknown>;
  expect(task.status, String(task.message)).toBe('finished');
  const url = job.tasks.find((t) => t.name === 'out')!.result!.files![0]!.url!;
  return { task, bytes: Buffer.from(await (await fetch(url)).arrayBuffer()) };
}

describe('PDF out on a fresh machine through the cloudconvert SDK', () => {
  it('PDF → DOCX and PDF → TXT keep the text, its paragraphs and its heading', async () => {
    const pdf = await letter();
    const [docx, txt] = await Promise.all([convert(pdf, 'agreement.pdf', 'docx'), convert(pdf, 'agreement.pdf', 'txt')]);
    expect(docx.task).toMatchObject({ engine: 'pdfjs', engine_version: BUNDLED_VERSIONS.pdfjs });
    const { value: html } = await mammoth.convertToHtml({ buffer: docx.bytes });
    expect(html).toBe(
      `<h1>Service Agreement</h1><p>${PARAGRAPHS[0]} ${PARAGRAPHS[1]}</p><p>${PARAGRAPHS[2]}</p><p>Signed by both parties.</p>`,
    );
    expect(txt.bytes.toString('utf8')).toBe(`Service Agreement\n\n${PARAGRAPHS[0]} ${PARAGRAPHS[1]}\n\n${PARAGRAPHS[2]}\n\fSigned by both parties.\n`);
  }, 120_000);

  it('lists pdf → txt, html, docx and odt on pdfjs', async () => {
    const res = await fetch(`${platform.baseUrl}/v2/convert/formats?filter[engine]=pdfjs`, { headers: { authorization: `Bearer ${platform.apiKey}` } });
    const { data } = (await res.json()) as { data: Array<{ input_format: string; output_format: string }> };
    expect(data.map((row) => `${row.input_format}→${row.output_format}`).sort()).toEqual(['pdf→docx', 'pdf→html', 'pdf→odt', 'pdf→txt']);
  });
});
