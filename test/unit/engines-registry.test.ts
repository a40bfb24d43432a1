import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseEngineConfig } from '#lib/kernel/config.js';
import { BUNDLED_VERSIONS, type EngineDescriptor } from '#lib/engines/core/catalog.js';
import { PACKAGED } from '#lib/engines/core/families.js';
import { compareVersions, EngineChoiceError, EngineRegistry, versionMatches, type Capability } from '#lib/engines/core/registry.js';
import { engineOffers, newEngineRegistry } from '#lib/file-api/operations/engines.js';
import { operationDefinition, OPERATIONS } from '#lib/file-api/operations/index.js';
import { PROCESSING_IMPLEMENTATIONS } from '../support/operations.js';

const settings = (env: Record<string, string> = {}) => parseEngineConfig(env);

/** Two engines for one operation; `fast` has two versions, the default decided by a setting. */
const fake: Array<EngineDescriptor & { capabilities: Capability[] }> = [
  {
    name: 'fast',
    description: 'fast',
    capabilities: [
      { operation: 'convert', inputs: ['jpg', 'png'], outputs: ['png', 'webp'], options: ['width'] },
      { operation: 'optimize', inputs: ['png'], outputs: 'same', options: [] },
    ],
    // CHROMIUM_PATH stands for "the operator installed the newer build": it becomes the default.
    detect: (s) => ({ versions: s.CHROMIUM_PATH ? [{ version: '2.0.1' }, { version: '1.4.0' }] : [{ version: '1.4.0' }] }),
  },
  {
    name: 'careful',
    description: 'careful',
    capabilities: [{ operation: 'convert', inputs: ['jpg', 'pdf'], outputs: ['png', 'pdf'], options: [] }],
    detect: () => ({ versions: [{ version: '10.00.0' }] }),
  },
  {
    name: 'absent',
    description: 'absent',
    capabilities: [{ operation: 'convert', inputs: ['docx'], outputs: ['pdf'], options: [] }],
    detect: () => ({ versions: [], missing: 'absent was not found; install it or set ABSENT_PATH' }),
  },
];
const order = { convert: ['fast', 'careful', 'absent'], optimize: ['fast'] };
const fakeOffers = { capabilities: fake.flatMap((d) => d.capabilities.map((c) => ({ ...c, engine: d.name }))), order };

