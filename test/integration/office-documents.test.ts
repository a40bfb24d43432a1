/**
 * Text documents and spreadsheets on LibreOffice (lib/engines/office/office-convert.ts), confined as
 * `npm start` confines it. Every output format of office-formats.ts is made from a document written
 * here (a flat ODT by hand, a workbook by exceljs) and read back by an independent reader
 * (test/support/office-readers.ts, pdfjs-dist for PDFs); every input format is converted to a common
 * target (Writer: PDF, its text read by pdfjs-dist; Calc: XLSX, its cells read by exceljs), the files
 * LibreOffice wrote serving as inputs where no other writer exists (doc, rtf, xls…), the others made by
 * hand (fodt, sxw, sxc, abw, csv, tsv) or by exceljs (xlsx).
 */
import ExcelJS from 'exceljs';
import { readFileSync } from 'node:fs';
import { PDFDocument } from 'pdf-lib';
import { afterAll, expect, it } from 'vitest';
import type { EngineResult } from '#lib/engines/core/call.js';
import { CALC_INPUTS, CALC_OUTPUTS, WRITER_INPUTS, WRITER_OUTPUTS } from '#lib/engines/office/office-formats.js';
import { convertOffice, type OfficeConvertPayload } from '#lib/engines/office/office-convert.js';
import { jpeg, zip } from '../fixtures/engine-fixtures.js';
import { engineCall, type HandCall } from '../support/engine-call.js';
import { documentText, workbookRows } from '../support/office-readers.js';
import { pdfPageImages, pdfPageText, pdfText } from '../support/pdf-text.js';
import { engine, requires } from '../support/requires.js';

const office = requires(engine('libreoffice'));

const ODF = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"';
/** A two-page flat ODT: the words each test looks for, the second page after a page break. */
const FODT =
  `<?xml version="1.0" encoding="UTF-8"?><office:document ${ODF} office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.text">` +
  '<office:automatic-styles><style:style style:name="Break" style:family="paragraph"><style:paragraph-properties fo:break-before="page"/></style:style></office:automatic-styles>' +
  '<office:body><office:text><text:h text:outline-level="1">Heading Alpha</text:h><text:p>Paragraph Bravo Charlie</text:p>' +
  '<text:p text:style-name="Break">Second page Zulu</text:p></office:text></office:body></office:document>';

/** An OpenOffice.org 1 text document (sxw), as its packages were laid out. */
const sxw = () =>
  zip(
    {
      mimetype: 'application/vnd.sun.xml.writer',
      'META-INF/manifest.xml':
        '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="http://openoffice.org/2001/manifest"><manifest:file-entry manifest:media-type="application/vnd.sun.xml.writer" manifest:full-path="/"/><manifest:file-entry manifest:media-type="text/xml" manifest:full-path="content.xml"/></manifest:manifest>',
      'content.xml':
        '<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="http://openoffice.org/2000/office" xmlns:text="http://openoffice.org/2000/text" office:class="text" office:version="1.0"><office:body><text:p>Heading Alpha</text:p><text:p>Paragraph Bravo Charlie</text:p></office:body></office:document-content>',
    },
    ['mimetype'],
  );

/** An OpenOffice.org 1 spreadsheet (sxc): the rows of the workbook below. */
const sxc = () => {
  const cell = (v: string | number) => (typeof v === 'number' ? `<table:table-cell table:value-type="float" table:value="${v}"><text:p>${v}</text:p></table:table-cell>` : `<table:table-cell><text:p>${v}</text:p></table:table-cell>`);
  const rows = ROWS.map((r) => `<table:table-row>${r.map(cell).join('')}</table:table-row>`).join('');
  return zip(
    {
      mimetype: 'application/vnd.sun.xml.calc',
      'META-INF/manifest.xml':
        '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="http://openoffice.org/2001/manifest"><manifest:file-entry manifest:media-type="application/vnd.sun.xml.calc" manifest:full-path="/"/><manifest:file-entry manifest:media-type="text/xml" manifest:full-path="content.xml"/></manifest:manifest>',
      'content.xml': `<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="http://openoffice.org/2000/office" xmlns:table="http://openoffice.org/2000/table" xmlns:text="http://openoffice.org/2000/text" office:class="spreadsheet" office:version="1.0"><office:body><table:table table:name="Numbers">${rows}</table:table></office:body></office:document-content>`,
    },
    ['mimetype'],
  );
};

/** An AbiWord document, as AbiWord 3 writes one. */
const ABW =
  '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE abiword PUBLIC "-//ABISOURCE//DTD AWML 1.0 Strict//EN" "http://www.abisource.com/awml.dtd">\n' +
  '<abiword template="false" xmlns="http://www.abisource.com/awml.dtd" xmlns:awml="http://www.abisource.com/awml.dtd" fileformat="1.1" version="3.0.4" xml:space="preserve" props="dom-dir:ltr; lang:en-US">\n' +
  '<section xid="1"><p xid="2">Heading Alpha</p><p xid="3">Paragraph Bravo Charlie</p></section>\n</abiword>\n';

