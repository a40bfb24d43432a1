import { describe, expect, it } from 'vitest';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { BUNDLED_VERSIONS, ENGINES, type EngineDescriptor } from '#lib/engines/core/catalog.js';
import { ENGINE_FAMILY_OF, FAMILY_QUEUES, PACKAGED } from '#lib/engines/core/families.js';
import { EngineRegistry } from '#lib/engines/core/registry.js';
import { runs as chromiumRuns } from '#functions/tasks/process-chromium-step.js';
import { runs as imageRuns } from '#functions/tasks/process-image-step.js';
import { runs as mediaRuns } from '#functions/tasks/process-media-step.js';
import { runs as officeRuns } from '#functions/tasks/process-office-step.js';
import { runs as pdfRuns } from '#functions/tasks/process-pdf-step.js';
import type { FamilyRun } from '#lib/file-api/operations/framework/define.js';
import { engineOffers } from '#lib/file-api/operations/engines.js';

const FAMILY_RUNS = [...imageRuns, ...mediaRuns, ...pdfRuns, ...chromiumRuns, ...officeRuns] as unknown as FamilyRun[];
const familyOfEngine = (engine: string) => (ENGINE_FAMILY_OF as Record<string, string>)[engine];
import type { TaskRecord } from '#lib/file-api/records/model.js';
import { processQueueOf } from '#lib/file-api/operations/routing.js';

/** The real engines, every one installed in version 1.0 (FFmpeg writing what the shipped build writes), without probing this machine. */
const everywhere: EngineDescriptor[] = ENGINES.map((d) => ({ ...d, detect: () => ({ versions: [{ version: '1.0' }], features: ['writer', ...PACKAGED.ffmpeg!.features!] }) }));
/** The real engines, each failing the test if it is probed. */
const unprobed: EngineDescriptor[] = ENGINES.map((d) => ({
  ...d,
  detect: () => {
    throw new Error(`${d.name} was probed`);
  },
}));

const input = (...filenames: string[]) => [{ result: { files: filenames.map((filename) => ({ filename })) } } as unknown as TaskRecord];

describe('engine families', () => {
  it('put every engine of the catalog in one family whose process function has a handler for each of its operations', () => {
    for (const engine of ENGINES) expect(familyOfEngine(engine.name), `${engine.name} has no family (lib/engines/core/families.ts)`).toBeDefined();
    for (const cap of engineOffers().capabilities) {
      const family = familyOfEngine(cap.engine);
      const run = FAMILY_RUNS.find((r) => r.family === family && r.definition.name === cap.operation);
      expect(Boolean(run?.handlers[cap.engine] ?? run?.whole), `${cap.operation} on ${cap.engine} in the ${family} family`).toBe(true);
    }
    // A handler in a family that does not own its engine would never be reached.
    for (const run of FAMILY_RUNS) for (const engine of Object.keys(run.handlers)) expect(familyOfEngine(engine), engine).toBe(run.family);
  });

  it('in the deployed stack, answers from the list of engine functions without probing, and names how to add the office function', () => {
    const http = new EngineRegistry(parseEngineConfig({ ENGINE_FUNCTIONS: 'image,media,pdf,chromium' }), engineOffers(), unprobed);
    expect(http.versions('sharp').map((v) => v.version)).toEqual([BUNDLED_VERSIONS.sharp]);
    expect(http.versions('chrome').map((v) => v.version)).toEqual([BUNDLED_VERSIONS.chromium]);
    expect(http.installation('libreoffice').missing).toMatch(/OFFICE_IMAGE=1/);
    // exiftool runs in the image function as its WebAssembly build (no perl in Lambda).
    expect(http.installation('exiftool').versions).toEqual([{ version: BUNDLED_VERSIONS.exiftoolWasm, variant: 'wasm' }]);
    expect(http.check('convert', { inputFormat: 'docx', outputFormat: 'pdf' })).toEqual([
      { field: 'input_format', message: expect.stringContaining('cannot read docx') },
    ]);
    expect(http.check('convert', { inputFormat: 'jpg', outputFormat: 'webp' })).toEqual([]);

    const withOffice = new EngineRegistry(parseEngineConfig({ ENGINE_FUNCTIONS: 'image,media,pdf,chromium,office' }), engineOffers(), unprobed);
    expect(withOffice.select('convert', { inputFormat: 'docx', outputFormat: 'pdf' })).toMatchObject({ engine: 'libreoffice', version: PACKAGED.libreoffice!.versions[0]!.version });
  });

  it('lets an engine function probe its own engines and take the others from the list', () => {
    const probed: string[] = [];
    const descriptors = ENGINES.map((d) => ({ ...d, detect: () => (probed.push(d.name), { versions: [{ version: '9.9' }] }) }));
    const pdf = new EngineRegistry(parseEngineConfig({ ENGINE_FUNCTIONS: 'image,pdf', ENGINE_FAMILY: 'pdf' }), engineOffers(), descriptors);
    expect(pdf.versions('qpdf').map((v) => v.version)).toEqual(['9.9']);
    expect(pdf.versions('sharp').map((v) => v.version)).toEqual([BUNDLED_VERSIONS.sharp]);
    expect(pdf.isAvailable('ffmpeg')).toBe(false);
    expect(probed).toEqual(['qpdf']);
  });

  it('probes every engine locally, where no engine functions are listed', () => {
    const local = new EngineRegistry(parseEngineConfig({}), engineOffers(), everywhere);
    expect(local.versions('ffmpeg').map((v) => v.version)).toEqual(['1.0']);
  });
});