describe('the engine registry', () => {
  it('picks the first available engine in order that serves the format pair', () => {
    const r = new EngineRegistry(settings(), fakeOffers, fake);
    expect(r.select('convert', { inputFormat: 'jpg', outputFormat: 'png' })).toMatchObject({ engine: 'fast', version: '1.4.0' });
    expect(r.select('convert', { inputFormat: 'pdf', outputFormat: 'png' })).toMatchObject({ engine: 'careful', version: '10.00.0' });
    expect(r.select('convert', { inputFormat: 'JPEG', outputFormat: 'PNG' }).engine).toBe('fast');
  });

  it('takes the order per operation from ENGINE_ORDER, unlisted engines after', () => {
    const r = new EngineRegistry(settings({ ENGINE_ORDER: 'convert=careful' }), fakeOffers, fake);
    expect(r.order('convert')).toEqual(['careful', 'fast', 'absent']);
    expect(r.select('convert', { inputFormat: 'jpg', outputFormat: 'png' }).engine).toBe('careful');
  });

  it('refuses settings that name unknown engines or operations, naming the setting', () => {
    expect(() => new EngineRegistry(settings({ ENGINE_ORDER: 'convert=magick' }), fakeOffers, fake)).toThrow(
      new ConfigError('ENGINE_ORDER: convert has no engine magick; its engines are fast, careful, absent'),
    );
    expect(() => new EngineRegistry(settings({ ENGINE_ORDER: 'fly=fast' }), fakeOffers, fake)).toThrow(/ENGINE_ORDER names fly/);
    expect(() => new EngineRegistry(settings({ ENGINES_DISABLED: 'nope' }), fakeOffers, fake)).toThrow(/ENGINES_DISABLED names nope; the engines are fast, careful, absent/);
    expect(() => parseEngineConfig({ ENGINE_ORDER: 'convert:fast' })).toThrow(/ENGINE_ORDER: "convert:fast" is not operation=engine,engine/);
  });

  it('treats a missing tool as "not available", never as a failure', () => {
    const r = new EngineRegistry(settings(), fakeOffers, fake);
    expect(r.isAvailable('absent')).toBe(false);
    expect(r.installation('absent').missing).toContain('ABSENT_PATH');
    expect(r.check('convert', { inputFormat: 'docx' })).toEqual([
      { field: 'input_format', message: 'convert cannot read docx files on this installation; input formats: jpg, png, pdf. absent would: absent was not found; install it or set ABSENT_PATH.' },
    ]);
    expect(r.check('convert', { engine: 'absent' })).toEqual([
      { field: 'engine', message: 'The engine absent is not available on this installation; choose one of: fast, careful.' },
    ]);
    expect(r.rows().some((row) => row.engine === 'absent')).toBe(false);
  });

  it('hides disabled engines', () => {
    const r = new EngineRegistry(settings({ ENGINES_DISABLED: 'fast' }), fakeOffers, fake);
    expect(r.installation('fast').missing).toBe('disabled by ENGINES_DISABLED');
    expect(r.select('convert', { inputFormat: 'jpg', outputFormat: 'png' }).engine).toBe('careful');
    expect(r.check('optimize', { inputFormat: 'png' })).toEqual([
      { field: 'input_format', message: 'optimize cannot read png files on this installation; input formats: none. fast would: disabled by ENGINES_DISABLED.' },
    ]);
  });

  it('names the choices for unknown engines, unserved pairs and versions', () => {
    const r = new EngineRegistry(settings(), fakeOffers, fake);
    const problem = (request: Parameters<EngineRegistry['check']>[1]) => r.check('convert', request)[0];
    expect(problem({ engine: 'magick' })).toEqual({ field: 'engine', message: 'There is no engine magick for convert; choose one of: fast, careful.' });
    expect(problem({ inputFormat: 'pdf', engine: 'fast' })).toEqual({
      field: 'engine',
      message: 'The engine fast cannot run convert from pdf; choose one of: careful.',
    });
    expect(problem({ inputFormat: 'jpg', outputFormat: 'gif' })).toEqual({
      field: 'output_format',
      message: 'convert cannot produce gif from jpg on this installation; output formats: png, webp, pdf.',
    });
    expect(problem({ engine: 'fast', engineVersion: '3' })).toEqual({
      field: 'engine_version',
      message: 'There is no version 3 of the engine fast; choose one of: 1.4.0.',
    });
    // Formats not known yet (a job's import has not run): only what is known is checked.
    expect(r.check('convert', { outputFormat: 'webp' })).toEqual([]);
    expect(() => r.select('convert', { inputFormat: 'docx', outputFormat: 'pdf' })).toThrow(EngineChoiceError);
  });

  it('keeps a pinned version in use when the default version changes', () => {
    const before = new EngineRegistry(settings(), fakeOffers, fake);
    const after = new EngineRegistry(settings({ CHROMIUM_PATH: '/opt/newer' }), fakeOffers, fake);
    const request = { inputFormat: 'png', outputFormat: 'webp' };
    expect(before.select('convert', request).version).toBe('1.4.0');
    expect(after.select('convert', request).version).toBe('2.0.1');
    expect(after.versions('fast')).toEqual([
      { version: '2.0.1', default: true, latest: true, deprecated: false, experimental: false },
      { version: '1.4.0', default: false, latest: false, deprecated: false, experimental: false },
    ]);
    for (const r of [before, after]) expect(r.select('convert', { ...request, engineVersion: '1.4' }).version).toBe('1.4.0');
    expect(after.select('convert', { ...request, engineVersion: '2' }).installed).toEqual({ version: '2.0.1' });
  });

  it('marks the default engine of each format pair for discovery', () => {
    const rows = new EngineRegistry(settings(), fakeOffers, fake).rows().filter((row) => row.operation === 'convert' && row.inputFormat === 'jpg' && row.outputFormat === 'png');
    expect(rows.map((row) => [row.engine, row.isDefault])).toEqual([
      ['fast', true],
      ['careful', false],
    ]);
  });
});

