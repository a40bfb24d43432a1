/**
 * Text documents (Writer) and spreadsheets (Calc) on LibreOffice 7.4: what it reads, what it writes,
 * and with which filter. Each format here has a test converting a real file generated in the test
 * (test/integration/office-documents.test.ts); formats LibreOffice reads but no test can make a real
 * file of stay out:
 * - wpd, wps (WordPerfect, Works) and pages, numbers (Apple iWork, IWA protobuf streams in a zip):
 *   LibreOffice reads them (libwpd, libwps, libetonyek) but writes none, and no npm package writes
 *   them either; a hand-made file of their binary forms would test our guess, not a real document.
 * - xlsb: read, not written by LibreOffice, no npm writer.
 *
 * Decisions:
 * - `xml` is a Writer input and output: Word 2003 XML (WordprocessingML) on the way out; on the way in
 *   LibreOffice reads it by content, so flat ODF and Word 2003 XML both work. Excel 2003 XML is not
 *   offered under `xml` (one name, one family).
 * - Text formats are UTF-8 both ways (txt, csv, tsv), never the machine's locale.
 * - CSV and TSV out of a workbook are its FIRST sheet, whichever sheet was active when it was saved;
 *   cells are written as shown (formatted numbers), text quoted. CSV and TSV in: comma or tab, double
 *   quotes, formulas NOT evaluated (`=1+1` stays text: a cell cannot call WEBSERVICE or read a file).
 * - HTML in goes to Writer only and not to PDF: Chromium makes PDFs of HTML (convert/operation.ts).
 */

export type OfficeApp = 'writer' | 'calc';

export const WRITER_INPUTS = ['doc', 'docx', 'docm', 'dot', 'dotx', 'odt', 'ott', 'fodt', 'sxw', 'rtf', 'txt', 'html', 'xml', 'abw'] as const;
export const CALC_INPUTS = ['xls', 'xlsx', 'xlsm', 'xlt', 'xltx', 'ods', 'ots', 'fods', 'sxc', 'csv', 'tsv', 'dif', 'slk'] as const;
export const WRITER_OUTPUTS = ['pdf', 'docx', 'docm', 'dotx', 'doc', 'dot', 'odt', 'ott', 'fodt', 'rtf', 'txt', 'html', 'xml'] as const;
export const CALC_OUTPUTS = ['pdf', 'xlsx', 'xlsm', 'xltx', 'xls', 'xlt', 'ods', 'ots', 'fods', 'csv', 'tsv', 'html', 'dif', 'slk'] as const;

/** A LibreOffice filter and its options string (the part after the filter name on the command line). */
export interface Filter {
  name: string;
  options?: string;
}

/**
 * CSV filter tokens: separator, quote, charset (76: UTF-8), first line, column formats, language,
 * quoted as text, detect special numbers, as shown, formulas, trim spaces, sheet (export: 1 = the
 * first), evaluate formulas (import: false).
 */
const csvFilter = (separator: number): Filter => ({ name: 'Text - txt - csv (StarCalc)', options: `${separator},34,76,1,,0,true,true,true,false,false,1,false` });

/** How LibreOffice reads the inputs whose content does not say what they are (plain text). */
const IMPORTS: Record<string, Filter> = {
  txt: { name: 'Text (encoded)', options: 'UTF8' },
  csv: csvFilter(44),
  tsv: csvFilter(9),
};

