/**
 * The engines, as data: each one's name, what it is, and how to tell whether, and in which versions,
 * it is installed here. What an engine does for an operation is declared by the operation
 * (lib/file-api/operations/<name>/operation.ts). Nothing in this module loads an engine, so request validation
 * and discovery never bundle sharp or Chromium; the code that runs each engine lives in its own module
 * beside this one.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { EngineConfig } from '../../kernel/config.js';
import { confinement } from './confine.js';
import { systemTesseract, tesseractJs } from './ocr-detect.js';
import { findExecutable, realLocation, toolVersion } from './probe.js';
import { exiftoolWasm, ffprobeFound, ghostscriptWasm, qpdfTool, sevenZipWasm, shippedFfmpeg } from './shipped.js';
import { imagemagickWasm } from './shipped.js';
import { writesFeatures } from './media-builds.js';
import { graphicsMagickTool, imageMagickTool } from './magick-detect.js';
import { fontPackages } from './font-packages.js';
import { pdfjsPackage } from './pdfjs-package.js';

/** One installed version of an engine. */
export interface InstalledVersion {
  version: string;
  /** How to run it: the executable, or which bundled build. */
  executable?: string;
  variant?: string;
}

export interface Installation {
  /** Installed versions, the default first. Empty: the engine is not available here. */
  versions: InstalledVersion[];
  /** Installed optional parts (e.g. `calc`, `impress`). */
  features?: string[];
  /** Why it is not available, for operators (names the setting to change). */
  missing?: string;
  /** Optional parts held back here, with why and how to fix it (`arguments`: the `command` operation). */
  withheld?: Readonly<Record<string, string>>;
}

export interface EngineDescriptor {
  name: string;
  description: string;
  detect(settings: EngineConfig): Installation;
}

/**
 * Versions of the engines that ship as npm packages (pinned exactly in package.json; a unit test
 * checks these against the installed packages).
 */
export const BUNDLED_VERSIONS = {
  sharp: '0.35.5',
  pdfLib: '1.17.1',
  /** The Perl exiftool inside exiftool-vendored.pl. */
  exiftool: '13.59',
  /** ExifTool in WebAssembly: the ExifTool of @uswriting/exiftool 1.0.9 (`exiftool -ver`). */
  exiftoolWasm: '13.42',
  archiver: '8.0.0',
  /** The Chromium inside @sparticuz/chromium 147.0.0. */
  chromium: '147.0.7727.0',
  /** Ghostscript in @okathira/ghostpdl-wasm 1.1.0 (`gs --version`). */
  ghostscriptWasm: '10.06.0',
  /** qpdf in @neslinesli93/qpdf-wasm 0.3.0 (`qpdf --version`). */
  qpdfWasm: '12.2.0',
  /** exifr, which reads EXIF for the `native` metadata engine. */
  exifr: '7.1.3',
  /** tesseract.js (Tesseract in WebAssembly), with the trained data of @tesseract.js-data/eng and deu. */
  tesseractJs: '7.0.0',
  /** ImageMagick in @imagemagick/magick-wasm 0.0.43 (`Magick.imageMagickVersion`: 7.1.2-30 Q8). */
  imagemagick: '7.1.2-30',
  /** 7-Zip in 7z-wasm 1.2.0 (`7zz i`). */
  sevenZipWasm: '24.09',
  /** fonteditor-core, the fonteditor engine's version (with wawoff2 2.0.1, Google's woff2 in WebAssembly). */
  fonteditor: '2.6.3',
  /** pdf.js (pdfjs-dist), the pdfjs engine's version. */
  pdfjs: '5.6.205',
  /** marked, the markdown engine's Markdown reader. */
  marked: '18.2.1',
} as const;

const npm = (version: string): Installation => ({ versions: [{ version }] });

/** A system tool: found (by name on PATH or path) and asked for its version. */
function tool(setting: string, executable: string, versionArgs: string[], pattern: RegExp): Installation {
  const found = findExecutable(executable);
  if (!found) return { versions: [], missing: `${executable} was not found; install it or set ${setting}` };
  const version = toolVersion(found, versionArgs, pattern);
  if (!version) return { versions: [], missing: `${found} did not report a version; check ${setting}` };
  return { versions: [{ version, executable: found }] };
}

