/**
 * qpdf's page and security operations: one PDF per page (`pdf/split-pages`), chosen pages in a chosen
 * order (`pdf/extract-pages`), AES-256 encryption with permissions (`pdf/encrypt`) and its removal
 * (`pdf/decrypt`). The system qpdf or its WebAssembly build, as the call chose (qpdf.ts).
 *
 * Passwords never reach a command line (where other processes of the machine could read them, and
 * where the WebAssembly child carries its arguments): qpdf is given one argument, a job file (qpdf's
 * `--job-json-file`, the same options as JSON) written in the call's folder, readable by this user only
 * and removed after the run. JSON takes any password as it is (spaces, a leading `--`, line breaks),
 * which qpdf's positional `--encrypt user owner 256` arguments do not. qpdf repeats some arguments in its
 * error output: the passwords are cut out of a failure's `stderr` before it goes anywhere.
 *
 * An input that needs a password: without one the call fails with `ENCRYPTED_INPUT` (`INVALID_PASSWORD`
 * for `pdf/decrypt`), with a wrong one with `INVALID_PASSWORD` (decided after a failed run, not from
 * qpdf's message: see `withPasswordCheck`).
 * Splitting or extracting pages of an encrypted input keeps its encryption (qpdf's default): only
 * `pdf/decrypt` removes it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EngineCall, EngineResult, LocalFile, Produced } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { namesEncrypt } from '../core/limits.js';
import { chosenQpdf } from './qpdf.js';
import { runTool, ToolError, type ToolResult } from '../core/tool.js';
import { runWasm } from '../core/wasm.js';

/** `password`: the input's own password, when it has one (every operation here reads it). */
export interface InputPasswordArgs {
  password?: string;
}

export type SplitPagesArgs = InputPasswordArgs;

export interface ExtractPagesArgs extends InputPasswordArgs {
  /** Pages in the order wanted: `1-3,5,7-` (see `orderedPages`). */
  pages?: string;
}

/** The real API's names: `set_password` opens the output, `set_owner_password` lifts its restrictions. */
export interface EncryptArgs extends InputPasswordArgs {
  set_password?: string;
  set_owner_password?: string;
  /** Each permission is granted unless set to false. */
  allow_print?: boolean;
  allow_modify?: boolean;
  allow_extract?: boolean;
  /**
   * Accepted and not applied: PDF 2.0 forbids restricting accessibility, and qpdf ignores it with
   * AES-256 (readers always allow text extraction for assistive technology).
   */
  allow_accessibility?: boolean;
}

export type DecryptArgs = InputPasswordArgs;

const PDF = 'application/pdf';
const PAGE_RANGE = /^\s*(\d+)\s*(?:(-)\s*(?:(\d+)\s*)?)?$/;
const EXAMPLE = 'such as 1-3,5,7-';

/** A run of pages, `from` to `to` (both included, `from` ≤ `to`). */
export interface PageRun {
  from: number;
  to: number;
}

/**
 * The pages `ranges` names among `count`, in the order written (`9,2-4` is 9, 2, 3, 4; a page named
 * twice comes twice). The syntax of `selectPages` (pdf.ts): numbers and ranges separated by commas,
 * `7-` running to the last page. Unlike `selectPages`, which drops what it cannot use, every part must
 * be a page or a range of this file: a page past the last one, a range running backwards or text that
 * is no range fails with `INVALID_INPUT`, naming it.
 */
export function orderedPages(ranges: string | undefined, count: number, filename: string): PageRun[] {
  if (!ranges?.trim()) throw new EngineFailure('INVALID_INPUT', `pages names no page of ${filename}: give pages ${EXAMPLE}.`);
  const runs: PageRun[] = [];
  const past: string[] = [];
  for (const raw of ranges.split(',')) {
    const part = raw.trim();
    const m = PAGE_RANGE.exec(part);
    const shown = part.length > 40 ? `${part.slice(0, 40)}…` : part;
    if (!m) throw new EngineFailure('INVALID_INPUT', `"${shown}" in pages is not a page number or a range (${EXAMPLE}).`);
    const from = Number(m[1]);
    const to = m[2] ? (m[3] ? Number(m[3]) : Math.max(count, from)) : from;
    if (from < 1) throw new EngineFailure('INVALID_INPUT', `"${shown}" in pages: pages are numbered from 1.`);
    if (to < from) throw new EngineFailure('INVALID_INPUT', `"${shown}" in pages runs backwards: write ${to}-${from}, or list the pages in the order wanted.`);
    if (to > count) past.push(shown);
    else runs.push({ from, to });
  }
  if (past.length) {
    const them = past.length === 1 ? `Page ${past[0]} is` : `Pages ${past.join(', ')} are`;
    throw new EngineFailure('INVALID_INPUT', `${them} past the end of ${filename}, which has ${count} page${count === 1 ? '' : 's'}.`);
  }
  return runs;
}