const EXPORTS: Record<OfficeApp, Record<string, Filter>> = {
  writer: {
    pdf: { name: 'writer_pdf_Export' },
    docx: { name: 'MS Word 2007 XML' },
    docm: { name: 'MS Word 2007 XML VBA' },
    dotx: { name: 'MS Word 2007 XML Template' },
    doc: { name: 'MS Word 97' },
    dot: { name: 'MS Word 97 Vorlage' },
    odt: { name: 'writer8' },
    ott: { name: 'writer8_template' },
    fodt: { name: 'OpenDocument Text Flat XML' },
    rtf: { name: 'Rich Text Format' },
    txt: { name: 'Text (encoded)', options: 'UTF8,LF' },
    // Images go into the page as data: URLs, not beside it as files the task would not return.
    html: { name: 'HTML (StarWriter)', options: 'EmbedImages' },
    xml: { name: 'MS Word 2003 XML' },
  },
  calc: {
    pdf: { name: 'calc_pdf_Export' },
    xlsx: { name: 'Calc MS Excel 2007 XML' },
    xlsm: { name: 'Calc MS Excel 2007 VBA XML' },
    xltx: { name: 'Calc MS Excel 2007 XML Template' },
    xls: { name: 'MS Excel 97' },
    xlt: { name: 'MS Excel 97 Vorlage/Template' },
    ods: { name: 'calc8' },
    ots: { name: 'calc8_template' },
    fods: { name: 'OpenDocument Spreadsheet Flat XML' },
    csv: csvFilter(44),
    tsv: csvFilter(9),
    html: { name: 'HTML (StarCalc)' },
    dif: { name: 'DIF' },
    slk: { name: 'SYLK' },
  },
};

/** The application that opens `format`, if it is one of this module's. */
export function officeApp(format: string | null | undefined): OfficeApp | undefined {
  if ((WRITER_INPUTS as readonly string[]).includes(format ?? '')) return 'writer';
  if ((CALC_INPUTS as readonly string[]).includes(format ?? '')) return 'calc';
  return undefined;
}

export const importFilter = (format: string): Filter | undefined => IMPORTS[format];
export const exportFilter = (app: OfficeApp, format: string): Filter | undefined => EXPORTS[app][format];

/** The PDF options of the office engine (CloudConvert's names), as LibreOffice's PDF export FilterData. */
export interface OfficePdfOptions {
  pages?: string | null;
  /** PDF/A-2b. */
  pdf_a?: boolean | null;
  /** true (the default): LibreOffice's print settings, images at most 300 dpi; false: 150 dpi and JPEG quality 80, a smaller file for the screen. */
  optimize_print?: boolean | null;
}

export type FilterData = Record<string, { type: string; value: string }>;

export function pdfFilterData(options: OfficePdfOptions): FilterData | undefined {
  const data: FilterData = {};
  const pages = typeof options.pages === 'string' ? options.pages.replace(/\s+/g, '') : '';
  if (pages) data.PageRange = { type: 'string', value: pages };
  if (options.pdf_a === true) data.SelectPdfVersion = { type: 'long', value: '2' };
  if (options.optimize_print === false) {
    data.ReduceImageResolution = { type: 'boolean', value: 'true' };
    data.MaxImageResolution = { type: 'long', value: '150' };
    data.Quality = { type: 'long', value: '80' };
  }
  return Object.keys(data).length > 0 ? data : undefined;
}

/** The PDF options this engine honours (convert/operation.ts validates them at creation). */
export const OFFICE_PDF_OPTIONS = ['pages', 'pdf_a', 'optimize_print'] as const;

const without = (list: readonly string[], drop: string) => list.filter((f) => f !== drop);

/** The convert capabilities of the libreoffice engine for Writer and Calc (its features as detection reports them). */
export const OFFICE_DOCUMENT_CAPABILITIES = [
  { inputs: without(WRITER_INPUTS, 'html'), outputs: ['pdf'], options: [...OFFICE_PDF_OPTIONS], feature: 'writer', credits: 2 },
  { inputs: [...WRITER_INPUTS], outputs: without(WRITER_OUTPUTS, 'pdf'), options: [], feature: 'writer', credits: 2 },
  { inputs: [...CALC_INPUTS], outputs: ['pdf'], options: [...OFFICE_PDF_OPTIONS], feature: 'calc', credits: 2 },
  { inputs: [...CALC_INPUTS], outputs: without(CALC_OUTPUTS, 'pdf'), options: [], feature: 'calc', credits: 2 },
];
