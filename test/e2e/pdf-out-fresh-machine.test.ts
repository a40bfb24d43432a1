/**
 * PDF out on a fresh machine (no system tool: every tool path points nowhere, as after `npm ci && npm
 * start` alone), through the official `cloudconvert` SDK against the whole platform: PDF → DOCX and
 * PDF → TXT with the text kept (issue 30's acceptance), each output read by a reader the engine does not
 * use (mammoth for the Word file, string checks for the text), and discovery listing the pairs on pdfjs.
 */
import mammoth from 'mammoth';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { BUNDLED_VERSIONS } from '#lib/engines/core/catalog.js';
import { freshPlatform } from '../support/fresh-platform.js';

const fresh = freshPlatform('pdf-out');

const LINES = ['The contract starts on the first of March and runs', 'for two years from that day.', 'Either side may end it with three months of notice.'];

/** Two pages: a heading and two paragraphs (the first of two lines), then one paragraph. */
async function letter(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  const first = doc.addPage([612, 792]);
  first.drawText('Service Agreement', { x: 72, y: 700, size: 22, font });
  first.drawText(LINES[0]!, { x: 72, y: 660, size: 12, font });
  first.drawText(LINES[1]!, { x: 72, y: 645.6, size: 12, font });
  first.drawText(LINES[2]!, { x: 72, y: 616.8, size: 12, font });
  doc.addPage([612, 792]).drawText('Signed by both parties.', { x: 72, y: 700, size: 12, font });
  return Buffer.from(await doc.save());
}

/** One job: `bytes` imported as `filename` and converted to each of `formats`; the exported bytes by format. */
async function convertEach(bytes: Buffer, filename: string, formats: string[]) {
  const tasks: Record<string, Record<string, unknown>> = { in: { operation: 'import/base64', file: bytes.toString('base64'), filename } };
  for (const to of formats) {
    tasks[to] = { operation: 'convert', input: 'in', output_format: to };
    tasks[`export-${to}`] = { operation: 'export/url', input: to };
  }
  const job = await fresh.cc.jobs.wait((await fresh.cc.jobs.create({ tasks } as never)).id);
  const out: Record<string, { task: Record<string, unknown>; bytes: Buffer }> = {};
  for (const to of formats) {
    const task = job.tasks.find((t) => t.name === to) as unknown as Record<string, unknown>;
    expect(task.status, String(task.message)).toBe('finished');
    const url = job.tasks.find((t) => t.name === `export-${to}`)!.result!.files![0]!.url!;
    out[to] = { task, bytes: Buffer.from(await (await fetch(url)).arrayBuffer()) };
  }
  return out;
}

describe('PDF out on a fresh machine through the cloudconvert SDK', () => {
  it('PDF → DOCX and PDF → TXT keep the text, its paragraphs and its heading', async () => {
    const pdf = await letter();
    const { docx, txt } = await convertEach(pdf, 'agreement.pdf', ['docx', 'txt']);
    expect(docx!.task).toMatchObject({ engine: 'pdfjs', engine_version: BUNDLED_VERSIONS.pdfjs });
    const { value: html } = await mammoth.convertToHtml({ buffer: docx!.bytes });
    expect(html).toBe(
      `<h1>Service Agreement</h1><p>${LINES[0]} ${LINES[1]}</p><p>${LINES[2]}</p><p>Signed by both parties.</p>`,
    );
    expect(txt!.bytes.toString('utf8')).toBe(`Service Agreement\n\n${LINES[0]} ${LINES[1]}\n\n${LINES[2]}\n\fSigned by both parties.\n`);
  }, 120_000);

  it('lists pdf → txt, html, docx and odt on pdfjs', async () => {
    const { baseUrl, apiKey } = fresh.platform;
    const res = await fetch(`${baseUrl}/v2/convert/formats?filter[engine]=pdfjs`, { headers: { authorization: `Bearer ${apiKey}` } });
    const { data } = (await res.json()) as { data: Array<{ input_format: string; output_format: string }> };
    expect(data.map((row) => `${row.input_format}→${row.output_format}`).sort()).toEqual(['pdf→docx', 'pdf→html', 'pdf→odt', 'pdf→txt']);
  });
});
