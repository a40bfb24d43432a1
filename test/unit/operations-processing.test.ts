import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { parseEngineConfig } from '#lib/kernel/config.js';
import type { EngineDescriptor } from '#lib/engines/core/catalog.js';
import { parseTimestamp } from '#lib/engines/media/ffmpeg.js';
import { formatOfFilename, normalizeFormat, sniffFormat } from '#lib/engines/core/formats.js';
import { selectPages, standardFont } from '#lib/engines/pdf/pdf.js';
import { EngineRegistry } from '#lib/engines/core/registry.js';
import { fontDescription, placement } from '#lib/engines/image/sharp.js';
import { ApiError } from '#lib/kernel/errors.js';
import { discover, optionView } from '#lib/file-api/operations/discovery.js';
import { outputNames } from '#lib/file-api/operations/engine-task.js';
import { planJob, validateTask } from '#lib/file-api/tasks/plan.js';

function fieldsOf(tasks: Record<string, unknown>): Record<string, string[]> {
  try {
    planJob({ tasks });
  } catch (err) {
    if (err instanceof ApiError) return err.fields ?? {};
    throw err;
  }
  return {};
}

describe('processing operation schemas', () => {
  it('accept the seed’s watermark arguments and keep unknown ones', () => {
    const errors: Record<string, string[]> = {};
    const checked = validateTask(
      {
        operation: 'watermark',
        input: 'doc',
        input_format: 'pdf',
        layer: 'above',
        text: 'Draft',
        font_size: 30,
        font_color: '#ff0000',
        font_name: 'Times New Roman Bold',
        position_vertical: 'center',
        position_horizontal: 'center',
        margin_vertical: 10,
        margin_horizontal: 10,
        opacity: 50,
        rotation: -45,
        font_width_percent: 80,
        image_width_percent: 20,
        pages: '1-3,5',
        filename: 'out.pdf',
        engine: 'pdf-lib',
        timeout: 60,
        custom: 1,
      },
      '',
      errors,
    );
    expect(errors).toEqual({});
    expect(checked?.payload).toMatchObject({ custom: 1, rotation: -45 });
  });

  it('name the offending watermark and capture fields', () => {
    expect(
      fieldsOf({
        a: { operation: 'watermark', input: 'x', image: 'logo' },
        x: { operation: 'import/raw', file: 'a', filename: 'a.pdf' },
        b: { operation: 'watermark', text: 'T', opacity: 150, font_color: 'red', font_name: 'Comic Sans' },
        c: { operation: 'capture-website', url: 'file:///etc/passwd', output_format: 'pdf' },
        d: { operation: 'capture-website', url: 'https://example.com', output_format: 'gif', device_scale_factor: 9 },
        e: { operation: 'thumbnail', input: 'x', output_format: 'png', timestamp: 'soon' },
        f: { operation: 'watermark', input: 'x' },
      }),
    ).toMatchObject({
      'tasks.a.image': ['must be an http(s) URL or a task that is also listed in input'],
      'tasks.b.opacity': [expect.stringContaining('100')],
      'tasks.b.font_color': ['must be a colour in #rrggbb form'],
      'tasks.b.font_name': [expect.stringContaining('Helvetica Bold Italic')],
      'tasks.c.url': ['must be an http or https URL'],
      'tasks.d.output_format': [expect.stringContaining('"pdf"')],
      'tasks.d.device_scale_factor': [expect.any(String)],
      'tasks.e.timestamp': [expect.any(String)],
      'tasks.f.text': ['a watermark needs text or image'],
    });
  });

  it('check metadata/write fields and merge output', () => {
    expect(
      fieldsOf({
        x: { operation: 'import/raw', file: 'a', filename: 'a.jpg' },
        a: { operation: 'metadata/write', input: 'x', metadata: {} },
        b: { operation: 'metadata/write', input: 'x', metadata: { 'bad key': 'v' } },
        c: { operation: 'merge', input: 'x', output_format: 'docx' },
      }),
    ).toMatchObject({
      'tasks.a.metadata': ['must hold at least one field'],
      'tasks.b.metadata.bad key': [expect.any(String)],
      'tasks.c.output_format': [expect.any(String)],
    });
  });
});