describe('versions', () => {
  it('match exactly or by dotted prefix', () => {
    expect(versionMatches('10.00.0', '10')).toBe(true);
    expect(versionMatches('10.00.0', '10.00')).toBe(true);
    expect(versionMatches('10.00.0', '1')).toBe(false);
    expect(versionMatches('147.0.7727.0', '147')).toBe(true);
  });

  it('compare numerically', () => {
    expect(compareVersions('10.2', '9.54')).toBeGreaterThan(0);
    expect(compareVersions('1.4.0', '1.4')).toBe(0);
    expect(compareVersions('5.1.9', '5.10.0')).toBeLessThan(0);
  });
});

describe('the real engine catalog', () => {
  it('declares the versions of the engines that ship as npm packages', async () => {
    // Read from node_modules: some packages do not export their package.json.
    const installed = (name: string) =>
      (JSON.parse(readFileSync(new URL(`../../node_modules/${name}/package.json`, import.meta.url), 'utf8')) as { version: string }).version;
    const sharp = (await import('sharp')).default;
    expect(sharp.versions.sharp).toBe(BUNDLED_VERSIONS.sharp);
    expect(installed('pdf-lib')).toBe(BUNDLED_VERSIONS.pdfLib);
    expect(installed('exiftool-vendored.pl')).toMatch(new RegExp(`^${BUNDLED_VERSIONS.exiftool.replace('.', '\\.')}(\\.|$)`));
    expect(installed('archiver')).toBe(BUNDLED_VERSIONS.archiver);
    expect(installed('exifr')).toBe(BUNDLED_VERSIONS.exifr);
    expect(installed('tesseract.js')).toBe(BUNDLED_VERSIONS.tesseractJs);
    expect(installed('fonteditor-core')).toBe(BUNDLED_VERSIONS.fonteditor);
    expect(installed('pdfjs-dist')).toBe(BUNDLED_VERSIONS.pdfjs);
    // The ExifTool script inside @uswriting/exiftool names its version.
    expect(readFileSync(new URL('../../node_modules/@uswriting/exiftool/dist/esm/index.js', import.meta.url), 'utf8')).toContain(
      `my$version='${BUNDLED_VERSIONS.exiftoolWasm}'`,
    );
    // @sparticuz/chromium's major is the Chromium major it ships (its full version is checked by the capture tests).
    expect(installed('@sparticuz/chromium').split('.')[0]).toBe(BUNDLED_VERSIONS.chromium.split('.')[0]);
  });

  it('lists only options that the operation schemas define', () => {
    for (const cap of engineOffers().capabilities) {
      const spec = operationDefinition(cap.operation);
      expect(spec, `${cap.engine}: ${cap.operation}`).toBeDefined();
      const shape = spec!.schema.shape as Record<string, unknown>;
      for (const option of cap.options) expect(shape[option], `${cap.engine} ${cap.operation} ${option}`).toBeDefined();
    }
  });

  it('has an engine order and an implementation for every processing operation', () => {
    const offers = engineOffers();
    const withEngines = new Set(offers.capabilities.map((c) => c.operation));
    for (const op of OPERATIONS.filter((o) => o.step === 'process')) {
      expect(withEngines.has(op.name), op.name).toBe(true);
      expect(offers.order[op.name], op.name).toBeDefined();
      expect(PROCESSING_IMPLEMENTATIONS[op.name], op.name).toBeTypeOf('function');
    }
  });

  it('makes an engine whose tool is missing unavailable', () => {
    // pandoc and calibre read docx too: missing as well, so that nothing reads a docx here.
    const r = newEngineRegistry(settings({ SOFFICE_PATH: 'no-such-soffice', PANDOC_PATH: 'no-such-pandoc', EBOOK_CONVERT_PATH: 'no-such-ebook-convert' }));
    expect(r.isAvailable('libreoffice')).toBe(false);
    expect(r.installation('libreoffice').missing).toBe('no-such-soffice was not found; install it or set SOFFICE_PATH');
    expect(r.check('convert', { inputFormat: 'docx', outputFormat: 'pdf' })[0]?.field).toBe('input_format');
    expect(r.check('convert', { inputFormat: 'docx', outputFormat: 'pdf', engine: 'libreoffice' })).toEqual([
      { field: 'input_format', message: expect.stringMatching(/^convert cannot read docx files on this installation; input formats: /) },
    ]);
    expect(r.rows().some((row) => row.engine === 'libreoffice')).toBe(false);
  });

  it('falls back to the engines shipped in npm packages when the system tools are missing', () => {
    const r = newEngineRegistry(
      settings({ GHOSTSCRIPT_PATH: '/nonexistent/gs', QPDF_PATH: '/nonexistent/qpdf', FFMPEG_PATH: '/nonexistent/ffmpeg', FFPROBE_PATH: '/nonexistent/ffprobe', PERL_PATH: '/nonexistent/perl', TESSERACT_PATH: '/nonexistent/tesseract' }),
    );
    // tesseract.js, as the pdf function's package has it (PACKAGED).
    expect(r.installation('tesseract').versions).toEqual([{ version: BUNDLED_VERSIONS.tesseractJs, variant: 'wasm' }]);
    expect(r.select('pdf/ocr', { inputFormat: 'png', outputFormat: 'pdf' })).toMatchObject({ engine: 'tesseract', version: BUNDLED_VERSIONS.tesseractJs });
    expect(r.installation('ghostscript').versions).toEqual([expect.objectContaining({ version: BUNDLED_VERSIONS.ghostscriptWasm, variant: 'wasm' })]);
    expect(r.installation('qpdf').versions).toEqual([expect.objectContaining({ version: BUNDLED_VERSIONS.qpdfWasm, variant: 'wasm' })]);
    expect(r.installation('ffmpeg').versions).toEqual([expect.objectContaining({ version: '4.1.0', variant: 'npm', executable: expect.stringMatching(/ffmpeg$/) })]);
    expect(r.installation('exiftool').versions).toEqual([expect.objectContaining({ version: BUNDLED_VERSIONS.exiftoolWasm, variant: 'wasm' })]);
    expect(r.select('metadata/write', { inputFormat: 'jpg' })).toMatchObject({ engine: 'exiftool', version: BUNDLED_VERSIONS.exiftoolWasm });
    expect(r.select('metadata', { inputFormat: 'mp4' })).toMatchObject({ engine: 'exiftool', version: BUNDLED_VERSIONS.exiftoolWasm });
    expect(r.select('optimize', { inputFormat: 'pdf' })).toMatchObject({ engine: 'ghostscript', version: BUNDLED_VERSIONS.ghostscriptWasm });
    // Fonts: npm packages in a node child, as the image function's package has them (PACKAGED).
    expect(r.installation('fonteditor').versions).toEqual(PACKAGED.fonteditor!.versions);
    expect(r.select('convert', { inputFormat: 'ttf', outputFormat: 'woff2' })).toMatchObject({ engine: 'fonteditor', version: BUNDLED_VERSIONS.fonteditor });
    expect(r.select('convert', { inputFormat: 'woff2', outputFormat: 'otf' })).toMatchObject({ engine: 'fonteditor' });
  });

  it('prefers exiftool on perl, then ExifTool in WebAssembly, then the native metadata engine', () => {
    // perl found (this file itself stands in for it): the Perl ExifTool first, the WebAssembly one pinnable.
    const withPerl = newEngineRegistry(settings({ PERL_PATH: process.execPath, ENGINE_CONFINEMENT: 'none' }));
    expect(withPerl.installation('exiftool').versions).toEqual([
      expect.objectContaining({ version: BUNDLED_VERSIONS.exiftool, variant: 'perl' }),
      expect.objectContaining({ version: BUNDLED_VERSIONS.exiftoolWasm, variant: 'wasm' }),
    ]);
    expect(withPerl.select('metadata/write', { inputFormat: 'jpg' })).toMatchObject({ engine: 'exiftool', version: BUNDLED_VERSIONS.exiftool });
    expect(withPerl.select('metadata', { inputFormat: 'pdf', engineVersion: BUNDLED_VERSIONS.exiftoolWasm }).installed).toMatchObject({ variant: 'wasm' });
    // No perl: WebAssembly.
    const noPerl = newEngineRegistry(settings({ PERL_PATH: '/nonexistent/perl' }));
    expect(noPerl.select('metadata/write', { inputFormat: 'pdf' })).toMatchObject({ engine: 'exiftool', version: BUNDLED_VERSIONS.exiftoolWasm });
    // No perl and no shipped engines: the native one, and discovery says why exiftool is missing.
    const nothing = newEngineRegistry(settings({ PERL_PATH: '/nonexistent/perl', SHIPPED_ENGINES: 'false' }));
    expect(nothing.isAvailable('exiftool')).toBe(false);
    expect(nothing.installation('exiftool').missing).toBe('exiftool needs perl; /nonexistent/perl was not found (set PERL_PATH)');
    expect(nothing.select('metadata/write', { inputFormat: 'jpg' })).toMatchObject({ engine: 'native' });
    expect(nothing.select('metadata', { inputFormat: 'pdf' })).toMatchObject({ engine: 'native' });
    // An operator can still put the native engine first.
    const nativeFirst = newEngineRegistry(settings({ PERL_PATH: '/nonexistent/perl', ENGINE_ORDER: 'metadata=native,exiftool' }));
    expect(nativeFirst.select('metadata', { inputFormat: 'jpg' })).toMatchObject({ engine: 'native' });
  });
});

