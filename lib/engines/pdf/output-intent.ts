/**
 * What PDF/A and PDF/X ask of a Ghostscript pdfwrite run besides its switches (-dPDFA, -dPDFX): an
 * output intent, the ICC profile of the colours the file is meant for, embedded and named in the
 * document's catalog. Ghostscript takes it from a short PostScript program run before the document
 * (the pdfmark approach of its PDFA_def.ps and PDFX_def.ps); this module writes that program, ours
 * alone, into the call's folder. The profile is one Ghostscript ships with itself: the WebAssembly build
 * holds its profiles in its built-in file system (`%rom%iccprofiles/`), the system build has them on
 * disk beside it (copied into the call's folder, so a confined run reads it wherever gs is installed).
 *
 * And which PDF/A part a PDF declares (its XMP `pdfaid:part`), read by a byte scan, without an engine,
 * so that optimizing a PDF/A keeps it one.
 */
import { createReadStream, existsSync, readdirSync, realpathSync } from 'node:fs';
import { copyFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EngineCall } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';

/** The colours an output intent describes. */
export type IntentColour = 'rgb' | 'gray' | 'cmyk';

interface Profile {
  /** The file's name among Ghostscript's profiles (`iccprofiles/`). */
  file: string;
  components: 1 | 3 | 4;
  identifier: string;
  condition: string;
}

/** Ghostscript's own ICC profiles (version 2, as PDF/A-1 requires), in its system and WebAssembly builds. */
const PROFILES: Record<IntentColour, Profile> = {
  rgb: { file: 'srgb.icc', components: 3, identifier: 'sRGB IEC61966-2.1', condition: 'sRGB (Artifex Software sRGB ICC Profile)' },
  gray: { file: 'sgray.icc', components: 1, identifier: 'sGray', condition: 'Grey, sRGB tone curve (Artifex Software sGray ICC Profile)' },
  // SWOP, the registered printing condition CGATS TR 001, as characterized by Artifex's CMYK profile.
  cmyk: { file: 'default_cmyk.icc', components: 4, identifier: 'CGATS TR 001', condition: 'SWOP (Artifex CMYK SWOP Profile)' },
};

/** What the intent is for: PDF/A (`GTS_PDFA1`, the subtype of every PDF/A part) or PDF/X-3. */
export type IntentStandard = 'pdfa' | 'pdfx';

const found = new Map<string, string | undefined>();

/**
 * Ghostscript's profile `file` for the system `gs` at `executable` (version `version`): under its
 * installation's share/ghostscript/<version>/iccprofiles (the given version first), or Debian's
 * /usr/share/color/icc/ghostscript. Looked up once per process.
 */
export function systemProfile(executable: string, version: string, file: string): string | undefined {
  const key = `${executable}\0${version}\0${file}`;
  if (found.has(key)) return found.get(key);
  let prefix: string | undefined;
  try {
    prefix = path.dirname(path.dirname(realpathSync(executable)));
  } catch {
    prefix = undefined;
  }
  const candidates: string[] = [];
  if (prefix) {
    const share = path.join(prefix, 'share', 'ghostscript');
    let versions: string[] = [];
    try {
      versions = readdirSync(share).sort().reverse();
    } catch {
      // no such folder
    }
    for (const v of [version, ...versions.filter((v) => v !== version)]) candidates.push(path.join(share, v, 'iccprofiles', file));
    candidates.push(path.join(prefix, 'share', 'color', 'icc', 'ghostscript', file));
  }
  candidates.push(path.join('/usr/share/color/icc/ghostscript', file));
  const result = candidates.find((c) => existsSync(c));
  found.set(key, result);
  return result;
}

/** A PostScript string literal. */
const psString = (text: string) => `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`;

/** The program that embeds `profile` (read from `profilePath`) and names it the document's output intent. */
function intentProgram(standard: IntentStandard, profile: Profile, profilePath: string): string {
  const lines = [
    '% Written by this service: the output intent of the document that follows.',
    // PDF/X says which version it is in the document information.
    ...(standard === 'pdfx' ? ['[ /GTS_PDFXVersion (PDF/X-3:2002) /Trapped /False /DOCINFO pdfmark'] : []),
    '[ /_objdef {intentProfile} /type /stream /OBJ pdfmark',
    `[ {intentProfile} << /N ${profile.components} >> /PUT pdfmark`,
    `[ {intentProfile} ${psString(profilePath)} (r) file /PUT pdfmark`,
    '[ /_objdef {outputIntent} /type /dict /OBJ pdfmark',
    `[ {outputIntent} << /Type /OutputIntent /S ${standard === 'pdfx' ? '/GTS_PDFX' : '/GTS_PDFA1'} /DestOutputProfile {intentProfile}` +
      ` /OutputConditionIdentifier ${psString(profile.identifier)} /OutputCondition ${psString(profile.condition)}` +
      ` /Info ${psString(profile.condition)} /RegistryName (http://www.color.org) >> /PUT pdfmark`,
    '[ {Catalog} << /OutputIntents [ {outputIntent} ] >> /PUT pdfmark',
  ];
  return lines.join('\n') + '\n';
}