describe('output names', () => {
  it('derive from the input, number several, honour filename and %d', () => {
    expect(outputNames(undefined, 'photo.jpg', 'png', 1)).toEqual(['photo.png']);
    expect(outputNames(undefined, 'doc.pdf', 'png', 2)).toEqual(['doc-1.png', 'doc-2.png']);
    expect(outputNames('out.png', 'doc.pdf', 'png', 1)).toEqual(['out.png']);
    expect(outputNames('page-%d.png', 'doc.pdf', 'png', 2)).toEqual(['page-1.png', 'page-2.png']);
    expect(outputNames('page.png', 'doc.pdf', 'png', 2)).toEqual(['page-1.png', 'page-2.png']);
  });
});

describe('pages, timestamps, formats, fonts', () => {
  it('select page ranges', () => {
    expect(selectPages(undefined, 3)).toEqual([1, 2, 3]);
    expect(selectPages('2-3', 5)).toEqual([2, 3]);
    expect(selectPages('1,4-', 6)).toEqual([1, 4, 5, 6]);
    expect(selectPages('3,1,9', 4)).toEqual([1, 3]);
  });

  it('read timestamps as seconds, clock time or a share of the duration', () => {
    expect(parseTimestamp(5, 10)).toBe(5);
    expect(parseTimestamp('00:01:02.5', 100)).toBe(62.5);
    expect(parseTimestamp('10%', 30)).toBe(3);
    expect(parseTimestamp('7', 30)).toBe(7);
  });

  it('normalise and detect formats', () => {
    expect(normalizeFormat('JPEG')).toBe('jpg');
    expect(formatOfFilename('a.TIF')).toBe('tiff');
    expect(formatOfFilename('noext')).toBeUndefined();
    expect(sniffFormat(Buffer.from('%PDF-1.7\n'))).toBe('pdf');
    expect(sniffFormat(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d]))).toBe('png');
    expect(sniffFormat(Buffer.from('  <!DOCTYPE html><html>'))).toBe('html');
  });

  it('map the API’s font names to PDF standard fonts and fontconfig families', () => {
    expect(standardFont('Arial')).toBe('Helvetica');
    expect(standardFont('Times New Roman Bold Italic')).toBe('Times-BoldItalic');
    expect(standardFont('Courier New Italic')).toBe('Courier-Oblique');
    expect(fontDescription('Verdana Bold')).toBe('sans-serif Bold');
    expect(fontDescription('Courier New')).toBe('monospace');
  });

  it('place a watermark by position and margins, inside the canvas', () => {
    const canvas = { width: 1000, height: 500 };
    const mark = { width: 200, height: 100 };
    expect(placement({}, canvas, mark)).toEqual({ left: 400, top: 200 });
    expect(placement({ position_horizontal: 'right', position_vertical: 'bottom', margin_horizontal: 10, margin_vertical: 20 }, canvas, mark)).toEqual({ left: 790, top: 380 });
    expect(placement({ position_horizontal: 'left', position_vertical: 'top', margin_horizontal: 5000 }, canvas, mark)).toEqual({ left: 800, top: 25 });
  });
});

