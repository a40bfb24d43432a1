/**
 * Independent readers of office files for tests (none of them LibreOffice, which writes them): what
 * text or cell values a file holds, read with mammoth, exceljs, jszip or by the format's own layout.
 */
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import mammoth from 'mammoth';

const OLE2 = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

const decodeXml = (text: string) =>
  text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n))).replace(/&amp;/g, '&');

/** The text of markup: tags dropped (each a space), entities decoded, white space collapsed. */
export const markupText = (xml: string): string => decodeXml(xml.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();

/** The values of a workbook's first sheet (exceljs), row by row, as text. */
export async function workbookRows(bytes: Buffer, sheet = 0): Promise<string[][]> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(bytes as unknown as ArrayBuffer);
  const rows: string[][] = [];
  book.worksheets[sheet]!.eachRow((row) => {
    const values = (row.values as unknown[]).slice(1);
    rows.push(values.map((v) => (v && typeof v === 'object' && 'result' in v ? String((v as { result: unknown }).result) : String(v ?? ''))));
  });
  return rows;
}

/** A zip package's part as text (ODF's content.xml, its mimetype). */
export async function packagePart(bytes: Buffer, name: string): Promise<string> {
  const zip = await JSZip.loadAsync(bytes);
  const part = zip.file(name);
  if (!part) throw new Error(`the package has no ${name} (parts: ${Object.keys(zip.files).join(', ')})`);
  return part.async('string');
}

/**
 * The text of an office file by its format, read without LibreOffice: Word OOXML with mammoth, ODF
 * packages' content.xml, flat XML, HTML and Word 2003 XML as markup, RTF and text as they are, the
 * legacy binary formats (OLE2) as the strings their streams hold (8-bit or UTF-16).
 */
export async function documentText(format: string, bytes: Buffer): Promise<string> {
  switch (format) {
    case 'docx':
    case 'docm':
    case 'dotx':
      return (await mammoth.extractRawText({ buffer: bytes })).value.replace(/\s+/g, ' ').trim();
    case 'odt':
    case 'ott':
    case 'ods':
    case 'ots':
      return markupText(await packagePart(bytes, 'content.xml'));
    case 'doc':
    case 'dot':
    case 'xls':
    case 'xlt':
      if (!bytes.subarray(0, 8).equals(OLE2)) throw new Error(`not an OLE2 file: ${bytes.subarray(0, 8).toString('hex')}`);
      return `${bytes.toString('latin1')} ${bytes.toString('utf16le')} ${bytes.subarray(1).toString('utf16le')}`;
    case 'rtf':
      if (!bytes.subarray(0, 5).equals(Buffer.from('{\\rtf'))) throw new Error('not an RTF file');
      return bytes.toString('latin1');
    default:
      // fodt, fods, html, xml, txt, csv, tsv, dif, slk: text formats.
      return /^\s*</.test(bytes.toString('utf8', 0, 200).replace(/^\uFEFF/, '')) ? markupText(bytes.toString('utf8')) : bytes.toString('utf8');
  }
}
