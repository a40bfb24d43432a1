/**
 * The start banner's format lines and `npm run formats`' report (local/format-report.ts), on a
 * registry of made-up engines: the families missing here come from the registry's reasons, grouped by
 * family, with how to add them (engine-setup.ts's advice), each said once.
 */
import { describe, expect, it } from 'vitest';
import { parseEngineConfig } from '#lib/kernel/config.js';
import type { EngineDescriptor } from '#lib/engines/core/catalog.js';
import { EngineRegistry } from '#lib/engines/core/registry.js';
import { engineAdvice } from '../../local/engine-setup.js';
import { formatReport, missingFamilyLines, reportLines } from '../../local/format-report.js';

const engines: EngineDescriptor[] = [
  { name: 'sharp', description: '', detect: () => ({ versions: [{ version: '0.35.5' }] }) },
  { name: 'libreoffice', description: '', detect: () => ({ versions: [{ version: '7.4' }], features: ['writer'] }) },
  { name: 'ffmpeg', description: '', detect: () => ({ versions: [], missing: 'ffmpeg was not found; install it or set FFMPEG_PATH' }) },
];
const offers = {
  capabilities: [
    { engine: 'sharp', operation: 'convert', inputs: ['jpg', 'png'], outputs: ['png'], options: [] },
    { engine: 'libreoffice', operation: 'convert', inputs: ['docx'], outputs: ['pdf'], options: [] },
    { engine: 'libreoffice', operation: 'convert', inputs: ['xlsx', 'ods'], outputs: ['pdf'], options: [], feature: 'calc' },
    { engine: 'libreoffice', operation: 'convert', inputs: ['pptx'], outputs: ['pdf'], options: [], feature: 'impress' },
    { engine: 'ffmpeg', operation: 'convert', inputs: ['mp4', 'wma'], outputs: ['mp3', 'webm'], options: [] },
  ],
  order: { convert: ['sharp', 'libreoffice', 'ffmpeg'] },
};

describe('format report', () => {
  const report = formatReport(new EngineRegistry(parseEngineConfig({}), offers, engines));

  it('counts what discovery lists and names each missing family with its cause', () => {
    expect(report.convert).toMatchObject({ inputs: 3, outputs: 2, formats: 4, pairs: 3 });
    expect(report.missing.map((m) => [m.family, m.formats, m.causes.map((c) => c.engine)])).toEqual([
      ['video', ['mp4', 'webm'], ['ffmpeg']],
      ['audio', ['wma', 'mp3'], ['ffmpeg']],
    ]);
    // LibreOffice's missing parts are said as what its package adds (install-packages.ts).
    expect(report.packages).toEqual([
      { install: 'apt-get install libreoffice-nogui bubblewrap', engines: ['libreoffice'], families: { spreadsheet: ['xlsx', 'ods'], presentation: ['pptx'] } },
    ]);
  });

  it('gives the banner one line per missing family, and how to add an engine or its part once', () => {
    const [counts, ...families] = missingFamilyLines(report, '  formats  ');
    expect(counts).toBe('  formats  4 (3 in, 2 out), 3 convert pairs; per family: npm run formats');
    expect(families).toEqual([
      '           missing video (mp4, webm): ffmpeg (missing, see above)',
      '           missing audio (wma, mp3): ffmpeg (missing, see above)',
      '           apt-get install libreoffice-nogui bubblewrap adds 3 formats: spreadsheet xlsx, ods; presentation pptx',
    ]);
  });

  it('prints the counts per family and how to add each missing engine once', () => {
    const lines = reportLines(report);
    expect(lines).toContain('  image          2        1        2       2');
    expect(lines).toContain('  all            3        2        4       3');
    expect(lines.filter((l) => l.includes(engineAdvice('ffmpeg')))).toEqual([`  ffmpeg: ${engineAdvice('ffmpeg')}`]);
  });
});