/** Ghostscript arguments placing an output intent: `args` go after -sOutputFile and before the document; `programs` are the files they name. */
export interface OutputIntent {
  args: string[];
  programs: string[];
}

/** Writes the output-intent program (and, for the system gs, its profile) into the call's folder. */
export async function outputIntent(call: EngineCall, standard: IntentStandard, colour: IntentColour): Promise<OutputIntent> {
  const profile = PROFILES[colour];
  const program = path.join(call.dir, `${standard}-intent.ps`);
  const { installed } = call.choice;
  if (installed.variant === 'wasm') {
    await writeFile(program, intentProgram(standard, profile, `%rom%iccprofiles/${profile.file}`));
    return { args: [program], programs: [program] };
  }
  const source = systemProfile(installed.executable!, installed.version, profile.file);
  if (!source) {
    throw new EngineFailure(
      'ENGINE_UNAVAILABLE',
      `This Ghostscript installation lacks its ICC profile ${profile.file}, which ${standard === 'pdfx' ? 'PDF/X' : 'PDF/A'} output needs as its output intent.`,
    );
  }
  const copy = path.join(call.dir, `${standard}-intent-${profile.file}`);
  await copyFile(source, copy);
  await writeFile(program, intentProgram(standard, profile, copy));
  return { args: [`--permit-file-read=${copy}`, program], programs: [program] };
}

/** The PDF/A identification a PDF's XMP declares. */
export interface PdfAIdentity {
  /** 1, 2, 3 or 4. */
  part: number;
  /** `A`, `B` or `U` (PDF/A-4 has none). */
  conformance?: string;
}

const PART = /pdfaid:part\s*(?:=\s*["']\s*|>\s*)([1-4])/g;
const CONFORMANCE = /pdfaid:conformance\s*(?:=\s*["']\s*|>\s*)([ABUabu])/g;
/** Characters kept from one chunk to the next, so that a declaration cut in two is still found. */
const OVERLAP = 256;

/**
 * The PDF/A part and conformance `file` declares in its XMP, or undefined when it declares none. A
 * streamed byte scan, never more than one chunk in memory: XMP packets are written uncompressed so
 * that such scans find them; a PDF/A whose metadata stream is compressed is not recognized (and is
 * then treated as a plain PDF). The last declaration wins (an incremental update appends the newer
 * one).
 */
export async function pdfaIdentity(file: string): Promise<PdfAIdentity | undefined> {
  let part: number | undefined;
  let conformance: string | undefined;
  let carry = '';
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    const text = carry + (chunk as Buffer).toString('latin1');
    for (const m of text.matchAll(PART)) part = Number(m[1]);
    for (const m of text.matchAll(CONFORMANCE)) conformance = m[1]!.toUpperCase();
    carry = text.slice(-OVERLAP);
  }
  return part === undefined ? undefined : { part, conformance };
}

/** Whether `file` declares itself a PDF/A (any part) in its XMP. */
export async function isPdfA(file: string): Promise<boolean> {
  return (await pdfaIdentity(file)) !== undefined;
}

/**
 * The pdfwrite switches that make a PDF/A of part `part` (an output intent of `colour` is placed with
 * `outputIntent`): a feature PDF/A forbids is dropped rather than giving up PDF/A, and every colour is
 * converted to the intent's space unless `colourArgs` already say how.
 */
export function pdfaSwitches(part: number, colour: IntentColour, colourArgs: string[] = []): string[] {
  const strategy = { rgb: 'RGB', gray: 'Gray', cmyk: 'CMYK' }[colour];
  return [`-dPDFA=${part}`, '-dPDFACompatibilityPolicy=1', '-dNOOUTERSAVE', ...(colourArgs.length ? colourArgs : [`-sColorConversionStrategy=${strategy}`])];
}
