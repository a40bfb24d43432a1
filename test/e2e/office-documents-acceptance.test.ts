/**
 * Issue 30's spreadsheet acceptance, through the official `cloudconvert` SDK against the whole
 * platform with this machine's tools (LibreOffice with Calc): XLSX → PDF (the values in the text),
 * CSV → XLSX (the cells round-trip), ODS → CSV (the first sheet), each one job (import/base64 →
 * convert → export/url), run at once, each output read by a reader that is not LibreOffice; and the
 * office PDF options refused at creation with the field named.
 */
import ExcelJS from 'exceljs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { zip } from '../fixtures/engine-fixtures.js';
import { cloudConvertClient, convertJob, type ConvertedJob } from '../support/cloudconvert.js';
import { workbookRows } from '../support/office-readers.js';
import { pdfText } from '../support/pdf-text.js';
import { e2eOutput } from '../support/platform-output.js';
import { engine, requires } from '../support/requires.js';

const office = requires(engine('libreoffice'));

/** A zipped ODS written by hand: one sheet of ROWS, then a second sheet that CSV must not carry. */
function ods(rows: Array<Array<string | number>>): Promise<Buffer> {
  const cell = (v: string | number) =>
    typeof v === 'number' ? `<table:table-cell office:value-type="float" office:value="${v}"><text:p>${v}</text:p></table:table-cell>` : `<table:table-cell office:value-type="string"><text:p>${v}</text:p></table:table-cell>`;
  const table = (name: string, rs: Array<Array<string | number>>) => `<table:table table:name="${name}">${rs.map((r) => `<table:table-row>${r.map(cell).join('')}</table:table-row>`).join('')}</table:table>`;
  return zip(
    {
      mimetype: 'application/vnd.oasis.opendocument.spreadsheet',
      'META-INF/manifest.xml':
        '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>',
      'content.xml':
        '<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">' +
        `<office:body><office:spreadsheet>${table('First', rows)}${table('Second', [['SecondSheetOnly']])}</office:spreadsheet></office:body></office:document-content>`,
    },
    ['mimetype'],
  );
}

const ROWS: Array<Array<string | number>> = [
  ['item', 'amount'],
  ['apples', 12],
  ['pears', 7.25],
];

office.describe('spreadsheets through the cloudconvert SDK (issue 30 acceptance)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'office-e2e-'));
  let platform: Emulator;
  let cc: ReturnType<typeof cloudConvertClient>;
  const jobs = new Map<string, Promise<ConvertedJob>>();

  const run = (bytes: Buffer, filename: string, to: string) => convertJob(cc, bytes, filename, to);

  office.beforeAll(async () => {
    platform = await startEmulator({ dataDir, output: e2eOutput, env: { LOG_LEVEL: 'warn' } });
    cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
    const book = new ExcelJS.Workbook();
    book.addWorksheet('Sales').addRows(ROWS);
    const xlsx = Buffer.from(await book.xlsx.writeBuffer());
    jobs.set('xlsx-pdf', run(xlsx, 'sales.xlsx', 'pdf'));
    jobs.set('csv-xlsx', run(Buffer.from('item,amount\napples,12\npears,7.25\n'), 'sales.csv', 'xlsx'));
    jobs.set('ods-csv', run(await ods(ROWS), 'sales.ods', 'csv'));
    for (const job of jobs.values()) job.catch(() => {});
  }, 300_000);
  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const finished = async (name: string) => {
    const ran = await jobs.get(name)!;
    expect(ran, ran.message).toMatchObject({ status: 'finished' });
    return ran.files[0]!.bytes;
  };

  office.it('XLSX → PDF: the values are in the text (pdfjs-dist)', async () => {
    const text = await pdfText(await finished('xlsx-pdf'));
    for (const value of ['apples', '12', 'pears', '7.25']) expect(text).toContain(value);
  }, 300_000);

  office.it('CSV → XLSX: the cells round-trip (exceljs)', async () => {
    expect(await workbookRows(await finished('csv-xlsx'))).toEqual(ROWS.map((r) => r.map(String)));
  }, 300_000);

  office.it('ODS → CSV: the first sheet, in UTF-8', async () => {
    expect((await finished('ods-csv')).toString('utf8')).toBe('"item","amount"\n"apples",12\n"pears",7.25\n');
  }, 300_000);

  office.it('refuses a pdf_a that is not a boolean at creation, naming the field', async () => {
    const res = await fetch(`${platform.baseUrl}/v2/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tasks: { in: { operation: 'import/url', url: 'https://example.com/a.xlsx' }, pdf: { operation: 'convert', input: 'in', output_format: 'pdf', pdf_a: 'yes' } } }),
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(await res.json())).toContain('tasks.pdf.pdf_a');
  });
});
