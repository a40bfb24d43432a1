/**
 * Discovery as CloudConvert answers it, on a registry of made-up engines (so that the rows are the
 * test's, whatever engines the tree has): `meta.group` is the family of the format a row produces,
 * `alternative` (the official SDKs' name) and `alternatives` both list the non-default engines, the
 * rows are computed once per registry, and the format counts (`npm run formats`) are those of the rows.
 */
import { gunzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { parseEngineConfig } from '#lib/kernel/config.js';
import type { EngineDescriptor } from '#lib/engines/core/catalog.js';
import { EngineRegistry } from '#lib/engines/core/registry.js';
import { FORMAT_FAMILIES, formatFamily } from '#lib/file-api/operations/format-families.js';
import { discover, discoveryResponse } from '#lib/file-api/operations/discovery.js';
import { countFormats, missingFormats } from '#lib/file-api/operations/format-counts.js';

const engines: EngineDescriptor[] = [
  { name: 'sharp', description: '', detect: () => ({ versions: [{ version: '0.35.5' }] }) },
  { name: 'ffmpeg', description: '', detect: () => ({ versions: [{ version: '7.1' }] }) },
  { name: 'libreoffice', description: '', detect: () => ({ versions: [{ version: '7.4' }], features: ['writer'] }) },
  { name: 'fonts', description: '', detect: () => ({ versions: [], missing: 'fonttools was not found' }) },
];
const offers = {
  capabilities: [
    { engine: 'sharp', operation: 'convert', inputs: ['jpg', 'png'], outputs: ['png', 'webp'], options: ['quality'] },
    { engine: 'ffmpeg', operation: 'convert', inputs: ['mp4', 'mov'], outputs: ['mp3', 'webm', 'gif'], options: [] },
    { engine: 'ffmpeg', operation: 'convert', inputs: ['png'], outputs: ['webp'], options: [] },
    { engine: 'libreoffice', operation: 'convert', inputs: ['docx'], outputs: ['pdf'], options: [] },
    { engine: 'libreoffice', operation: 'convert', inputs: ['xlsx', 'ods'], outputs: ['pdf'], options: [], feature: 'calc' },
    { engine: 'fonts', operation: 'convert', inputs: ['ttf', 'woff2'], outputs: ['woff2', 'otf'], options: [] },
  ],
  order: { convert: ['sharp', 'ffmpeg', 'libreoffice', 'fonts'] },
};
const FORMATS = Array.from({ length: 40 }, (_, i) => `f${i}`);
const registry = () => new EngineRegistry(parseEngineConfig({}), offers, engines);

describe('discovery rows', () => {
  it('groups a row by the family of the format it produces, as CloudConvert does (mp4 → mp3 is audio)', () => {
    const rows = discover({ 'filter[input_format]': 'mp4' }, { restrictTo: 'convert', registry: registry() });
    expect(Object.fromEntries(rows.map((r) => [r.output_format, r.meta.group]))).toEqual({ mp3: 'audio', webm: 'video', gif: 'image' });
  });

  it('lists the non-default engines for alternative=true (the SDKs) as for alternatives=true', () => {
    const r = registry();
    const defaults = discover({ 'filter[input_format]': 'png', 'filter[output_format]': 'webp' }, { registry: r });
    expect(defaults.map((x) => x.engine)).toEqual(['sharp']);
    for (const query of [{ alternative: 'true' }, { alternatives: 'true' }] as const) {
      const all = discover({ 'filter[input_format]': 'png', 'filter[output_format]': 'webp', ...query }, { registry: r });
      expect(all.map((x) => x.engine)).toEqual(['sharp', 'ffmpeg']);
    }
  });

  it('computes the rows once per registry, then only filters them', () => {
    const r = registry();
    const rows = vi.spyOn(r, 'rows');
    const first = discover({}, { registry: r });
    const second = discover({ 'filter[engine]': 'ffmpeg', include: 'options,engine_versions' }, { registry: r });
    discover({ 'filter[output_format]': 'pdf' }, { restrictTo: 'convert', registry: r });
    expect(rows).toHaveBeenCalledTimes(1);
    expect(first.length).toBeGreaterThan(second.length);
    expect(second.every((x) => x.engine === 'ffmpeg' && x.engine_versions?.[0]?.version === '7.1' && Array.isArray(x.options))).toBe(true);
    // What a request gets is its own: changing it changes no later answer.
    first[0]!.meta.group = 'changed';
    expect(discover({}, { registry: r })[0]!.meta.group).not.toBe('changed');
  });
});

describe('format counts', () => {
  it('counts distinct inputs, outputs, formats and pairs, overall and per family, from the rows', () => {
    const counts = countFormats(discover({}, { restrictTo: 'convert', registry: registry() }));
    // jpg png mp4 mov docx in; png webp mp3 webm gif pdf out.
    expect(counts).toMatchObject({ inputs: 5, outputs: 6, formats: 10, pairs: 4 + 6 + 1 });
    expect(counts.families.image).toEqual({ inputs: 2, outputs: 3, formats: 4, pairs: 4 + 2 });
    expect(counts.families.video).toEqual({ inputs: 2, outputs: 1, formats: 3, pairs: 2 });
    expect(counts.families.audio).toEqual({ inputs: 0, outputs: 1, formats: 1, pairs: 2 });
    expect(counts.families.document).toEqual({ inputs: 1, outputs: 1, formats: 2, pairs: 1 });
    expect(counts.engines).toEqual({ sharp: 4, ffmpeg: 6, libreoffice: 1 });
  });

  it('names the formats a missing engine or part would add, by family, with the reason', () => {
    const missing = missingFormats(registry());
    expect(missing).toEqual([
      { engine: 'libreoffice', reason: 'libreoffice has no calc here', families: { spreadsheet: ['xlsx', 'ods'] } },
      { engine: 'fonts', reason: 'fonttools was not found', families: { font: ['ttf', 'woff2', 'otf'] } },
    ]);
  });

  it('knows the family of what CloudConvert lists, aliases included', () => {
    expect(['HEIC', 'cr2', 'jpeg', 'psd'].map(formatFamily)).toEqual(['image', 'image', 'image', 'image']);
    expect(['wma', 'aac', 'flv', 'mts', 'tar.gz', '7z', 'woff2', 'eot', 'epub', 'xlsx', 'pptx', 'eps', 'dwg', 'nonsense'].map(formatFamily)).toEqual([
      'audio', 'audio', 'video', 'video', 'archive', 'archive', 'font', 'font', 'ebook', 'spreadsheet', 'presentation', 'vector', 'cad', 'other',
    ]);
    expect(FORMAT_FAMILIES).toContain('other');
  });
});

describe('the discovery answer', () => {
  const many = new EngineRegistry(
    parseEngineConfig({}),
    {
      capabilities: [{ engine: 'bench', operation: 'convert', inputs: FORMATS, outputs: FORMATS, options: ['quality', 'width', 'height', 'fit', 'pages'] }],
      order: { convert: ['bench'] },
    },
    [{ name: 'bench', description: '', detect: () => ({ versions: [{ version: '1.0' }] }) }],
  );

  it('is gzipped when large and the client takes gzip (a Lambda answer may not exceed 6 MB), plain otherwise', async () => {
    const rows = discover({ include: 'options,engine_versions' }, { restrictTo: 'convert', registry: many });
    expect(rows.length).toBe(FORMATS.length ** 2);
    const zipped = await discoveryResponse(rows, 'gzip, deflate, br');
    expect(zipped.headers).toMatchObject({ 'content-encoding': 'gzip', 'content-type': 'application/json', vary: 'accept-encoding' });
    const text = gunzipSync(zipped.body as Buffer).toString('utf8');
    expect(JSON.parse(text)).toEqual({ data: rows });
    expect((zipped.body as Buffer).length).toBeLessThan(text.length / 10);
    for (const accept of [undefined, 'identity', 'gzip;q=0', 'br']) {
      const plain = await discoveryResponse(rows, accept);
      expect(plain.headers?.['content-encoding']).toBeUndefined();
      expect(JSON.parse(plain.body as string)).toEqual({ data: rows });
    }
    const small = await discoveryResponse(rows.slice(0, 3), 'gzip');
    expect(small.headers?.['content-encoding']).toBeUndefined();
  });
});
