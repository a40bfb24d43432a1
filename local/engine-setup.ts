/**
 * How to add what an engine needs on a machine that lacks it: `npm start`'s banner lists the engines
 * found (with their versions) and the missing ones with this advice, and the tests that need a system
 * tool name the same install command when they skip (test/support/requires.ts). What is installed
 * is the engine registry's answer; this module only adds the advice.
 */
import type { Confinement } from '../lib/engines/core/confine.js';
import type { EngineRegistry } from '../lib/engines/core/registry.js';
import { installCommand } from '../lib/engines/core/install-packages.js';

/** A system tool the engines or their tests run, and the Debian package that installs it. */
export interface SystemTool {
  /** What it is, for people. */
  label: string;
  install: string;
}

export const SYSTEM_TOOLS = {
  soffice: { label: 'LibreOffice', install: 'apt-get install libreoffice-nogui' },
  bwrap: { label: 'bubblewrap', install: 'apt-get install bubblewrap' },
  unshare: { label: 'unshare', install: 'apt-get install util-linux' },
  perl: { label: 'Perl', install: 'apt-get install perl' },
  ffmpeg: { label: 'FFmpeg', install: 'apt-get install ffmpeg' },
  ffprobe: { label: 'ffprobe', install: 'apt-get install ffmpeg' },
  gs: { label: 'Ghostscript', install: 'apt-get install ghostscript' },
  qpdf: { label: 'qpdf', install: 'apt-get install qpdf' },
  tesseract: { label: 'Tesseract', install: 'apt-get install tesseract-ocr tesseract-ocr-eng' },
  pandoc: { label: 'pandoc', install: 'apt-get install pandoc' },
} as const satisfies Record<string, SystemTool>;

export type SystemToolName = keyof typeof SYSTEM_TOOLS;

/**
 * How to add each engine that can be missing (the npm-shipped ones are always there). LibreOffice
 * runs only fully confined, hence bubblewrap beside it.
 */
const ENGINE_ADVICE: Record<string, string> = {
  libreoffice: `${installCommand('libreoffice')} (Writer, Calc, Impress, Draw), or set SOFFICE_PATH`,
  // These come with npm ci (static builds, WebAssembly) unless SHIPPED_ENGINES=false; a system tool is faster.
  ffmpeg: 'npm ci (static build; SHIPPED_ENGINES=true), apt-get install ffmpeg, or set FFMPEG_PATH and FFPROBE_PATH',
  ghostscript: 'npm ci (WebAssembly; SHIPPED_ENGINES=true), apt-get install ghostscript qpdf, or set GHOSTSCRIPT_PATH and QPDF_PATH',
  qpdf: 'npm ci (WebAssembly; SHIPPED_ENGINES=true), apt-get install qpdf, or set QPDF_PATH',
  tesseract:
    'npm ci (tesseract.js in WebAssembly with English and German; SHIPPED_ENGINES=true), apt-get install tesseract-ocr tesseract-ocr-eng (other languages: tesseract-ocr-<code>) qpdf, or set TESSERACT_PATH',
  exiftool: 'npm ci (WebAssembly; SHIPPED_ENGINES=true), apt-get install perl, or set PERL_PATH',
  calibre: 'apt-get install calibre bubblewrap, or set EBOOK_CONVERT_PATH',
  chrome: 'set CHROMIUM_PATH to a system Chromium (apt-get install chromium)',
  pandoc: `${installCommand('pandoc')} (markup and text documents each way: rst, tex, org, textile, docx, odt, epub, wikis…; without it only md → html and pdf), or set PANDOC_PATH`,
  // The command operation's other engines: system tools only, no npm build.
  imagemagick: 'npm ci (@imagemagick/magick-wasm, WebAssembly, for convert; SHIPPED_ENGINES=true); for command, apt-get install imagemagick or set MAGICK_PATH',
  graphicsmagick: 'apt-get install graphicsmagick (command only), or set GM_PATH',
};

/** How to add an engine on this machine (a generic hint for an engine without advice). */
export function engineAdvice(engine: string): string {
  return ENGINE_ADVICE[engine] ?? installCommand(engine) ?? 'see docs/using/engines.md';
}

/** One engine as the banner shows it: `ffmpeg 5.1.6 (system)`, or why it is missing and how to add it. */
export interface EngineStatus {
  engine: string;
  found?: string;
  missing?: string;
  advice?: string;
}

/** Every engine of the registry, found or missing. */
export function engineStatus(registry: EngineRegistry): EngineStatus[] {
  return registry.descriptors().map(({ name }) => {
    const installation = registry.installation(name);
    if (installation.versions.length === 0) {
      return { engine: name, missing: installation.missing ?? 'not available', advice: engineAdvice(name) };
    }
    const versions = installation.versions.map((v) => (v.variant ? `${v.version} (${v.variant})` : v.version));
    return { engine: name, found: `${name} ${versions.join(', ')}` };
  });
}

/**
 * The banner's engine lines: one listing the engines found, then one per missing engine with its
 * reason and how to add it. `indent` lines them up under the banner's other labels.
 */
export function engineBannerLines(registry: EngineRegistry, indent = '  engines      '): string[] {
  const all = engineStatus(registry);
  const found = all.filter((s) => s.found).map((s) => s.found!);
  const pad = ' '.repeat(indent.length);
  const lines = [`${indent}${found.join(', ') || 'none'}`];
  for (const s of all.filter((e) => e.missing)) lines.push(`${pad}missing ${s.engine}: ${s.missing}; to add it: ${s.advice}`);
  for (const { name } of registry.descriptors()) {
    for (const why of Object.values(registry.installation(name).withheld ?? {})) lines.push(`${pad}not offered with ${name}: ${why}`);
  }
  return lines;
}

/** What each confinement level means for the engines, in the banner's words. */
const CONFINEMENT_MEANING: Record<Confinement['level'], string> = {
  bwrap: 'bubblewrap: each engine sees only its task folder, with no network',
  unshare: 'unshare: engines have no network, but can read what your user can read; for full confinement: apt-get install bubblewrap',
  platform: 'platform: the deployment isolates the engines (ENGINE_CONFINEMENT=platform)',
  none: 'none: engines run with your network and files; for full confinement: apt-get install bubblewrap',
};

/** The banner's confinement line: the level the native engines run at here, and what it lets them reach. */
export function confinementBannerLine(confinement: Confinement, indent = '  confinement  '): string {
  if (confinement.unavailable) return `${indent}unavailable: ${confinement.unavailable} (no native engine runs)`;
  const chosen = confinement.setting === 'auto' || confinement.setting === confinement.level ? '' : ` (ENGINE_CONFINEMENT=${confinement.setting})`;
  return `${indent}${CONFINEMENT_MEANING[confinement.level]}${chosen}`;
}
