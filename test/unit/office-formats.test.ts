/**
 * What the libreoffice engine offers for text documents and spreadsheets (lib/engines/office/office-formats.ts
 * through convert/operation.ts), with the engine's features as detection would report them, and the
 * office PDF options checked at creation (422 naming the field).
 */
import { describe, expect, it } from 'vitest';
import { ENGINES, type EngineDescriptor } from '#lib/engines/core/catalog.js';
import { pdfFilterData } from '#lib/engines/office/office-formats.js';
import { ApiError } from '#lib/kernel/errors.js';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { discover } from '#lib/file-api/operations/discovery.js';
import { formatFamily } from '#lib/file-api/operations/format-families.js';
import { newEngineRegistry } from '#lib/file-api/operations/engines.js';
import { planJob } from '#lib/file-api/tasks/plan.js';
import { mimeType } from '#lib/engines/core/formats.js';

/** LibreOffice as detection reports it with `features`, and nothing else installed. */
const registryWith = (features: string[]) => {
  const engines: EngineDescriptor[] = ENGINES.map((e) =>
    e.name === 'libreoffice' ? { ...e, detect: () => ({ versions: [{ version: '7.4.7.2' }], features }) } : { ...e, detect: () => ({ versions: [] }) },
  );
  return newEngineRegistry(parseEngineConfig({ ENGINE_CONFINEMENT: 'none' }), engines);
};

const pairs = (features: string[], filter: Record<string, string> = {}) =>
  discover({ 'filter[operation]': 'convert', 'filter[engine]': 'libreoffice', ...filter }, { registry: registryWith(features) }).map((r) => `${r.input_format}>${r.output_format}`);

describe('the libreoffice engine’s Writer and Calc formats', () => {
  it('offers spreadsheets each way with Calc, and nothing of them without it', () => {
    const calc = pairs(['writer', 'calc']);
    for (const pair of ['xlsx>pdf', 'csv>xlsx', 'ods>csv', 'xlsx>ods', 'ods>xlsx', 'xls>xlsx', 'xlsx>xls', 'xlsx>tsv', 'tsv>ods', 'fods>xlsx', 'slk>xlsx', 'dif>csv', 'xltx>xlsx', 'sxc>ods']) expect(calc).toContain(pair);
    const writerOnly = pairs(['writer']);
    expect(writerOnly.filter((p) => /^(xlsx|xls|ods|csv|tsv)>/.test(p))).toEqual([]);
  });

  it('offers Word formats each way with Writer, HTML in but not to PDF (Chromium’s), and no pair across applications', () => {
    const writer = pairs(['writer', 'calc']);
    for (const pair of ['docx>odt', 'odt>docx', 'docx>rtf', 'rtf>docx', 'doc>docx', 'docx>doc', 'docx>txt', 'docx>html', 'html>docx', 'abw>pdf', 'sxw>odt', 'fodt>pdf', 'xml>docx', 'docx>dotx', 'docm>pdf']) expect(writer).toContain(pair);
    expect(writer).not.toContain('html>pdf');
    expect(writer).not.toContain('xlsx>docx');
    expect(writer).not.toContain('docx>xlsx');
  });

  it('lists pages, pdf_a and optimize_print for PDF, and no PDF option for other outputs', () => {
    const registry = registryWith(['writer', 'calc']);
    const options = (input: string, output: string) =>
      discover({ 'filter[input_format]': input, 'filter[output_format]': output, 'filter[engine]': 'libreoffice', include: 'options' }, { registry })[0]!.options!.map((o) => `${o.name}:${o.type}:${String(o.default)}`);
    expect(options('docx', 'pdf')).toEqual(['pages:string:null', 'pdf_a:boolean:false', 'optimize_print:boolean:true']);
    expect(options('xlsx', 'pdf')).toEqual(['pages:string:null', 'pdf_a:boolean:false', 'optimize_print:boolean:true']);
    expect(options('docx', 'odt')).toEqual([]);
  });

  it('gives every format a family and a content type', () => {
    for (const format of ['fodt', 'sxw', 'abw', 'dotx', 'docm', 'ott', 'xml']) expect([format, formatFamily(format)]).toEqual([format, 'document']);
    for (const format of ['fods', 'sxc', 'dif', 'slk', 'tsv', 'xlsm', 'xltx', 'xlt', 'ots']) expect([format, formatFamily(format)]).toEqual([format, 'spreadsheet']);
    for (const format of ['fodt', 'fods', 'sxw', 'sxc', 'dif', 'slk', 'tsv', 'xlsm', 'xltx', 'xlt', 'ots', 'ott', 'dotx', 'dot', 'docm', 'abw']) expect(mimeType(format), format).not.toBe('application/octet-stream');
  });
});

describe('office PDF options', () => {
  function fields(task: Record<string, unknown>): Record<string, string[]> {
    try {
      planJob({ tasks: { in: { operation: 'import/url', url: 'https://example.com/a.docx' }, a: { operation: 'convert', input: 'in', input_format: 'docx', output_format: 'pdf', ...task } } });
    } catch (err) {
      // Whether this machine converts docx to pdf at all (LibreOffice installed) is another test's
      // matter: only the options' own errors count here.
      if (err instanceof ApiError) return Object.fromEntries(Object.entries(err.fields ?? {}).filter(([field]) => field !== 'tasks.a.input_format'));
      throw err;
    }
    return {};
  }

  it('are checked at creation, the 422 naming the field', () => {
    expect(fields({ pdf_a: 'yes', optimize_print: 2 })).toMatchObject({ 'tasks.a.pdf_a': [expect.any(String)], 'tasks.a.optimize_print': [expect.any(String)] });
    expect(fields({ pdf_a: true, optimize_print: false, pages: '1-2' })).toEqual({});
  });

  it('become LibreOffice’s PDF export settings', () => {
    expect(pdfFilterData({})).toBeUndefined();
    expect(pdfFilterData({ pages: ' 1-3, 5 ', pdf_a: true, optimize_print: false })).toEqual({
      PageRange: { type: 'string', value: '1-3,5' },
      SelectPdfVersion: { type: 'long', value: '2' },
      ReduceImageResolution: { type: 'boolean', value: 'true' },
      MaxImageResolution: { type: 'long', value: '150' },
      Quality: { type: 'long', value: '80' },
    });
  });
});