/** A qpdf job (the JSON of `qpdf --job-json-help`), run with its file read and the folders it writes. */
interface Job {
  options: Record<string, unknown>;
  input: LocalFile;
  /** Folders the job writes its outputs into. */
  outputs: string[];
  captureStdout?: boolean;
  okExitCodes?: number[];
}

/** The passwords of a call, to be kept out of anything it reports. */
function secretsOf(payload: EncryptArgs): string[] {
  return [payload.password, payload.set_password, payload.set_owner_password].filter((s): s is string => !!s);
}

/** `text` with every secret replaced (plain text replacement: no pattern is made from them). */
function scrub(text: string, secrets: readonly string[]): string {
  return secrets.reduce((out, secret) => out.split(secret).join('***'), text);
}

/** Runs qpdf on a job file in the call's folder (see the top of this module); the file is removed after. */
async function runJob(call: EngineCall<EncryptArgs>, job: Job, secrets: readonly string[] = secretsOf(call.payload)): Promise<ToolResult> {
  const qpdf = chosenQpdf(call.choice.installed);
  const file = path.join(call.dir, `.qpdf-job-${randomUUID()}.json`);
  await writeFile(file, JSON.stringify({ inputFile: job.input.path, ...job.options }), { mode: 0o600, flag: 'wx' });
  const args = [`--job-json-file=${file}`];
  const opts = { ...call.tool, captureStdout: job.captureStdout, okExitCodes: job.okExitCodes };
  try {
    if (qpdf.variant === 'system') return await runTool(qpdf.file, args, opts);
    return await runWasm('qpdf', qpdf.module, { args, inputs: [job.input.path, file], outputs: job.outputs }, opts);
  } catch (err) {
    if (err instanceof ToolError && secrets.length) throw new ToolError(err.tool, err.exitCode, scrub(err.stderr, secrets), err.signal);
    throw err;
  } finally {
    await rm(file, { force: true });
  }
}

/** The input's password, as qpdf's job options (none when none was given). */
const inputPassword = (payload: InputPasswordArgs) => (payload.password ? { password: payload.password } : {});

/**
 * Runs `work` on the input; when qpdf fails, tells a password the call lacks (or got wrong) from
 * other failures: qpdf cannot open the file with the password given, and the file is encrypted.
 * (qpdf's own `--requires-password` answers so on the system build, but its WebAssembly build
 * answers 2, "not encrypted", for a file it cannot open.)
 */
async function withPasswordCheck<T>(call: EngineCall<EncryptArgs>, input: LocalFile, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof ToolError) || call.signal.aborted) throw err;
    const opens = await pageCount(call, input).then(
      () => true,
      () => false,
    );
    if (opens || call.signal.aborted || !(await namesEncrypt(input.path))) throw err;
    if (call.payload.password) throw new EngineFailure('INVALID_PASSWORD', `The password given does not open ${input.filename}.`, { cause: err });
    if (call.operation === 'pdf/decrypt') throw new EngineFailure('INVALID_PASSWORD', `${input.filename} needs its password to open: give it as password.`, { cause: err });
    throw new EngineFailure('ENCRYPTED_INPUT', `${input.filename} is protected by a password: give it as password, or decrypt it first.`, { cause: err });
  }
}

/** The page count qpdf reads from the page tree. */
async function pageCount(call: EngineCall<EncryptArgs>, input: LocalFile): Promise<number> {
  const { stdout } = await runJob(call, { input, outputs: [], captureStdout: true, options: { ...inputPassword(call.payload), showNpages: '' } });
  const count = Number.parseInt(stdout.trim(), 10);
  if (!Number.isFinite(count)) throw new EngineFailure('INVALID_INPUT', `The page count of ${input.filename} could not be read.`);
  return count;
}