describe('routing a process task to its engine family', () => {
  const registry = new EngineRegistry(parseEngineConfig({}), engineOffers(), everywhere);
  const route = (operation: string, payload: Record<string, unknown>, inputs: TaskRecord[] = []) => processQueueOf(registry, { operation, payload }, inputs);

  it('sends each task to the queue of the family whose engine the registry selects for its inputs', () => {
    expect(route('convert', { output_format: 'webp' }, input('photo.jpg'))).toBe('process');
    expect(route('convert', { output_format: 'gif' }, input('clip.mp4'))).toBe(FAMILY_QUEUES.media);
    expect(route('convert', { output_format: 'png' }, input('report.pdf'))).toBe(FAMILY_QUEUES.pdf);
    expect(route('convert', { output_format: 'pdf' }, input('letter.docx'))).toBe(FAMILY_QUEUES.office);
    expect(route('convert', { output_format: 'pdf' }, input('page.html'))).toBe(FAMILY_QUEUES.chromium);
    expect(route('optimize', {}, input('report.pdf'))).toBe(FAMILY_QUEUES.pdf);
    expect(route('optimize', { engine: 'qpdf' }, input('report.pdf'))).toBe(FAMILY_QUEUES.pdf);
    expect(route('metadata', {}, input('photo.jpg'))).toBe('process');
    expect(route('metadata/write', { metadata: { Artist: 'a' } }, input('clip.mp4'))).toBe('process');
    expect(route('archive', { output_format: 'zip' }, input('a.txt', 'b.bin'))).toBe('process');
  });

  it('takes input_format over the file name, and routes tasks without input by their operation', () => {
    expect(route('convert', { input_format: 'mov', output_format: 'mp4' }, input('upload'))).toBe(FAMILY_QUEUES.media);
    expect(route('capture-website', { url: 'https://example.com', output_format: 'pdf' })).toBe(FAMILY_QUEUES.chromium);
    expect(route('watermark', { text: 'draft' })).toBe('process');
  });

  it('routes by the output format the run chooses by: an argument the operation does not take changes nothing', () => {
    // optimize keeps its input's format; a stray output_format must not send a JPEG to the PDF family.
    expect(route('optimize', { output_format: 'pdf' }, input('photo.jpg'))).toBe('process');
    expect(route('pdf/a', { output_format: 'docx' }, input('report.pdf'))).toBe(FAMILY_QUEUES.pdf);
  });

  it('sends a video watermarked with an image to the media family, and an unknown format to the operation\'s first engine', () => {
    expect(route('watermark', { image: 'logo' }, [...input('clip.mp4'), ...input('logo.png')])).toBe(FAMILY_QUEUES.media);
    expect(route('thumbnail', { output_format: 'png' }, input('no-extension'))).toBe('process');
  });
});