describe('discovery', () => {
  const engines: EngineDescriptor[] = [
    { name: 'sharp', description: '', detect: () => ({ versions: [{ version: '0.35.5' }] }) },
    { name: 'ghostscript', description: '', detect: () => ({ versions: [{ version: '10.00.0' }] }) },
    { name: 'libreoffice', description: '', detect: () => ({ versions: [] }) },
  ];
  const offers = {
    capabilities: [
      { engine: 'sharp', operation: 'convert', inputs: ['jpg'], outputs: ['png', 'webp'], options: ['width', 'fit', 'quality'] },
      { engine: 'ghostscript', operation: 'convert', inputs: ['jpg', 'pdf'], outputs: ['png'], options: ['pages', 'density'] },
      { engine: 'ghostscript', operation: 'optimize', inputs: ['pdf'], outputs: 'same' as const, options: ['profile'] },
      { engine: 'libreoffice', operation: 'convert', inputs: ['docx'], outputs: ['pdf'], options: [] },
    ],
    order: { convert: ['sharp', 'ghostscript', 'libreoffice'], optimize: ['ghostscript'] },
  };
  const registry = new EngineRegistry(parseEngineConfig({}), offers, engines);

  it('lists what is installed, default engines only unless alternatives are asked for', () => {
    const rows = discover({ 'filter[operation]': 'convert' }, { registry });
    expect(rows.map((r) => `${r.input_format}>${r.output_format}:${r.engine}`)).toEqual(['jpg>png:sharp', 'jpg>webp:sharp', 'pdf>png:ghostscript']);
    const all = discover({ 'filter[operation]': 'convert', alternatives: 'true' }, { registry });
    expect(all.map((r) => `${r.input_format}>${r.output_format}:${r.engine}`)).toContain('jpg>png:ghostscript');
    expect(all.some((r) => r.engine === 'libreoffice')).toBe(false);
    expect(rows[0]).toEqual({
      operation: 'convert',
      input_format: 'jpg',
      output_format: 'png',
      engine: 'sharp',
      credits: 1,
      deprecated: false,
      experimental: false,
      meta: { group: 'image' },
    });
  });

  it('filters by formats, engine and version; includes options and versions from the schemas', () => {
    const [row, ...rest] = discover(
      { 'filter[input_format]': 'JPEG', 'filter[output_format]': 'png', 'filter[engine]': 'ghostscript', include: 'options,engine_versions' },
      { registry },
    );
    expect(rest).toEqual([]);
    expect(row).toMatchObject({ operation: 'convert', engine: 'ghostscript' });
    expect(row!.options).toEqual([
      { name: 'pages', type: 'string', default: null, description: 'PDF and documents: the pages to convert' },
      { name: 'density', type: 'integer', default: 150, description: 'PDF rendering dpi' },
    ]);
    expect(row!.engine_versions).toEqual([{ version: '10.00.0', default: true, latest: true, deprecated: false, experimental: false }]);
    expect(discover({ 'filter[engine_version]': '10' }, { registry }).map((r) => `${r.operation} ${r.input_format}>${r.output_format}`)).toEqual(['convert jpg>png', 'convert pdf>png', 'optimize pdf>pdf']);
    expect(discover({ 'filter[engine_version]': '11' }, { registry })).toEqual([]);
    const optimize = discover({ 'filter[operation]': 'optimize', include: 'options' }, { registry });
    expect(optimize).toMatchObject([{ input_format: 'pdf', output_format: 'pdf', engine: 'ghostscript' }]);
    expect(optimize[0]!.options![0]).toEqual({ name: 'profile', type: 'enum', default: 'web', possible_values: ['web', 'print', 'archive', 'mrc', 'max'] });
  });

  it('restricts /v2/convert/formats to convert and lists operations without engines without formats', () => {
    expect(new Set(discover({}, { registry, restrictTo: 'convert' }).map((r) => r.operation))).toEqual(new Set(['convert']));
    const exports = discover({ 'filter[operation]': 'export/url', include: 'options' }, { registry });
    expect(exports).toEqual([
      expect.objectContaining({ operation: 'export/url', input_format: null, output_format: null, engine: null, credits: 0 }),
    ]);
    expect(exports[0]!.options!.map((o) => [o.name, o.type])).toEqual([
      ['inline', 'boolean'],
      ['archive_multiple_files', 'boolean'],
    ]);
  });

  it('describes option types the way the API names them', () => {
    expect(optionView('n', z.number().optional())).toMatchObject({ type: 'float', default: null });
    expect(optionView('d', z.record(z.string(), z.string()).optional())).toMatchObject({ type: 'dictionary' });
    expect(optionView('t', z.union([z.number(), z.string()]).optional().meta({ default: '00:00:00' }))).toMatchObject({ type: 'string', default: '00:00:00' });
  });
});