/** `pdf/split-pages`: one PDF per page, named by `call.names` in page order. */
export async function splitPdfPages(call: EngineCall<SplitPagesArgs>): Promise<EngineResult> {
  const input = call.inputs[0]!;
  const folder = await mkdtemp(path.join(call.dir, 'pages-'));
  await withPasswordCheck(call, input, () =>
    runJob(call, {
      input,
      outputs: [folder],
      // `%d` becomes the page number, zero-padded to the width of the last one.
      options: { ...inputPassword(call.payload), splitPages: '1', outputFile: path.join(folder, 'page-%d.pdf'), warningExit0: '' },
    }),
  );
  const pages = (await readdir(folder))
    .map((name) => ({ name, page: Number.parseInt(name.slice('page-'.length), 10) }))
    .filter((p) => Number.isFinite(p.page))
    .sort((a, b) => a.page - b.page);
  if (pages.length === 0) throw new EngineFailure('INVALID_INPUT', `${input.filename} has no pages.`);
  // Checked before the run too, except for an input only its password opens where no system qpdf is.
  if (pages.length > call.config.MAX_PDF_PAGES) {
    throw new EngineFailure('TOO_MANY_PAGES', `${input.filename} has ${pages.length} pages; PDFs of up to ${call.config.MAX_PDF_PAGES} pages are processed (MAX_PDF_PAGES).`);
  }
  const names = call.names('pdf', pages.length);
  const files: Produced[] = [];
  for (const [i, page] of pages.entries()) {
    const out = call.output(names[i]!);
    await rename(path.join(folder, page.name), out);
    files.push({ path: out, filename: names[i]!, contentType: PDF });
  }
  await rm(folder, { recursive: true, force: true });
  return { files };
}

/** `pdf/extract-pages`: one PDF of the pages `pages` names, in the order it names them. */
export async function extractPdfPages(call: EngineCall<ExtractPagesArgs>): Promise<EngineResult> {
  const input = call.inputs[0]!;
  const count = await withPasswordCheck(call, input, () => pageCount(call, input));
  const runs = orderedPages(call.payload.pages, count, input.filename);
  const total = runs.reduce((n, r) => n + r.to - r.from + 1, 0);
  if (total > call.config.MAX_PDF_PAGES) {
    throw new EngineFailure('TOO_MANY_PAGES', `pages names ${total} pages; PDFs of up to ${call.config.MAX_PDF_PAGES} pages are made (MAX_PDF_PAGES).`);
  }
  const [name] = call.names('pdf', 1);
  const out = call.output(name!);
  // The ranges qpdf is given are written here from numbers, never passed on as the client wrote them.
  const range = runs.map((r) => (r.from === r.to ? `${r.from}` : `${r.from}-${r.to}`)).join(',');
  await runJob(call, {
    input,
    outputs: [path.dirname(out)],
    // `.`: the input itself, so its document-level parts (information, metadata) are kept.
    options: { ...inputPassword(call.payload), pages: [{ file: '.', range }], outputFile: out, warningExit0: '' },
  });
  return { files: [{ path: out, filename: name!, contentType: PDF }] };
}

/**
 * `pdf/encrypt`: AES-256 (PDF 2.0, R6). `set_password` is asked for on opening; `set_owner_password`
 * lifts the restrictions. Without an owner password a random one is set and forgotten, so the
 * restrictions hold for everyone who opens the file with `set_password` (an owner password equal to
 * it would lift them for all of them). One of the two is required.
 */
export async function encryptPdf(call: EngineCall<EncryptArgs>): Promise<EngineResult> {
  const input = call.inputs[0]!;
  const { set_password: user = '', set_owner_password: owner = '', allow_print, allow_modify, allow_extract } = call.payload;
  if (!user && !owner) {
    throw new EngineFailure('INVALID_INPUT', 'pdf/encrypt needs set_password (asked for on opening) or set_owner_password (lifts the restrictions), or both.');
  }
  const ownerPassword = owner || randomBytes(24).toString('base64url');
  const [name] = call.names('pdf', 1);
  const out = call.output(name!);
  await withPasswordCheck(call, input, () =>
    runJob(
      call,
      {
        input,
        outputs: [path.dirname(out)],
        options: {
          ...inputPassword(call.payload),
          encrypt: {
            userPassword: user,
            ownerPassword,
            '256bit': {
              print: allow_print === false ? 'none' : 'full',
              modify: allow_modify === false ? 'none' : 'all',
              extract: allow_extract === false ? 'n' : 'y',
            },
          },
          outputFile: out,
          warningExit0: '',
        },
      },
      [...secretsOf(call.payload), ownerPassword],
    ),
  );
  return { files: [{ path: out, filename: name!, contentType: PDF }] };
}

/**
 * `pdf/decrypt`: the input without encryption, opened with `password` (needed when the file asks for
 * one on opening; a file with an owner password only opens without it). An input that is not
 * encrypted is written again by qpdf, its content unchanged.
 */
export async function decryptPdf(call: EngineCall<DecryptArgs>): Promise<EngineResult> {
  const input = call.inputs[0]!;
  const [name] = call.names('pdf', 1);
  const out = call.output(name!);
  await withPasswordCheck(call, input, () =>
    runJob(call, { input, outputs: [path.dirname(out)], options: { ...inputPassword(call.payload), decrypt: '', outputFile: out, warningExit0: '' } }),
  );
  return { files: [{ path: out, filename: name!, contentType: PDF }] };
}