/**
 * A native engine as confined as ENGINE_CONFINEMENT asks (confine.ts): not available when that
 * confinement cannot be had, and an engine that follows a document's links (LibreOffice) only when
 * fully confined or when the operator chose the level.
 */
function confined(settings: EngineConfig, found: Installation, engine?: { followsLinks: string }): Installation {
  if (!found.versions.length) return found;
  const place = confinement(settings);
  if (place.unavailable) return { versions: [], missing: place.unavailable };
  if (engine && place.linkFollowersRefused) return { versions: [], missing: `${engine.followsLinks} ${place.linkFollowersRefused}` };
  return found;
}

/**
 * FFmpeg with the `arguments` part (the `command` operation, whose arguments are the user's) only
 * where confinement makes an escape worthless: bubblewrap, or the platform's isolation.
 */
function withArguments(settings: EngineConfig, found: Installation): Installation {
  if (!found.versions.length) return found;
  const refused = confinement(settings).argumentsRefused;
  return refused ? { ...found, withheld: { arguments: refused } } : { ...found, features: [...(found.features ?? []), 'arguments'] };
}

/** A system tool offered to the `command` operation only (ImageMagick, GraphicsMagick): nothing without its `arguments`. */
function commandOnly(settings: EngineConfig, found: { file: string; version: string } | { missing: string }): Installation {
  if ('missing' in found) return { versions: [], missing: found.missing };
  return withArguments(settings, confined(settings, { versions: [{ version: found.version, executable: found.file, variant: 'system' }] }));
}

