/**
 * The calibre engine: e-books with `ebook-convert` (calibre-formats.ts says which formats and options).
 *
 * How it stays within the call's folder:
 * - it runs through runTool, confined like every tool (bubblewrap here: no network, the system folders
 *   read-only, the work folder the only writable place), with HOME, TMPDIR and calibre's configuration
 *   and caches inside the call's folder;
 * - its command line holds only names this module chose: the input is copied to `input.<format>` and
 *   the output written to `output.<format>`, each format from the allowlist, and option values that
 *   are enum members or bounded numbers (no user string, so nothing can pass as an option);
 * - nothing calibre can fetch is reachable: recipes (`.recipe` input, which downloads news) and the
 *   metadata download are not in the allowlist; links in an e-book (remote images, `file://` or `../`
 *   references) meet the confinement (no network, no file outside the work folder but the system's);
 * - zip containers (EPUB, DOCX…) are listed first and refused when their declared totals pass the
 *   archive limits (zip-totals.ts); every run is stopped after MAX_EBOOK_SECONDS, and what it writes is
 *   bounded by the task's output bound (runTool's file size limit).
 * PDF output renders with QtWebEngine, offscreen: its own Chromium sandbox cannot start inside
 * bubblewrap (no setuid helper, no nested namespaces), so it runs without one, inside bubblewrap's.
 */
import { copyFile, mkdir, readdir, rename } from 'node:fs/promises';
import path from 'node:path';
import type { EngineCall, EngineResult } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { mimeType, normalizeFormat } from '../core/formats.js';
import { checkArchiveTotals } from '../core/limits.js';
import { runTool, ToolError } from '../core/tool.js';
import { CALIBRE_INPUTS, CALIBRE_OUTPUTS, EBOOK_DOCUMENTS, ebookOptionArgs, ZIPPED_INPUTS, type EbookOptions } from './calibre-formats.js';
import { zipTotals } from './zip-totals.js';
import { stripExternalLinks } from './office-links.js';

export type EbookArgs = EbookOptions & { output_format: string };

const listed = (list: readonly string[], format: string | null | undefined): format is string => !!format && list.includes(format);

/** The environment calibre needs headless: Qt offscreen, QtWebEngine (PDF output) without its own sandbox, settings in the call's folder. */
function calibreEnv(dir: string): Record<string, string> {
  return {
    QT_QPA_PLATFORM: 'offscreen',
    QTWEBENGINE_DISABLE_SANDBOX: '1',
    QTWEBENGINE_CHROMIUM_FLAGS: '--disable-gpu --no-sandbox',
    CALIBRE_CONFIG_DIRECTORY: path.join(dir, 'calibre-config'),
    CALIBRE_CACHE_DIRECTORY: path.join(dir, 'calibre-cache'),
  };
}

/**
 * Where the confinement leaves the host's files readable (unshare, platform, none: named by the
 * operator; in Lambda that includes /proc/<pid>/environ, see office-links.ts), the two ways calibre
 * was seen embedding a local file (test/security/calibre-links.test.ts, unconfined) are closed: TXT
 * and TXTZ are read as plain text (its Markdown and Textile readers embed a local image the text
 * names, `file://` or `../`), and a DOCX loses its external relationships before calibre opens it
 * (it embeds an external image's file). Under bubblewrap no such file is there to embed, and both are
 * read in full.
 */
function weakConfinementArgs(call: EngineCall<EbookArgs>, from: string): string[] {
  if (call.tool.confinement.level === 'bwrap') return [];
  return from === 'txt' || from === 'txtz' ? ['--formatting-type=plain'] : [];
}

async function stripWhereWeak(call: EngineCall<EbookArgs>, file: string, from: string, filename: string): Promise<void> {
  if (call.tool.confinement.level !== 'bwrap' && from === 'docx') await stripExternalLinks(file, from, filename);
}

/**
 * Runs ebook-convert on `from` to `to` under the e-book time limit, failures as task errors. The limit
 * is a timer of its own, cleared after the run, rather than an `AbortSignal.timeout` combined by
 * `AbortSignal.any`, which holds it only weakly: collected, it never fires (the likely cause of a
 * conversion seen running minutes past a 180 s limit on a busy machine).
 */
async function ebookConvert(call: EngineCall<EbookArgs>, from: string, to: string, filename: string): Promise<void> {
  const seconds = call.config.MAX_EBOOK_SECONDS;
  const limit = new AbortController();
  const timer = setTimeout(() => limit.abort(new Error('MAX_EBOOK_SECONDS')), seconds * 1000);
  const signal = AbortSignal.any([call.signal, limit.signal]);
  const args = [from, to, ...weakConfinementArgs(call, path.extname(from).slice(1)), ...ebookOptionArgs(call.payload)];
  try {
    await runTool(call.choice.installed.executable!, args, { ...call.tool, signal, env: calibreEnv(call.dir), name: 'ebook-convert' });
  } catch (err) {
    call.signal.throwIfAborted();
    if (limit.signal.aborted) throw new EngineFailure('CONVERSION_FAILED', `${filename} took longer than ${seconds} s to convert; e-book conversions are stopped there (MAX_EBOOK_SECONDS).`);
    if (!(err instanceof ToolError)) throw err;
    const how = err.exitCode === null ? (err.signal ? `ended by ${err.signal}` : 'could not be run') : `exit code ${err.exitCode}`;
    throw new EngineFailure('CONVERSION_FAILED', `calibre could not convert ${filename} (${how}); is it a valid ${path.extname(from).slice(1)} file?`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}

export async function convertEbook(call: EngineCall<EbookArgs>): Promise<EngineResult> {
  const [input] = call.inputs;
  const from = input!.format ? normalizeFormat(input!.format) : undefined;
  const to = normalizeFormat(call.payload.output_format);
  if (!listed(CALIBRE_INPUTS, from) || !listed(CALIBRE_OUTPUTS, to) || (listed(EBOOK_DOCUMENTS, from) && listed(EBOOK_DOCUMENTS, to))) {
    throw new EngineFailure('UNSUPPORTED_FORMAT', `calibre does not convert ${from ?? 'this file'} to ${to}.`);
  }
  if (ZIPPED_INPUTS.includes(from)) checkArchiveTotals(input!.filename, await zipTotals(input!.filename, input!.path, input!.size), input!.size, call.config);
  const work = path.join(call.dir, 'ebook');
  await mkdir(work, { recursive: true });
  const source = path.join(work, `input.${from}`);
  await copyFile(input!.path, source);
  await stripWhereWeak(call, source, from, input!.filename);
  const made = path.join(work, `output.${to}`);
  await ebookConvert(call, source, made, input!.filename);
  if (!(await readdir(work)).includes(path.basename(made))) {
    throw new EngineFailure('CONVERSION_FAILED', `calibre made nothing of ${input!.filename}; is it a valid ${from} file?`);
  }
  const [name] = call.names(to, 1);
  const out = call.output(name!);
  await rename(made, out);
  return { files: [{ path: out, filename: name!, contentType: mimeType(to) }] };
}
