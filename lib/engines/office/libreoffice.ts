/**
 * The LibreOffice engine: office documents (Writer, Calc, Impress formats, as installed) to PDF with
 * `soffice --headless --convert-to`, fully confined (the registry offers it only then, see confine.ts):
 * a document's links (images, backgrounds, sections, OLE objects, in ODF, flat ODF, OOXML or HTML
 * clothes) reach neither the network nor a file outside the call's folder.
 *
 * Defence in depth, should the confinement be weaker (an operator's explicit ENGINE_CONFINEMENT): each
 * process gets a fresh user profile (profile.ts) in its own folder, per call or per warm worker (a
 * worker's tasks share it, never their files: warm.ts), whose settings stop what they can. Tried on LibreOffice 7.4 with linked images (ODT frames and paragraph backgrounds,
 * DOCX external relationships, flat ODT, HTML `<img>`), over http, ftp and file://:
 * - `BlockUntrustedRefererLinks` stops linked images of every kind except style backgrounds;
 * - a manual proxy at a name that never resolves (`.invalid`, RFC 2606) stops the http, https and
 *   ftp fetches that remain (the backgrounds);
 * - a `file://` background image is embedded whatever the settings: only the confinement stops it;
 * - where the platform is the only confinement (Lambda), documents lose their external references
 *   before LibreOffice opens them (office-links.ts);
 * - `DisableMacrosExecution`: no document macro runs (not reached by these documents, kept for the
 *   neighbouring class of documents that carry code).
 * A fresh profile costs no measurable time over a warm one (see the issue-10 report).
 */
import { mkdir, readdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EngineCall, EngineResult, LocalFile } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { basename, CALC_FORMATS, IMPRESS_FORMATS } from '../core/formats.js';
import { stripExternalLinks } from './office-links.js';
import { freshProfile } from './profile.js';
import { convertWarm, warmPool } from './warm.js';
import { realLocation } from '../core/probe.js';
import { runTool, ToolError } from '../core/tool.js';

function exportFilter(format: string): string {
  if ((CALC_FORMATS as readonly string[]).includes(format)) return 'calc_pdf_Export';
  if ((IMPRESS_FORMATS as readonly string[]).includes(format)) return 'impress_pdf_Export';
  return 'writer_pdf_Export';
}

/**
 * One LibreOffice conversion: what to read and what to write. The seam between the formats
 * (what each pair needs) and how LibreOffice runs (a warm process, or a process per call).
 */
export interface OfficeJob {
  input: LocalFile;
  /** The output's extension, as `--convert-to` names it (pdf, docx, png…). */
  extension: string;
  /** The export filter (writer_pdf_Export, calc8, "MS Word 2007 XML"…); LibreOffice's default for the extension when absent. */
  filter?: string;
  /** The export filter's options (its FilterData), as typed values. */
  options?: Record<string, { type: string; value: unknown }>;
  /** The export filter's options as a string (CSV's tokens, `EmbedImages`), when `options` is absent. */
  filterOptions?: string;
  /** How to read the input (`name` or `name:options`), for formats whose content does not say (CSV, TSV, text); detected when absent. */
  importFilter?: string;
}

/** The `--convert-to` argument for a job: `ext[:filter[:options as JSON]]`. */
export function convertToArgument(job: OfficeJob): string {
  if (!job.filter) return job.extension;
  if (job.options) return `${job.extension}:${job.filter}:${JSON.stringify(job.options)}`;
  return job.filterOptions ? `${job.extension}:${job.filter}:${job.filterOptions}` : `${job.extension}:${job.filter}`;
}

/**
 * Converts `job.input` with LibreOffice, confined as every tool, and gives the path of the file it
 * wrote in a folder of the call's own: on a warm process of the pool (warm.ts, pool.ts), else with a
 * process of its own (`--convert-to`).
 */
export async function runLibreOffice(call: EngineCall, job: OfficeJob): Promise<string> {
  const input = job.input;
  // Without bubblewrap (the office Lambda function: ENGINE_CONFINEMENT=platform) nothing stops a link
  // LibreOffice follows: the document goes in as its own format only, its external references removed
  // (office-links.ts, which says why).
  if (call.tool.confinement.level === 'platform' || call.tool.confinement.level === 'none') {
    await stripExternalLinks(input.path, input.format!, input.filename);
  }
  const outDir = path.join(call.dir, 'office');
  await mkdir(outDir, { recursive: true });
  const executable = call.choice.installed.executable!;
  // The installation (program/ and its neighbours share/, presets/…), bound read-only when it is not in a system folder.
  const program = path.dirname(realLocation(executable) ?? executable);
  const installation = path.basename(program) === 'program' ? path.dirname(program) : program;
  // Warm processes where python3-uno drives them (warm.ts); a process of its own per call otherwise.
  const pool = warmPool(call, installation);
  if (pool) return convertWarm(call, pool, job, outDir);
  const profile = await freshProfile(call.dir);
  try {
    await runTool(
      executable,
      [
        '--headless',
        '--invisible',
        '--nologo',
        '--nodefault',
        '--norestore',
        '--nolockcheck',
        '--nofirststartwizard',
        `-env:UserInstallation=${pathToFileURL(profile).href}`,
        ...(job.importFilter ? [`--infilter=${job.importFilter}`] : []),
        '--convert-to',
        convertToArgument(job),
        '--outdir',
        outDir,
        input.path,
      ],
      { ...call.tool, readOnly: [installation] },
    );
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    const how = err.exitCode === null ? (err.signal ? `ended by ${err.signal}` : 'could not be run') : `exit code ${err.exitCode}`;
    throw new EngineFailure('CONVERSION_FAILED', `LibreOffice could not convert ${input.filename} (${how}).`, { cause: err });
  }
  const made = (await readdir(outDir)).find((f) => f.toLowerCase().endsWith(`.${job.extension.toLowerCase()}`));
  if (!made) throw new EngineFailure('CONVERSION_FAILED', `LibreOffice could not convert ${input.filename} (${basename(input.filename)} is damaged or not a ${input.format} file).`);
  return path.join(outDir, made);
}

export async function officeToPdf(call: EngineCall<{ pages?: string }>): Promise<EngineResult> {
  const [input] = call.inputs;
  const pages = typeof call.payload.pages === 'string' ? call.payload.pages.replace(/\s+/g, '') : undefined;
  const made = await runLibreOffice(call, {
    input: input!,
    extension: 'pdf',
    ...(pages ? { filter: exportFilter(input!.format!), options: { PageRange: { type: 'string', value: pages } } } : {}),
  });
  const [name] = call.names('pdf', 1);
  const out = call.output(name!);
  await rename(made, out);
  return { files: [{ path: out, filename: name!, contentType: 'application/pdf' }] };
}
