/**
 * Engine families: which engines run together in one process function of the deployed stack, and
 * what the stack as a whole has. One list shared by every function, so that task creation, discovery,
 * the scheduler's routing and the function that runs a task agree.
 *
 * - Each family is one engine function (serverless.yml `process<Family>`) with its own queue, memory,
 *   timeout and ephemeral storage, and a package holding only its family's engines
 *   (functions/tasks/process-<family>-step.ts imports only their handlers).
 * - The scheduler sends a process task to the queue of the family of the engine that will run it
 *   (`processQueueOf`).
 * - Locally (npm start, tests) `ENGINE_FUNCTIONS` is empty: every function probes this machine, as
 *   before, and each family's consumer can run any engine the machine has.
 * - In the deployed stack `ENGINE_FUNCTIONS` names the families whose functions the stack has (set at
 *   packaging by scripts/serverless-engine-functions.cjs: the office family only when its container
 *   image is deployed). Functions take each engine's installation from `PACKAGED` below instead of
 *   probing their own PATH (an HTTP function has no tools); an engine function still probes the engines
 *   of its own family (`ENGINE_FAMILY`), which it runs. `npm run ci:lambda` checks, in every packaged
 *   engine function, that what it probes is what this list says.
 */
import { ENGINE_FAMILIES, type EngineConfig } from '../../kernel/config.js';
import type { ProcessQueueName } from '../../adapters/queue/port.js';
import { BUNDLED_VERSIONS, type Installation } from './catalog.js';
import { SHIPPED_FFMPEG_WRITES, writesFeature } from './media-formats.js';

export { ENGINE_FAMILIES };
export type EngineFamily = (typeof ENGINE_FAMILIES)[number];


export const FAMILY_QUEUES: Readonly<Record<EngineFamily, ProcessQueueName>> = {
  image: 'process',
  media: 'process-media',
  pdf: 'process-pdf',
  chromium: 'process-chromium',
  office: 'process-office',
};

/** Each engine's family. An engine missing here belongs to no function (a unit test checks the catalog against it). */
export const ENGINE_FAMILY_OF = {
  sharp: 'image',
  'pdf-lib': 'image',
  archiver: 'image',
  // 7-Zip in WebAssembly: archives beside archiver.
  archivetool: 'image',
  // Fonts: npm packages run in a node child, packed into the image function (functions/engines/image.ts).
  fonteditor: 'image',
  // Metadata: the native engine (sharp, exifr, pdf-lib, and the static ffprobe for video and audio) and
  // exiftool, which in Lambda has no perl: it runs there only as a WebAssembly build in this package.
  native: 'image',
  exiftool: 'image',
  // ImageMagick in WebAssembly, beside sharp for the formats sharp lacks.
  ffmpeg: 'media',
  // The system ImageMagick and GraphicsMagick, for `command` only; no package ships them (not in PACKAGED).
  imagemagick: 'image',
  graphicsmagick: 'image',
  ghostscript: 'pdf',
  qpdf: 'pdf',
  // OCR renders PDF pages with Ghostscript and assembles with qpdf: it runs beside them.
  tesseract: 'pdf',
  // pdf.js: a PDF's text out (txt, html, docx, odt), an npm package run in a node child.
  pdfjs: 'pdf',
  chrome: 'chromium',
  // LibreOffice cannot ship in a zip: it lives in the office container image (Dockerfile).
  libreoffice: 'office',
  // pandoc is a Debian package (a Haskell binary with its data files): in the office container image.
  pandoc: 'office',
  // marked (npm) and, for PDF, Chromium: beside the chrome engine.
  markdown: 'chromium',
  // calibre is a system Python and Qt application: beside LibreOffice in the office container image.
  calibre: 'office',
} as const satisfies Readonly<Record<string, EngineFamily>>;

/**
 * What each engine is in the deployed packages: the versions (and variants, optional parts) its
 * family's function finds there, as its own probe reports them (`npm run ci:lambda` runs a job on each;
 * test/unit/engine-families.test.ts compares the npm-shipped ones with their probes). `undefined`: the
 * engine is not in its function's package.
 */