const ROWS: Array<Array<string | number>> = [
  ['name', 'value'],
  ['alpha', 1],
  ['bravo', 2.5],
];

/** A workbook of two sheets, ROWS on the first, the second active (as a user left it). */
async function workbook(): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  book.addWorksheet('Numbers').addRows(ROWS);
  book.addWorksheet('Other').addRow(['OtherSheetOnly']);
  book.views = [{ x: 0, y: 0, width: 10000, height: 20000, firstSheet: 0, activeTab: 1, visibility: 'visible' }];
  return Buffer.from(await book.xlsx.writeBuffer());
}

const expectRows = (rows: string[][]) => expect(rows.slice(0, 3).map((r) => r.slice(0, 2))).toEqual(ROWS.map((r) => r.map(String)));

office.describe('Writer and Calc formats on LibreOffice, checked by independent readers', () => {
  const calls: HandCall<OfficeConvertPayload>[] = [];
  /** Files made by a conversion, by format, to serve as inputs. */
  const made = new Map<string, Buffer>();
  afterAll(() => calls.forEach((c) => c.remove()));

  async function convert(filename: string, data: Buffer, output: string, options: Partial<OfficeConvertPayload> = {}): Promise<Buffer> {
    const format = filename.slice(filename.lastIndexOf('.') + 1);
    const call = engineCall<OfficeConvertPayload>('libreoffice', 'convert', { output_format: output, ...options }, [{ filename, data, format }]);
    calls.push(call);
    const result: EngineResult = await convertOffice(call.call);
    expect(result.files).toHaveLength(1);
    expect(result.files[0]!.filename).toMatch(new RegExp(`\\.${output}$`));
    return readFileSync(result.files[0]!.path);
  }

  const writerOutputs = WRITER_OUTPUTS.filter((f) => f !== 'pdf');
  it.each(writerOutputs)('FODT → %s: the text is there, read without LibreOffice', async (output) => {
    const bytes = await convert('source.fodt', Buffer.from(FODT), output);
    const text = await documentText(output, bytes);
    expect(text).toContain('Heading Alpha');
    expect(text).toContain('Paragraph Bravo Charlie');
    made.set(output, bytes);
  }, 120_000);

  it('templates are templates: dotx and ott say so in their packages', async () => {
    expect(made.get('ott')!.subarray(30, 120).toString('latin1')).toContain('application/vnd.oasis.opendocument.text-template');
    expect(made.get('dotx')!.toString('latin1')).toMatch(/[Dd]ocProps|word\//);
  });

  const writerSources = (format: string) =>
    ({ fodt: Buffer.from(FODT), abw: Buffer.from(ABW) })[format as 'fodt' | 'abw'] ?? made.get(format);
  it.each(WRITER_INPUTS.filter((f) => f !== 'html'))('%s → PDF: the text found by pdfjs-dist', async (input) => {
    const source = input === 'sxw' ? await sxw() : writerSources(input);
    expect(source, `no ${input} file was made by an earlier test`).toBeDefined();
    const text = await pdfText(await convert(`in.${input}`, source!, 'pdf'));
    expect(text).toContain('Paragraph Bravo Charlie');
  }, 120_000);

  it('HTML → DOCX (HTML goes to PDF with Chromium): the text read by mammoth', async () => {
    const html = Buffer.from('<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title></head><body><h1>Heading Alpha</h1><p>Paragraph Bravo Charlie</p></body></html>');
    expect(await documentText('docx', await convert('in.html', html, 'docx'))).toContain('Paragraph Bravo Charlie');
  }, 120_000);

  it('PDF options: pages keeps the pages asked for; pdf_a writes PDF/A-2b', async () => {
    const all = await PDFDocument.load(await convert('source.fodt', Buffer.from(FODT), 'pdf'));
    expect(all.getPageCount()).toBe(2);
    const second = await convert('source.fodt', Buffer.from(FODT), 'pdf', { pages: '2' });
    expect((await PDFDocument.load(second)).getPageCount()).toBe(1);
    expect(await pdfPageText(second, 1)).toContain('Second page Zulu');
    const archival = await convert('source.fodt', Buffer.from(FODT), 'pdf', { pdf_a: true });
    expect(archival.toString('latin1')).toMatch(/pdfaid:part(?:>|=")2/);
    expect(second.toString('latin1')).not.toMatch(/pdfaid:part/);
  }, 180_000);

  it('optimize_print: images at 300 dpi for print (the default), 150 dpi when false', async () => {
    // A 1600 px photo in a 5 cm frame (about 800 dpi), embedded in the document.
    const photo = (await jpeg(1600, 1600)).toString('base64');
    const image =
      '<text:p><draw:frame xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" text:anchor-type="as-char" svg:width="5cm" svg:height="5cm">' +
      `<draw:image><office:binary-data>${photo}</office:binary-data></draw:image></draw:frame></text:p>`;
    const fodt = Buffer.from(FODT.replace('<text:p>Paragraph Bravo Charlie</text:p>', `<text:p>Paragraph Bravo Charlie</text:p>${image}`));
    const widths = async (pdf: Buffer) => (await pdfPageImages(pdf)).flat().map((i) => i.width);
    // 5 cm at 300 dpi: 591 px; at 150 dpi: 295 px.
    const [print] = await widths(await convert('photo.fodt', fodt, 'pdf'));
    expect(print).toBeGreaterThan(550);
    expect(print).toBeLessThan(650);
    const [screen] = await widths(await convert('photo.fodt', fodt, 'pdf', { optimize_print: false }));
    expect(screen).toBeGreaterThan(250);
    expect(screen).toBeLessThan(350);
  }, 180_000);

  const calcOutputs = CALC_OUTPUTS.filter((f) => f !== 'pdf');
  it.each(calcOutputs)('XLSX → %s: the first sheet’s values, read without LibreOffice', async (output) => {
    const bytes = await convert('book.xlsx', await workbook(), output);
    if (['xlsx', 'xlsm', 'xltx'].includes(output)) {
      expectRows(await workbookRows(bytes));
    } else {
      const text = await documentText(output, bytes);
      for (const value of ['name', 'value', 'alpha', 'bravo']) expect(text).toContain(value);
      if (!['xls', 'xlt'].includes(output)) expect(text).toContain('2.5');
    }
    made.set(output, bytes);
  }, 120_000);

  it('XLSX → CSV and TSV: the first sheet, whichever was active, in UTF-8 with text quoted', async () => {
    expect(made.get('csv')!.toString('utf8')).toBe('"name","value"\n"alpha",1\n"bravo",2.5\n');
    expect(made.get('tsv')!.toString('utf8')).toBe('"name"\t"value"\n"alpha"\t1\n"bravo"\t2.5\n');
    expect(made.get('csv')!.toString('utf8')).not.toContain('OtherSheetOnly');
  });

  it('XLSX → PDF: the values are in the text, every sheet a page; pages picks sheets’ pages', async () => {
    const pdf = await convert('book.xlsx', await workbook(), 'pdf');
    const text = await pdfText(pdf);
    for (const value of ['alpha', 'bravo', '2.5', 'OtherSheetOnly']) expect(text).toContain(value);
    expect((await PDFDocument.load(pdf)).getPageCount()).toBe(2);
    const second = await convert('book.xlsx', await workbook(), 'pdf', { pages: '2' });
    expect((await PDFDocument.load(second)).getPageCount()).toBe(1);
    expect(await pdfPageText(second, 1)).toContain('OtherSheetOnly');
  }, 120_000);

  const calcSources: Record<string, () => Buffer | Promise<Buffer>> = {
    xlsx: workbook,
    csv: () => Buffer.from('name,value\nalpha,1\nbravo,2.5\n'),
    tsv: () => Buffer.from('name\tvalue\nalpha\t1\nbravo\t2.5\n'),
    sxc,
  };
  it.each(CALC_INPUTS)('%s → XLSX: the cells read by exceljs', async (input) => {
    const source = calcSources[input] ? await calcSources[input]() : made.get(input);
    expect(source, `no ${input} file was made by an earlier test`).toBeDefined();
    const rows = await workbookRows(await convert(`in.${input}`, source!, 'xlsx'));
    expectRows(rows);
  }, 120_000);

  it('CSV in: UTF-8, quoted separators, and a formula stays text (not evaluated)', async () => {
    const csv = Buffer.from('name,note\n"Zoë, café",=1+1\n');
    expect(await workbookRows(await convert('in.csv', csv, 'xlsx'))).toEqual([
      ['name', 'note'],
      ['Zoë, café', '=1+1'],
    ]);
  }, 120_000);

  it('a damaged workbook is a CONVERSION_FAILED task error naming the file, not a crash', async () => {
    const damaged = Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(2000, 0x5a)]);
    await expect(convert('damaged.xlsx', damaged, 'csv')).rejects.toMatchObject({ code: 'CONVERSION_FAILED', message: expect.stringContaining('damaged.xlsx') });
  }, 120_000);

  it('refuses a pair across applications (a spreadsheet to a Word format) with UNSUPPORTED_FORMAT', async () => {
    await expect(convert('book.xlsx', await workbook(), 'docx')).rejects.toMatchObject({ code: 'UNSUPPORTED_FORMAT' });
  });
});
