/**
 * Runs the pdfjs child (child.ts) on one PDF under the same confinement, kill on cancel and output
 * bound as a native tool (runTool), with a time limit of its own (MAX_PDF_TEXT_SECONDS) and a bounded
 * heap, reading only pdf.js's package folder and the task's work folder. Its exit codes become the
 * task's error codes; what it found comes back as a JSON file of the call's folder, read only when its
 * size is within what the child may write.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { EngineCall, LocalFile } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import type { PdfjsPackage } from '../core/pdfjs-package.js';
import { runTool, ToolError } from '../core/tool.js';
import { CHILD, EXIT, type PdfjsJob } from './child.js';
import type { PageRuns } from './layout.js';

/** Text read from one PDF at most (a page of dense text holds some 5,000 characters). */
const MAX_CHARS = 10_000_000;
/** Runs of text at most (each costs some 40 bytes of JSON besides its characters). */
const MAX_RUNS = 1_000_000;
/** What the child's JSON may weigh: its characters escaped, and its runs. */
const MAX_JSON_BYTES = 6 * MAX_CHARS + 64 * MAX_RUNS;

export interface PdfRuns {
  /** The document's page count. */
  count: number;
  pages: PageRuns[];
}

/** The text runs of `input`'s pages (`pages`: the numbers to read, those past its end ignored; undefined: all). */
export async function extractRuns(call: EngineCall, input: LocalFile, pdfjs: PdfjsPackage, pages: number[] | undefined): Promise<PdfRuns> {
  const output = call.output('.pdfjs-text.json');
  const job: PdfjsJob = {
    input: input.path,
    output,
    module: pdfjs.module,
    standardFonts: pdfjs.standardFonts,
    cmaps: pdfjs.cmaps,
    maxPages: call.config.MAX_PDF_PAGES,
    pages: pages ?? null,
    maxChars: MAX_CHARS,
    maxRuns: MAX_RUNS,
  };
  const seconds = call.config.MAX_PDF_TEXT_SECONDS;
  const signal = AbortSignal.any([call.signal, AbortSignal.timeout(seconds * 1000)]);
  try {
    // A bounded heap: past it the child dies alone (a failed conversion), never the worker.
    await runTool(process.execPath, ['--input-type=module', '--no-warnings', '--max-old-space-size=1024', '-e', CHILD, JSON.stringify(job)], {
      ...call.tool,
      signal,
      name: 'pdfjs',
      readOnly: [pdfjs.folder, path.dirname(process.execPath)],
    });
  } catch (err) {
    if (call.signal.aborted) throw err;
    if (signal.aborted) throw new EngineFailure('CONVERSION_FAILED', `${input.filename} took longer than ${seconds} s to read; PDFs are read for that long at most (MAX_PDF_TEXT_SECONDS).`);
    throw failure(err, input.filename, call.config.MAX_PDF_PAGES);
  }
  const { size } = await stat(output);
  if (size > MAX_JSON_BYTES) throw new EngineFailure('OUTPUT_TOO_LARGE', `${input.filename} holds more text than is converted.`);
  return JSON.parse(await readFile(output, 'utf8')) as PdfRuns;
}

/** The task's failure for the child's exit code (its reason is on its last stderr line). */
function failure(err: unknown, filename: string, maxPages: number): unknown {
  if (!(err instanceof ToolError)) return err;
  const why = /pdfjs: ([^|]*)/.exec(err.stderr)?.[1]?.trim() ?? 'it could not be read';
  switch (err.exitCode) {
    case EXIT.UNREADABLE:
      return new EngineFailure('INVALID_INPUT', `${filename} could not be read as a PDF: ${why}.`, { cause: err });
    case EXIT.ENCRYPTED:
      return new EngineFailure('ENCRYPTED_INPUT', `${filename} is encrypted; decrypt it first (pdf/decrypt).`, { cause: err });
    case EXIT.TOO_MANY_PAGES:
      return new EngineFailure('TOO_MANY_PAGES', `${filename} has ${why} pages; PDFs of up to ${maxPages} pages are processed (MAX_PDF_PAGES).`, { cause: err });
    case EXIT.TOO_MUCH_TEXT:
      return new EngineFailure('OUTPUT_TOO_LARGE', `${filename} holds ${why}; PDFs with less text are converted.`, { cause: err });
    default:
      return err;
  }
}