export const PACKAGED: Readonly<Record<string, Installation | undefined>> = {
  sharp: { versions: [{ version: BUNDLED_VERSIONS.sharp }] },
  'pdf-lib': { versions: [{ version: BUNDLED_VERSIONS.pdfLib }] },
  archiver: { versions: [{ version: BUNDLED_VERSIONS.archiver }] },
  archivetool: { versions: [{ version: BUNDLED_VERSIONS.sevenZipWasm, variant: 'wasm' }] },
  fonteditor: { versions: [{ version: BUNDLED_VERSIONS.fonteditor, variant: 'wasm' }] },
  native: { versions: [{ version: BUNDLED_VERSIONS.exifr }] },
  chrome: { versions: [{ version: BUNDLED_VERSIONS.chromium, variant: 'bundled' }] },
  // The static Linux x64 builds of @ffmpeg-installer/linux-x64 (with @ffprobe-installer's ffprobe),
  // versioned as their package is.
  // `arguments`: the media function runs with ENGINE_CONFINEMENT=platform, which offers `command`.
  // `writes:<format>`: the outputs that build writes (lib/engines/core/media-formats.ts).
  ffmpeg: { versions: [{ version: '4.1.0', variant: 'npm' }], features: ['arguments', ...SHIPPED_FFMPEG_WRITES.map(writesFeature)] },
  ghostscript: { versions: [{ version: BUNDLED_VERSIONS.ghostscriptWasm, variant: 'wasm' }] },
  qpdf: { versions: [{ version: BUNDLED_VERSIONS.qpdfWasm, variant: 'wasm' }] },
  // Lambda has no system Tesseract: tesseract.js (with the eng and deu trained data packages) in the pdf function.
  tesseract: { versions: [{ version: BUNDLED_VERSIONS.tesseractJs, variant: 'wasm' }] },
  pdfjs: { versions: [{ version: BUNDLED_VERSIONS.pdfjs, variant: 'npm' }] },
  // perl's exiftool has no perl in Lambda: ExifTool runs there as its WebAssembly build (@uswriting/exiftool,
  // packed into the image function), as its probe reports it where there is no perl.
  exiftool: { versions: [{ version: BUNDLED_VERSIONS.exiftoolWasm, variant: 'wasm' }] },
  imagemagick: { versions: [{ version: BUNDLED_VERSIONS.imagemagick, variant: 'wasm' }] },
  // Debian 12's pandoc, as the Dockerfile installs it.
  pandoc: { versions: [{ version: '2.17.1.1' }] },
  markdown: { versions: [{ version: BUNDLED_VERSIONS.marked }], features: ['pdf'] },
  // Debian 12's LibreOffice, as the Dockerfile installs it (its base image pins Debian 12): its whole suite
  // (libreoffice-nogui: Writer, Calc, Impress, Draw).
  libreoffice: { versions: [{ version: '7.4.7.2' }], features: ['writer', 'calc', 'impress', 'draw'] },
  // Debian 12's calibre, as the office image installs it.
  calibre: { versions: [{ version: '6.13.0' }] },
};

/** The family of an engine, `undefined` for one no function runs. */
export const familyOf = (engine: string): EngineFamily | undefined => (ENGINE_FAMILY_OF as Readonly<Record<string, EngineFamily>>)[engine];

/**
 * The engine's installation as the deployed stack has it, or `undefined` when this process should
 * probe for it: locally (no `ENGINE_FUNCTIONS`), and in the engine function of its own family.
 */
export function deployedInstallation(engine: string, settings: EngineConfig): Installation | undefined {
  if (settings.ENGINE_FUNCTIONS.length === 0) return undefined;
  const family = familyOf(engine);
  if (family !== undefined && family === settings.ENGINE_FAMILY) return undefined;
  if (family === undefined) return { versions: [], missing: `no engine function of this stack runs ${engine}` };
  if (!settings.ENGINE_FUNCTIONS.includes(family)) {
    return {
      versions: [],
      missing:
        family === 'office'
          ? `this stack was deployed without the office engine function (its container image): deploy with OFFICE_IMAGE=1 (needs Docker) or OFFICE_IMAGE_URI`
          : `this stack has no ${family} engine function`,
    };
  }
  return PACKAGED[engine] ?? { versions: [], missing: `${engine} is not in the ${family} engine function's package` };
}
