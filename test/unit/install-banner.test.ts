/**
 * What the start banner and `npm run formats` say installing a Debian package adds, when the document
 * engines are absent (a fresh machine: no soffice, ebook-convert, pandoc): the formats per family come
 * from the engines' capabilities and the package table, so engines added later show up by themselves.
 */
import { describe, expect, it } from 'vitest';
import { parseEngineConfig } from '#lib/kernel/config.js';
import type { EngineDescriptor } from '#lib/engines/core/catalog.js';
import { EngineRegistry } from '#lib/engines/core/registry.js';
import { ENGINE_PACKAGES, installCommand } from '#lib/engines/core/install-packages.js';
import { engineAdvice } from '../../local/engine-setup.js';
import { formatReport, missingFamilyLines, reportLines } from '../../local/format-report.js';

const absent = (name: string, missing: string): EngineDescriptor => ({ name, description: '', detect: () => ({ versions: [], missing }) });
const present = (name: string, features?: string[]): EngineDescriptor => ({ name, description: '', detect: () => ({ versions: [{ version: '1' }], features }) });

const capabilities = [
  { engine: 'sharp', operation: 'convert', inputs: ['jpg', 'png'], outputs: ['png', 'pdf'], options: [] },
  { engine: 'libreoffice', operation: 'convert', inputs: ['docx', 'odt'], outputs: ['pdf', 'docx'], options: [], feature: 'writer' },
  { engine: 'libreoffice', operation: 'convert', inputs: ['xlsx', 'ods'], outputs: ['pdf', 'xlsx'], options: [], feature: 'calc' },
  { engine: 'libreoffice', operation: 'convert', inputs: ['pptx', 'odp'], outputs: ['pdf'], options: [], feature: 'impress' },
  { engine: 'calibre', operation: 'convert', inputs: ['epub', 'mobi', 'docx'], outputs: ['epub', 'azw3', 'pdf'], options: [] },
  { engine: 'pandoc', operation: 'convert', inputs: ['md', 'rst', 'docx'], outputs: ['html', 'docx'], options: [] },
  { engine: 'ffmpeg', operation: 'convert', inputs: ['mp4'], outputs: ['webm'], options: [] },
];
const offers = { capabilities, order: { convert: ['sharp', 'libreoffice', 'calibre', 'pandoc', 'ffmpeg'] } };

const fresh = () =>
  new EngineRegistry(parseEngineConfig({}), offers, [
    present('sharp'),
    absent('libreoffice', 'soffice was not found; install it or set SOFFICE_PATH'),
    absent('calibre', 'ebook-convert was not found; install it or set CALIBRE_PATH'),
    absent('pandoc', 'pandoc was not found; install it or set PANDOC_PATH'),
    absent('ffmpeg', 'ffmpeg was not found'),
  ]);

describe('what installing a package adds', () => {
  it('lists, per package, every format it alone would add, by family in the families\' order', () => {
    const report = formatReport(fresh());
    expect(report.packages).toEqual([
      {
        install: installCommand('libreoffice'),
        engines: ['libreoffice'],
        families: { document: ['docx', 'odt'], spreadsheet: ['xlsx', 'ods'], presentation: ['pptx', 'odp'] },
      },
      { install: installCommand('calibre'), engines: ['calibre'], families: { document: ['docx'], ebook: ['epub', 'mobi', 'azw3'] } },
      { install: installCommand('pandoc'), engines: ['pandoc'], families: { document: ['md', 'rst', 'docx', 'html'] } },
    ]);
    expect(installCommand('libreoffice')).toBe('apt-get install libreoffice-nogui bubblewrap');
  });

  it('gives the banner one line per package instead of the families those engines miss', () => {
    const [, ...lines] = missingFamilyLines(formatReport(fresh()), '  formats  ');
    expect(lines).toEqual([
      '           missing video (mp4, webm): ffmpeg (missing, see above)',
      '           apt-get install libreoffice-nogui bubblewrap adds 6 formats: document docx, odt; spreadsheet xlsx, ods; presentation pptx, odp',
      '           apt-get install calibre bubblewrap adds 4 formats: document docx; ebook epub, mobi, azw3',
      '           apt-get install pandoc bubblewrap adds 4 formats: document md, rst, docx, html',
    ]);
  });

  it('names only the parts a partial install lacks (LibreOffice Writer without Calc and Impress)', () => {
    const registry = new EngineRegistry(parseEngineConfig({}), offers, [
      present('sharp'),
      present('libreoffice', ['writer']),
      present('calibre'),
      present('pandoc'),
      present('ffmpeg'),
    ]);
    const [, ...lines] = missingFamilyLines(formatReport(registry), '');
    expect(lines).toEqual(['apt-get install libreoffice-nogui bubblewrap adds 4 formats: spreadsheet xlsx, ods; presentation pptx, odp']);
  });

  it('prints the same in npm run formats, and the advice for a missing engine names its package', () => {
    const lines = reportLines(formatReport(fresh()));
    expect(lines).toContain('what installing adds here:');
    expect(lines).toContain('  apt-get install calibre bubblewrap: document docx; ebook epub, mobi, azw3');
    expect(engineAdvice('libreoffice')).toContain(installCommand('libreoffice'));
    for (const engine of Object.keys(ENGINE_PACKAGES)) expect(engineAdvice(engine)).toMatch(/apt-get install/);
  });
});

describe('a format only a missing engine reads', () => {
  it('is refused at creation with why that engine is not here and what installs it', () => {
    const [problem] = fresh().check('convert', { inputFormat: 'xlsx', outputFormat: 'pdf' });
    expect(problem).toEqual({
      field: 'input_format',
      message:
        'convert cannot read xlsx files on this installation; input formats: jpg, png. libreoffice would: soffice was not found; install it or set SOFFICE_PATH (apt-get install libreoffice-nogui bubblewrap).',
    });
    const [output] = fresh().check('convert', { inputFormat: 'png', outputFormat: 'docx' });
    expect(output?.message).toMatch(/^convert cannot produce docx from png on this installation; output formats: png, pdf\.$/);
  });

  it('names the missing part of an installed engine', () => {
    const registry = new EngineRegistry(parseEngineConfig({}), offers, [present('sharp'), present('libreoffice', ['writer']), present('calibre'), present('pandoc'), present('ffmpeg')]);
    expect(registry.check('convert', { inputFormat: 'pptx', outputFormat: 'pdf' })[0]?.message).toMatch(
      /; input formats: .*\. libreoffice would: libreoffice has no impress here \(apt-get install libreoffice-nogui bubblewrap\)\.$/,
    );
    expect(registry.check('convert', { inputFormat: 'heic', outputFormat: 'pdf' })[0]?.message).toMatch(/; input formats: [^.]*\.$/);
  });

  it('in the deployed stack, names what to deploy instead of a package', () => {
    const deployed = new EngineRegistry(parseEngineConfig({ ENGINE_FUNCTIONS: 'image' }), offers, [present('sharp'), present('libreoffice'), present('calibre'), present('pandoc'), present('ffmpeg')]);
    const message = deployed.check('convert', { inputFormat: 'xlsx', outputFormat: 'pdf' })[0]?.message;
    expect(message).toMatch(/ libreoffice would: this stack was deployed without the office engine function .*OFFICE_IMAGE=1 .*OFFICE_IMAGE_URI\.$/);
    expect(message).not.toContain('apt-get');
  });
});
