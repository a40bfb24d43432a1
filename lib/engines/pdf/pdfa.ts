/**
 * PDF/A and PDF/X on Ghostscript (system `gs` or its WebAssembly build, as ghostscript.ts runs them):
 * pdfwrite rewrites qpdf's copy of the input with -dPDFA (or -dPDFX), fonts embedded, colours
 * converted to the output intent's space, and the output intent placed by output-intent.ts.
 *
 * - `pdf/a`: `conformance_level` 1b, 2b or 3b (PDF/A-1b, -2b, -3b; the default 2b). Ghostscript makes
 *   level B only. The output is checked: it must declare the part asked for in its XMP.
 * - `pdf/x`: PDF/X-3:2002, colours converted to CMYK for SWOP (CGATS TR 001), whose characterization
 *   (Artifex's CMYK profile, shipped in both builds) is embedded as the output intent.
 *
 * Neither output is validated against the standard here (no validator runs on these machines):
 * Ghostscript's pdfwrite is trusted to write what its switches ask for.
 */
import { open as openFile } from 'node:fs/promises';
import path from 'node:path';
import type { EngineCall, EngineResult } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { gs, normalized } from './ghostscript.js';
import { outputIntent, pdfaIdentity, pdfaSwitches } from './output-intent.js';

/** The `conformance_level` values of `pdf/a`, and the PDF/A part each is. */
export const PDFA_LEVELS = { '1b': 1, '2b': 2, '3b': 3 } as const;
export type PdfALevel = keyof typeof PDFA_LEVELS;
export const DEFAULT_PDFA_LEVEL: PdfALevel = '2b';

/** What `pdf/a` reads of a task's arguments. */
export interface PdfAArgs {
  conformance_level?: string;
}

/** pdf/a: the input rewritten as a PDF/A of the level asked for, its text kept. */
export async function pdfA(call: EngineCall<PdfAArgs>): Promise<EngineResult> {
  const [input] = call.inputs;
  const level = call.payload.conformance_level ?? DEFAULT_PDFA_LEVEL;
  if (!Object.hasOwn(PDFA_LEVELS, level)) {
    throw new EngineFailure('INVALID_INPUT', `conformance_level must be one of ${Object.keys(PDFA_LEVELS).join(', ')}; got ${JSON.stringify(level)}.`);
  }
  const part = PDFA_LEVELS[level as PdfALevel];
  const [name] = call.names('pdf', 1);
  const out = call.output(name!);
  const source = await normalized(call, input!.path);
  const intent = await outputIntent(call, 'pdfa', 'rgb');
  await gs(call, ['-sDEVICE=pdfwrite', ...pdfaSwitches(part, 'rgb'), `-sOutputFile=${out}`, ...intent.args], source, path.dirname(out), intent.programs);
  const made = await pdfaIdentity(out);
  if (made?.part !== part) {
    throw new EngineFailure('CONVERSION_FAILED', `Ghostscript could not make a PDF/A-${level} of ${input!.filename}.`);
  }
  return { files: [{ path: out, filename: name!, contentType: 'application/pdf' }] };
}

/** What `pdf/x` reads of a task's arguments: nothing yet (PDF/X-3 is the one version made). */
export type PdfXArgs = Record<string, unknown>;

/** Whether `file` holds the bytes of `marker` anywhere (a streamed scan, one chunk in memory). */
async function holds(file: string, marker: string): Promise<boolean> {
  const handle = await openFile(file, 'r');
  try {
    const size = 1 << 20;
    const buffer = Buffer.alloc(size + marker.length);
    let carried = 0;
    for (let position = 0; ; ) {
      const { bytesRead } = await handle.read(buffer, carried, size, position);
      if (bytesRead === 0) return false;
      const end = carried + bytesRead;
      if (buffer.subarray(0, end).includes(marker, 0, 'latin1')) return true;
      carried = Math.min(marker.length - 1, end);
      buffer.copy(buffer, 0, end - carried, end);
      position += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

/** pdf/x: the input rewritten as a PDF/X-3 for SWOP printing, its colours in CMYK. */
export async function pdfX(call: EngineCall<PdfXArgs>): Promise<EngineResult> {
  const [input] = call.inputs;
  const [name] = call.names('pdf', 1);
  const out = call.output(name!);
  const source = await normalized(call, input!.path);
  const intent = await outputIntent(call, 'pdfx', 'cmyk');
  await gs(call, [
    '-sDEVICE=pdfwrite',
    '-dPDFX',
    '-sColorConversionStrategy=CMYK',
    '-dProcessColorModel=/DeviceCMYK',
    '-dNOOUTERSAVE',
    `-sOutputFile=${out}`,
    ...intent.args,
  ], source, path.dirname(out), intent.programs);
  if (!(await holds(out, '/GTS_PDFXVersion'))) {
    throw new EngineFailure('CONVERSION_FAILED', `Ghostscript could not make a PDF/X of ${input!.filename}.`);
  }
  return { files: [{ path: out, filename: name!, contentType: 'application/pdf' }] };
}