export const ENGINES: readonly EngineDescriptor[] = [
  {
    name: 'sharp',
    description: 'libvips through sharp: image conversion, thumbnails, watermarks, PNG/JPG optimization',
    detect: () => npm(BUNDLED_VERSIONS.sharp),
  },
  {
    name: 'pdf-lib',
    description: 'pdf-lib: PDF watermarks, merging PDFs and images, images to PDF',
    detect: () => npm(BUNDLED_VERSIONS.pdfLib),
  },
  {
    name: 'chrome',
    description: 'Chromium through puppeteer-core: website capture, HTML to PDF and images',
    detect(settings) {
      const versions: InstalledVersion[] = [];
      let missing: string | undefined;
      if (settings.CHROMIUM_PATH) {
        const system = tool('CHROMIUM_PATH', settings.CHROMIUM_PATH, ['--version'], /(?:Chromium|Chrome)\D*(\d+(?:\.\d+)+)/);
        if (system.versions[0]) versions.push({ ...system.versions[0], variant: 'system' });
        else missing = system.missing;
      }
      // @sparticuz/chromium ships a Linux x64 build.
      if (process.platform === 'linux' && process.arch === 'x64') versions.push({ version: BUNDLED_VERSIONS.chromium, variant: 'bundled' });
      else missing ??= '@sparticuz/chromium runs on Linux x64 only; set CHROMIUM_PATH to a system Chromium';
      return { versions, missing: versions.length ? undefined : missing };
    },
  },
  {
    name: 'ffmpeg',
    description: 'FFmpeg: video and audio conversion, video thumbnails and watermarks',
    detect(settings) {
      // The system FFmpeg (faster to update, and FFMPEG_PATH wins), else the static build shipped in
      // @ffmpeg-installer (with @ffprobe-installer's ffprobe).
      const system = tool('FFMPEG_PATH', settings.FFMPEG_PATH, ['-version'], /ffmpeg version n?(\d+(?:\.\d+)+)/);
      if (system.versions.length) {
        if (!ffprobeFound(settings)) return { versions: [], missing: `${settings.FFPROBE_PATH} was not found; install it or set FFPROBE_PATH` };
        const features = writesFeatures(system.versions[0]!.executable!);
        return withArguments(settings, confined(settings, { versions: [{ ...system.versions[0]!, variant: 'system' }], features }));
      }
      const shipped = settings.SHIPPED_ENGINES ? shippedFfmpeg() : undefined;
      if (!shipped) return { versions: [], missing: `${system.missing ?? 'ffmpeg was not found'} (the static build of @ffmpeg-installer is not installed for ${process.platform}-${process.arch})` };
      if (!ffprobeFound(settings)) {
        return { versions: [], missing: `${settings.FFPROBE_PATH} was not found and @ffprobe-installer is not installed; install ffprobe or set FFPROBE_PATH` };
      }
      const features = writesFeatures(shipped.file);
      return withArguments(settings, confined(settings, { versions: [{ version: shipped.version, executable: shipped.file, variant: 'npm' }], features }));
    },
  },
  {
    name: 'exiftool',
    description: 'ExifTool: reading and writing metadata (exiftool-vendored on perl, else ExifTool in WebAssembly)',
    detect(settings) {
      // The Perl ExifTool on the system perl (faster), else ExifTool in WebAssembly (exiftool-wasm.ts):
      // its sandbox is its own in-memory file system, whatever ENGINE_CONFINEMENT finds. Both are
      // listed, so `engine_version` can pick either.
      const versions: InstalledVersion[] = [];
      const perl = findExecutable(settings.PERL_PATH);
      const native = perl
        ? confined(settings, { versions: [{ version: BUNDLED_VERSIONS.exiftool, executable: perl, variant: 'perl' }] })
        : { versions: [], missing: `exiftool needs perl; ${settings.PERL_PATH} was not found (set PERL_PATH)` };
      versions.push(...native.versions);
      const wasm = settings.SHIPPED_ENGINES ? exiftoolWasm() : undefined;
      if (wasm) versions.push({ version: BUNDLED_VERSIONS.exiftoolWasm, executable: wasm.file, variant: 'wasm' });
      if (versions.length) return { versions };
      return { versions, missing: `${native.missing}${settings.SHIPPED_ENGINES ? ' (and @uswriting/exiftool is not installed)' : ''}` };
    },
  },
  {
    name: 'native',
    description: 'Metadata without perl: sharp and exifr (image EXIF), pdf-lib (PDF Info), ffprobe (video and audio); fewer tags than exiftool',
    detect: () => npm(BUNDLED_VERSIONS.exifr),
  },
  {
    name: 'libreoffice',
    description: 'LibreOffice (headless): office documents to PDF',
    detect(settings) {
      const office = tool('SOFFICE_PATH', settings.SOFFICE_PATH, ['--version'], /LibreOffice (\d+(?:\.\d+)+)/);
      const executable = office.versions[0]?.executable;
      if (!executable) return office;
      // Each application is a library in the program folder; Debian packages them separately.
      const program = path.dirname(realLocation(executable) ?? executable);
      // Draw's library is in libreoffice-draw (which Impress depends on); the slide show is Impress's own.
      const parts: Record<string, string> = { writer: 'libswlo.so', calc: 'libsclo.so', impress: 'libslideshowlo.so', draw: 'libsdlo.so' };
      const features = Object.entries(parts)
        .filter(([, lib]) => existsSync(path.join(program, lib)))
        .map(([name]) => name);
      return confined(settings, { ...office, features }, { followsLinks: 'LibreOffice follows the links in documents:' });
    },
  },
  {
    // CloudConvert's name for its e-book engine.
    name: 'calibre',
    description: 'calibre (ebook-convert): e-books each way (epub, mobi, azw3, fb2, lit, lrf, pdb, rtf, txt, docx, htmlz, pdf…)',
    detect(settings) {
      const found = tool('EBOOK_CONVERT_PATH', settings.EBOOK_CONVERT_PATH, ['--version'], /calibre (\d+(?:\.\d+)+)/);
      return confined(settings, found, { followsLinks: 'calibre follows the links in e-books:' });
    },
  },
  {
    name: 'ghostscript',
    description: 'Ghostscript: PDF optimization, PDF pages to images, PDF thumbnails',
    detect(settings) {
      // Ghostscript only reads qpdf's rewrite of a PDF, never the uploaded bytes (ghostscript.ts):
      // without a qpdf (system or WebAssembly) there is no Ghostscript engine.
      if (!qpdfTool(settings)) {
        return { versions: [], missing: `Ghostscript reads PDFs only after qpdf has rewritten them; ${settings.QPDF_PATH} was not found (install qpdf or set QPDF_PATH)` };
      }
      const system = tool('GHOSTSCRIPT_PATH', settings.GHOSTSCRIPT_PATH, ["--version"], /(?<!\d)(\d+(?:\.\d+)+)/);
      if (system.versions.length) return confined(settings, { versions: [{ ...system.versions[0]!, variant: 'system' }] });
      // Else Ghostscript compiled to WebAssembly (2–4× slower), run in a node child like a native tool.
      const wasm = settings.SHIPPED_ENGINES ? ghostscriptWasm() : undefined;
      if (!wasm) return { versions: [], missing: `${system.missing ?? 'gs was not found'} (and @okathira/ghostpdl-wasm is not installed)` };
      return confined(settings, { versions: [{ version: BUNDLED_VERSIONS.ghostscriptWasm, executable: wasm.file, variant: 'wasm' }] });
    },
  },
  {
    name: 'qpdf',
    description: 'qpdf: lossless PDF optimization (object streams, recompression, linearization)',
    detect(settings) {
      const found = qpdfTool(settings);
      if (!found) return { versions: [], missing: `${settings.QPDF_PATH} was not found (and @neslinesli93/qpdf-wasm is not installed); install qpdf or set QPDF_PATH` };
      if (found.variant === 'wasm') return confined(settings, { versions: [{ version: BUNDLED_VERSIONS.qpdfWasm, executable: found.file, variant: 'wasm' }] });
      const system = tool('QPDF_PATH', found.file, ['--version'], /qpdf version (\d+(?:\.\d+)+)/);
      return confined(settings, system.versions.length ? { versions: [{ ...system.versions[0]!, variant: 'system' }] } : system);
    },
  },
  {
    name: 'tesseract',
    description: 'Tesseract OCR: searchable PDFs from scanned PDFs and images (the system Tesseract, else tesseract.js in WebAssembly)',
    detect(settings) {
      // OCR lays its text pages over the input's pages with qpdf, which also rewrites a PDF before
      // Ghostscript renders it (ocr.ts): without a qpdf (system or WebAssembly) there is no OCR.
      if (!qpdfTool(settings)) {
        return { versions: [], missing: `OCR assembles its PDFs with qpdf; ${settings.QPDF_PATH} was not found (install qpdf or set QPDF_PATH)` };
      }
      // The system Tesseract (faster; TESSERACT_PATH), else tesseract.js in a confined node child
      // (ocr-js.ts). Each only with at least one language installed; both listed, so that
      // `engine_version` can pick either.
      const versions: InstalledVersion[] = [];
      const system = systemTesseract(settings.TESSERACT_PATH);
      if (system) versions.push({ version: system.version, executable: system.executable, variant: 'system' });
      const js = settings.SHIPPED_ENGINES ? tesseractJs() : undefined;
      if (js) versions.push({ version: js.version, variant: 'wasm' });
      if (!versions.length) {
        const shipped = settings.SHIPPED_ENGINES ? ' (and tesseract.js with an @tesseract.js-data language is not installed)' : '';
        return { versions, missing: `${settings.TESSERACT_PATH} was not found or has no language; install tesseract-ocr or set TESSERACT_PATH${shipped}` };
      }
      return confined(settings, { versions });
    },
  },
  {
    name: 'archiver',
    description: 'archiver: zip and tar archives',
    detect: () => npm(BUNDLED_VERSIONS.archiver),
  },
  {
    name: 'imagemagick',
    description:
      'ImageMagick: convert on its WebAssembly build (the image formats sharp does not read or write: bmp, ico, psd, tga, netpbm, jp2, exr, camera RAW…), in a confined node child; the command operation on the system ImageMagick (convert, identify, magick)',
    detect(settings) {
      // Two variants of one engine, as CloudConvert names it for both: the WebAssembly build (the
      // default, convert) and the system tools (command only: each capability names its variant).
      const wasm = settings.SHIPPED_ENGINES ? imagemagickWasm() : undefined;
      const shipped: Installation = wasm
        ? confined(settings, { versions: [{ version: BUNDLED_VERSIONS.imagemagick, executable: wasm.file, variant: 'wasm' }] })
        : { versions: [], missing: '@imagemagick/magick-wasm is not installed (or SHIPPED_ENGINES is off)' };
      const system = commandOnly(settings, imageMagickTool(settings));
      const versions = [...shipped.versions, ...system.versions];
      if (!versions.length) return { versions, missing: [shipped.missing, system.missing].filter(Boolean).join('; ') };
      return { versions, features: system.features, withheld: system.withheld };
    },
  },
  {
    // CloudConvert's name for its archive engine, so that a task naming it finds this one.
    name: 'archivetool',
    description: '7-Zip in WebAssembly: archive extraction and conversion (7z, zip, rar, tar and its compressed forms, and more)',
    detect(settings) {
      // Its sandbox is its own in-memory file system, in a node child confined like a native tool.
      const wasm = settings.SHIPPED_ENGINES ? sevenZipWasm() : undefined;
      if (!wasm) return { versions: [], missing: settings.SHIPPED_ENGINES ? '7z-wasm is not installed (npm ci)' : 'SHIPPED_ENGINES is off and 7-Zip runs only as its WebAssembly build' };
      return confined(settings, { versions: [{ version: BUNDLED_VERSIONS.sevenZipWasm, executable: wasm.file, variant: 'wasm' }] });
    },
  },
  {
    name: 'fonteditor',
    description: 'Fonts: ttf, otf, woff, woff2 and eot each way (fonteditor-core, Google’s woff2 in WebAssembly), in a confined node child',
    detect(settings) {
      // npm packages, run in a node child under ENGINE_CONFINEMENT as a native tool is (lib/engines/font/convert.ts).
      if (!fontPackages()) return { versions: [], missing: 'fonteditor-core and wawoff2 are not installed (npm ci)' };
      return confined(settings, { versions: [{ version: BUNDLED_VERSIONS.fonteditor, variant: 'wasm' }] });
    },
  },
  {
    name: 'pdfjs',
    description: 'pdf.js: a PDF’s text to txt, html, docx and odt (paragraphs and headings kept, layout and images not), in a confined node child',
    detect(settings) {
      // An npm package, run in a node child under ENGINE_CONFINEMENT as a native tool is (lib/engines/pdfjs/extract.ts).
      if (!pdfjsPackage()) return { versions: [], missing: 'pdfjs-dist is not installed (npm ci)' };
      return confined(settings, { versions: [{ version: BUNDLED_VERSIONS.pdfjs, variant: 'npm' }] });
    },
  },
  {
    name: 'graphicsmagick',
    description: 'GraphicsMagick (the system one): the command operation only (gm)',
    detect: (settings) => commandOnly(settings, graphicsMagickTool(settings)),
  },
  {
    name: 'pandoc',
    description: 'pandoc: markup and text documents each way (Markdown, reStructuredText, LaTeX, Org, Textile, HTML, DOCX, ODT, EPUB, wikis, DocBook, JATS…), reading under its --sandbox',
    // Its readers run under --sandbox and its writers see no link out of the document (lib/engines/markup/pandoc.ts): confined as any tool.
    detect: (settings) => confined(settings, tool('PANDOC_PATH', settings.PANDOC_PATH, ['--version'], /pandoc(?:\.exe)? (\d+(?:\.\d+)+)/)),
  },
  {
    name: 'markdown',
    description: 'Markdown without pandoc: marked to HTML, and to PDF through Chromium (the `pdf` part, where the chrome engine runs)',
    detect(settings) {
      // Chromium as the chrome engine finds it: its system build (then carried here as the executable) or the bundled one.
      // (Not when the operator disabled chrome: then no PDF from here either.)
      const chrome = settings.ENGINES_DISABLED.includes('chrome') ? undefined : ENGINES.find((e) => e.name === 'chrome')!.detect(settings).versions[0];
      const executable = chrome?.variant === 'system' ? chrome.executable : undefined;
      return { versions: [{ version: BUNDLED_VERSIONS.marked, ...(executable ? { executable } : {}) }], features: chrome ? ['pdf'] : [] };
    },
  },
];