describe('an engine whose variants do different things (ImageMagick: wasm converts, system runs command)', () => {
  const twoVariants: Array<EngineDescriptor & { capabilities: Capability[] }> = [
    {
      name: 'magick',
      description: 'magick',
      capabilities: [
        { operation: 'convert', inputs: ['bmp'], outputs: ['png'], options: [], variant: 'wasm' },
        { operation: 'command', inputs: 'any', outputs: null, options: [], variant: 'system' },
      ],
      // CHROMIUM_PATH stands for "the system build is installed".
      detect: (s) => ({ versions: [{ version: '7.1.2', variant: 'wasm' }, ...(s.CHROMIUM_PATH ? [{ version: '6.9.11', variant: 'system' }] : [])] }),
    },
  ];
  const offers = {
    capabilities: twoVariants.flatMap((d) => d.capabilities.map((c) => ({ ...c, engine: d.name }))),
    order: { convert: ['magick'], command: ['magick'] },
  };

  it('runs each capability on its own variant, and offers a capability only where its variant is installed', () => {
    const both = new EngineRegistry(settings({ CHROMIUM_PATH: '/usr/bin/x' }), offers, twoVariants);
    expect(both.select('convert', { inputFormat: 'bmp', outputFormat: 'png' }).version).toBe('7.1.2');
    expect(both.select('command', { inputFormat: 'png', outputFormat: undefined }).version).toBe('6.9.11');
    const wasmOnly = new EngineRegistry(settings(), offers, twoVariants);
    expect(wasmOnly.rows().map((r) => r.operation)).toEqual(['convert']);
  });

  it('offers as versions of a pair only those of the variant that runs it', () => {
    const both = new EngineRegistry(settings({ CHROMIUM_PATH: '/usr/bin/x' }), offers, twoVariants);
    expect(both.check('convert', { inputFormat: 'bmp', outputFormat: 'png', engineVersion: '6.9.11' })).toEqual([
      { field: 'engine_version', message: 'There is no version 6.9.11 of the engine magick; choose one of: 7.1.2.' },
    ]);
  });
});
