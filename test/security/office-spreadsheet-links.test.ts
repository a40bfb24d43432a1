/**
 * Issue 30's links acceptance for spreadsheets: an XLSX whose data comes from elsewhere (external
 * workbooks over http and file://, a web query refreshed on load, a WEBSERVICE formula) and a CSV
 * whose cell calls WEBSERVICE, converted by LibreOffice fully confined (bubblewrap) and where only
 * the platform confines it (ENGINE_CONFINEMENT=platform, the office Lambda function): no request
 * reaches a loopback counter, and nothing of a workbook outside the task's folder gets into the output.
 */
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { convertOffice, type OfficeConvertPayload } from '#lib/engines/office/office-convert.js';
import { engineCall, type HandCall } from '../support/engine-call.js';
import { workbookRows } from '../support/office-readers.js';
import { pdfText } from '../support/pdf-text.js';
import { engine, requires, tool } from '../support/requires.js';

const SECRET = 'SECRET-XLSX-4411';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const SHEET_ML = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';

/** An external book part whose link (`target`) is `id`'s, with no cached values (LibreOffice would have to read it). */
const externalBook = (target: string) => ({
  part: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><externalLink xmlns="${SHEET_ML}" xmlns:r="${REL}"><externalBook r:id="rId1"><sheetNames><sheetName val="Sheet1"/></sheetNames></externalBook></externalLink>`,
  rels: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/externalLinkPath" Target="${target}" TargetMode="External"/></Relationships>`,
});

/** The XLSX: visible values, cells reading two external books, a WEBSERVICE call and a web query refreshed on load. */
async function linkedWorkbook(base: string, secretBook: string): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Data');
  sheet.addRow(['Visible value', 42]);
  sheet.getColumn(1).width = 40;
  sheet.getCell('A2').value = { formula: `_xlfn.WEBSERVICE("${base}/webservice")` } as ExcelJS.CellFormulaValue;
  sheet.getCell('A3').value = { formula: '[1]Sheet1!A1' } as ExcelJS.CellFormulaValue;
  sheet.getCell('A4').value = { formula: '[2]Sheet1!A1' } as ExcelJS.CellFormulaValue;
  const zip = await JSZip.loadAsync(await book.xlsx.writeBuffer());
  const books = [externalBook(`${base}/book.xlsx`), externalBook(`file://${secretBook}`)];
  books.forEach((b, i) => {
    zip.file(`xl/externalLinks/externalLink${i + 1}.xml`, b.part);
    zip.file(`xl/externalLinks/_rels/externalLink${i + 1}.xml.rels`, b.rels);
  });
  zip.file(
    'xl/connections.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><connections xmlns="${SHEET_ML}"><connection id="1" name="Web" type="4" refreshedVersion="6" refreshOnLoad="1" saveData="1"><webPr sourceData="1" parsePre="1" xl2000="1" url="${base}/webquery"/></connection></connections>`,
  );
  const edit = async (name: string, change: (text: string) => string) => zip.file(name, change(await zip.file(name)!.async('string')));
  const type = (part: string, kind: string) => `<Override PartName="/xl/${part}" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.${kind}+xml"/>`;
  await edit('[Content_Types].xml', (t) => t.replace('</Types>', `${type('externalLinks/externalLink1.xml', 'externalLink')}${type('externalLinks/externalLink2.xml', 'externalLink')}${type('connections.xml', 'connections')}</Types>`));
  await edit('xl/_rels/workbook.xml.rels', (t) =>
    t.replace('</Relationships>', `<Relationship Id="rIdE1" Type="${REL}/externalLink" Target="externalLinks/externalLink1.xml"/><Relationship Id="rIdE2" Type="${REL}/externalLink" Target="externalLinks/externalLink2.xml"/><Relationship Id="rIdC" Type="${REL}/connections" Target="connections.xml"/></Relationships>`),
  );
  await edit('xl/workbook.xml', (t) => t.replace('</sheets>', '</sheets><externalReferences><externalReference r:id="rIdE1"/><externalReference r:id="rIdE2"/></externalReferences>'));
  return zip.generateAsync({ type: 'nodebuffer' });
}

for (const [mode, env, needs] of [
  ['fully confined (bubblewrap)', {}, requires(engine('libreoffice'), tool('bwrap'))],
  ['confined by the platform only (ENGINE_CONFINEMENT=platform, as in Lambda)', { ENGINE_CONFINEMENT: 'platform' }, requires(tool('soffice'))],
] as const) {
  needs.describe(`spreadsheets with external data, LibreOffice ${mode}`, () => {
    let server: Server;
    let base = '';
    const requested: string[] = [];
    let secretDir = '';
    let xlsx: Buffer;
    const calls: HandCall<OfficeConvertPayload>[] = [];

    needs.beforeAll(async () => {
      server = createServer((req, res) => {
        requested.push(req.url ?? '');
        res.writeHead(200, { 'content-type': 'text/plain' }).end(SECRET);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      // A workbook outside any task folder whose first cell is the secret.
      secretDir = mkdtempSync(path.join(tmpdir(), 'office-secret-'));
      const secret = new ExcelJS.Workbook();
      secret.addWorksheet('Sheet1').addRow([SECRET]);
      writeFileSync(path.join(secretDir, 'secret.xlsx'), Buffer.from(await secret.xlsx.writeBuffer()));
      xlsx = await linkedWorkbook(base, path.join(secretDir, 'secret.xlsx'));
    });
    afterAll(async () => {
      calls.forEach((c) => c.remove());
      if (secretDir) rmSync(secretDir, { recursive: true, force: true });
      // Skipped (no LibreOffice), the suite made no server: waiting on its close would never end.
      if (server) await new Promise((resolve) => server!.close(resolve));
    });

    async function convert(filename: string, data: Buffer, output: string): Promise<Buffer> {
      const call = engineCall<OfficeConvertPayload>('libreoffice', 'convert', { output_format: output }, [{ filename, data, format: filename.split('.').pop()! }], env);
      calls.push(call);
      const result = await convertOffice(call.call);
      return readFileSync(result.files[0]!.path);
    }

    it('XLSX → PDF: the values are there, nothing fetched, nothing of the outside workbook', async () => {
      const pdf = await convert('linked.xlsx', xlsx, 'pdf');
      const text = await pdfText(pdf);
      expect(text).toContain('Visible value');
      expect(text).not.toContain(SECRET);
      expect(pdf.includes(SECRET)).toBe(false);
      expect(requested).toEqual([]);
    }, 120_000);

    it('XLSX → CSV and → XLSX: no cell holds what a link would have brought', async () => {
      const csv = (await convert('linked.xlsx', xlsx, 'csv')).toString('utf8');
      expect(csv).toContain('Visible value');
      expect(csv).not.toContain(SECRET);
      const rows = await workbookRows(await convert('linked.xlsx', xlsx, 'xlsx'));
      expect(rows[0]).toEqual(['Visible value', '42']);
      expect(JSON.stringify(rows)).not.toContain(SECRET);
      expect(requested).toEqual([]);
    }, 180_000);

    it('CSV with a WEBSERVICE formula: kept as text, never called', async () => {
      const csv = Buffer.from(`name,fetch\nalpha,"=WEBSERVICE(""${base}/csv"")"\n`);
      const rows = await workbookRows(await convert('call.csv', csv, 'xlsx'));
      expect(rows[1]).toEqual(['alpha', `=WEBSERVICE("${base}/csv")`]);
      expect(requested).toEqual([]);
    }, 120_000);
  });
}
