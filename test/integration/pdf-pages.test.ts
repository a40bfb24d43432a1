/**
 * qpdf's page and security operations (lib/engines/pdf/qpdf-pages.ts), called as the task runner calls an
 * engine, on each qpdf there is: the system one when installed, the WebAssembly build always. A 10-page
 * PDF whose page N reads "Page N of 10": split into 10 one-page PDFs, pages extracted in the order
 * asked, encrypted (PDF.js refuses it without the password, opens it with it, and reads the
 * permissions set), decrypted back, and the failures a user sees for pages past the end and wrong or
 * missing passwords. Every command line started is recorded: no password is ever on one.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { PDFDocument } from 'pdf-lib';
import { getDocument, PermissionFlag } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '#lib/kernel/config.js';
import { BUNDLED_VERSIONS } from '#lib/engines/core/catalog.js';
import type { EngineCall, EngineResult } from '#lib/engines/core/call.js';
import { confinement } from '#lib/engines/core/confine.js';
import { EngineFailure } from '#lib/engines/core/errors.js';
import type * as ToolModule from '#lib/engines/core/tool.js';
import { findExecutable } from '#lib/engines/core/probe.js';
import { decryptPdf, encryptPdf, extractPdfPages, orderedPages, splitPdfPages, type EncryptArgs } from '#lib/engines/pdf/qpdf-pages.js';
import { qpdfWasm } from '#lib/engines/core/shipped.js';
import { createLogger } from '#lib/kernel/log.js';
import { textPdf } from '../fixtures/engine-fixtures.js';
import { pdfPageText } from '../support/pdf-text.js';
import { TEST_CONFIG_ENV } from '../support/recording-queue.js';
import { optionalBuild, tool } from '../support/requires.js';

/** Every command line a tool was started with (the WebAssembly build runs in a `node` child, also through runTool). */
const commandLines = vi.hoisted(() => [] as string[][]);
vi.mock('#lib/engines/core/tool.js', async (importOriginal) => {
  const original = await importOriginal<typeof ToolModule>();
  return {
    ...original,
    runTool: (file: string, args: readonly string[], opts: Parameters<typeof original.runTool>[2]) => {
      commandLines.push([file, ...args]);
      return original.runTool(file, args, opts);
    },
  };
});

const pdfjsRoot = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
const OPEN_PASSWORD = ' open sesame, "quoted" --and spaced ';
const OWNER_PASSWORD = '--owner ünïcode';
const SECRETS = [OPEN_PASSWORD, OWNER_PASSWORD, 'not the password'];

let ten: Buffer;
let root: string;
beforeAll(async () => {
  ten = await textPdf(10);
  root = mkdtempSync(path.join(tmpdir(), 'pdf-pages-'));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  // Whatever ran, no password was ever an argument of a process.
  expect(commandLines.length).toBeGreaterThan(0);
  for (const line of commandLines) for (const secret of SECRETS) expect(line.join(' ')).not.toContain(secret.trim());
});

/** A document opened by PDF.js (with `password` if given). */
async function openWithPdfjs(bytes: Uint8Array, password?: string) {
  return getDocument({
    data: new Uint8Array(bytes),
    password,
    standardFontDataUrl: path.join(pdfjsRoot, 'standard_fonts') + path.sep,
    disableFontFace: true,
    isEvalSupported: false,
    verbosity: 0,
  }).promise;
}

/** The text of each page PDF.js reads, opened with `password`. */
async function pageTexts(bytes: Uint8Array, password?: string): Promise<string[]> {
  const doc = await openWithPdfjs(bytes, password);
  try {
    const texts: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const content = await (await doc.getPage(n)).getTextContent();
      texts.push(content.items.map((item) => ('str' in item ? item.str : '')).join('').trim());
    }
    return texts;
  } finally {
    await doc.destroy();
  }
}

/** The failure a call ends with (it must fail). */
async function failure(run: Promise<EngineResult>): Promise<EngineFailure> {
  const err = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EngineFailure);
  return err as EngineFailure;
}

type Variant = 'system' | 'wasm';

function suite(variant: Variant) {
  /** An engine call on `input` (bytes of ten.pdf unless given), as the task runner makes one. */
  function call<P extends object>(operation: string, payload: P, input: Buffer = ten): EngineCall<P> {
    const dir = path.join(root, `${variant}-${randomUUID().slice(0, 8)}`);
    mkdirSync(path.join(dir, 'in'), { recursive: true });
    mkdirSync(path.join(dir, 'out'));
    const file = path.join(dir, 'in', '0-ten.pdf');
    writeFileSync(file, input);
    const config = parseConfig(TEST_CONFIG_ENV);
    const ac = new AbortController();
    const installed =
      variant === 'wasm'
        ? { version: BUNDLED_VERSIONS.qpdfWasm, executable: qpdfWasm()!.file, variant: 'wasm' }
        : { version: 'system', executable: findExecutable('qpdf')! };
    return {
      operation,
      payload,
      choice: { engine: 'qpdf', version: installed.version, installed, capability: { operation, inputs: ['pdf'], outputs: ['pdf'], options: [] } },
      inputs: [{ path: file, filename: 'ten.pdf', format: 'pdf', size: input.length, taskId: 't' }],
      extras: [],
      dir,
      tool: { cwd: dir, workDir: dir, confinement: confinement(config), signal: ac.signal },
      signal: ac.signal,
      config,
      log: createLogger({}, { level: 'silent' }),
      output: (filename) => path.join(dir, 'out', filename),
      names: (ext, count) => (count === 1 ? [`ten.${ext}`] : Array.from({ length: count }, (_, i) => `ten-${i + 1}.${ext}`)),
    };
  }

  /** What the call's folder holds once it is done, besides its input and outputs (the tools' `.tmp`). */
  const leftovers = (c: EngineCall) => readdirSync(c.dir).filter((n) => !['in', 'out', '.tmp'].includes(n));

  let encrypted: Buffer;
  const encrypt = async (payload: EncryptArgs) => {
    const c = call('pdf/encrypt', payload);
    const { files } = await encryptPdf(c);
    expect(leftovers(c)).toEqual([]);
    return readFile(files[0]!.path);
  };

  beforeAll(async () => {
    if (variant === 'wasm' || findExecutable('qpdf')) {
      encrypted = await encrypt({ set_password: OPEN_PASSWORD, set_owner_password: OWNER_PASSWORD, allow_print: false, allow_extract: false });
    }
  });

  it('splits a 10-page PDF into 10 one-page PDFs, in page order, each with its own page', async () => {
    const c = call('pdf/split-pages', {});
    const { files } = await splitPdfPages(c);
    expect(files.map((f) => f.filename)).toEqual(Array.from({ length: 10 }, (_, i) => `ten-${i + 1}.pdf`));
    for (const [i, f] of files.entries()) {
      const bytes = await readFile(f.path);
      expect((await PDFDocument.load(bytes)).getPageCount()).toBe(1);
      expect(await pdfPageText(bytes, 1)).toBe(`Page ${i + 1} of 10`);
    }
    expect(leftovers(c)).toEqual([]);
  });

  it('extracts 2-4,9 into one 4-page PDF: pages 2, 3, 4 and 9', async () => {
    const { files } = await extractPdfPages(call('pdf/extract-pages', { pages: '2-4,9' }));
    expect(files.map((f) => f.filename)).toEqual(['ten.pdf']);
    const bytes = await readFile(files[0]!.path);
    expect((await PDFDocument.load(bytes)).getPageCount()).toBe(4);
    expect(await pageTexts(bytes)).toEqual(['Page 2 of 10', 'Page 3 of 10', 'Page 4 of 10', 'Page 9 of 10']);
  });

  it('extracts pages in the order given, an open range running to the last page', async () => {
    const { files } = await extractPdfPages(call('pdf/extract-pages', { pages: ' 9 , 8- ,1' }));
    expect(await pageTexts(await readFile(files[0]!.path))).toEqual(['Page 9 of 10', 'Page 8 of 10', 'Page 9 of 10', 'Page 10 of 10', 'Page 1 of 10']);
  });

  it('refuses pages past the end, naming them and the page count', async () => {
    const err = await failure(extractPdfPages(call('pdf/extract-pages', { pages: '2,9-12,11-' })));
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.message).toBe('Pages 9-12, 11- are past the end of ten.pdf, which has 10 pages.');
  });

  it('encrypts with AES-256: PDF.js asks for the password, and opens the file with it', async () => {
    const err = await openWithPdfjs(encrypted).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.name).toBe('PasswordException');
    await expect(PDFDocument.load(encrypted)).rejects.toThrow(/encrypted/i);
    expect(await pageTexts(encrypted, OPEN_PASSWORD)).toHaveLength(10);
    expect((await pageTexts(encrypted, OPEN_PASSWORD))[6]).toBe('Page 7 of 10');
    // The owner password opens it too; a wrong one does not.
    expect(await pageTexts(encrypted, OWNER_PASSWORD)).toHaveLength(10);
    await expect(openWithPdfjs(encrypted, 'not the password')).rejects.toMatchObject({ name: 'PasswordException' });
    // AES-256 is PDF 2.0's standard security handler, revision 6.
    expect(encrypted.toString('latin1')).toMatch(/\/R 6\b/);
  });

  it('sets the permissions asked for: no printing, no copying, the rest allowed', async () => {
    const doc = await openWithPdfjs(encrypted, OPEN_PASSWORD);
    const permissions = await doc.getPermissions();
    await doc.destroy();
    expect(permissions).not.toContain(PermissionFlag.PRINT);
    expect(permissions).not.toContain(PermissionFlag.PRINT_HIGH_QUALITY);
    expect(permissions).not.toContain(PermissionFlag.COPY);
    expect(permissions).toEqual(expect.arrayContaining([PermissionFlag.MODIFY_CONTENTS, PermissionFlag.MODIFY_ANNOTATIONS, PermissionFlag.ASSEMBLE, PermissionFlag.COPY_FOR_ACCESSIBILITY]));
  });

  it('encrypts with an owner password only: opens without a password, restricted', async () => {
    const bytes = await encrypt({ set_owner_password: OWNER_PASSWORD, allow_modify: false });
    const doc = await openWithPdfjs(bytes);
    const permissions = await doc.getPermissions();
    await doc.destroy();
    expect(permissions).toEqual(expect.arrayContaining([PermissionFlag.PRINT, PermissionFlag.COPY]));
    expect(permissions).not.toContain(PermissionFlag.MODIFY_CONTENTS);
    expect(permissions).not.toContain(PermissionFlag.ASSEMBLE);
  });

  it('refuses to encrypt without any password', async () => {
    const err = await failure(encryptPdf(call('pdf/encrypt', { set_password: '', allow_print: false })));
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.message).toContain('set_password');
  });

  it('decrypts with the password: the result opens without one, every page there', async () => {
    const c = call('pdf/decrypt', { password: OPEN_PASSWORD }, encrypted);
    const { files } = await decryptPdf(c);
    const bytes = await readFile(files[0]!.path);
    expect((await PDFDocument.load(bytes)).getPageCount()).toBe(10);
    expect(await pageTexts(bytes)).toEqual(Array.from({ length: 10 }, (_, i) => `Page ${i + 1} of 10`));
    expect(leftovers(c)).toEqual([]);
  });

  it('decrypts an unencrypted PDF into the same pages', async () => {
    const { files } = await decryptPdf(call('pdf/decrypt', {}));
    expect(await pageTexts(await readFile(files[0]!.path))).toEqual(Array.from({ length: 10 }, (_, i) => `Page ${i + 1} of 10`));
  });

  it('fails clearly on a wrong or missing password, never repeating it', async () => {
    const wrong = await failure(decryptPdf(call('pdf/decrypt', { password: 'not the password' }, encrypted)));
    expect(wrong.code).toBe('INVALID_PASSWORD');
    expect(wrong.message).toBe('The password given does not open ten.pdf.');
    expect(JSON.stringify({ message: wrong.message, cause: String(wrong.cause), stderr: (wrong.cause as { stderr?: string }).stderr })).not.toContain('not the password');
    const missing = await failure(decryptPdf(call('pdf/decrypt', {}, encrypted)));
    expect(missing.code).toBe('INVALID_PASSWORD');
    expect(missing.message).toBe('ten.pdf needs its password to open: give it as password.');
  });

  it('splits and extracts an encrypted PDF only with its password, keeping it encrypted', async () => {
    const refused = await failure(splitPdfPages(call('pdf/split-pages', {}, encrypted)));
    expect(refused.code).toBe('ENCRYPTED_INPUT');
    const { files } = await extractPdfPages(call('pdf/extract-pages', { pages: '10', password: OPEN_PASSWORD }, encrypted));
    const bytes = await readFile(files[0]!.path);
    await expect(openWithPdfjs(bytes)).rejects.toMatchObject({ name: 'PasswordException' });
    expect(await pageTexts(bytes, OPEN_PASSWORD)).toEqual(['Page 10 of 10']);
  });
}

describe('qpdf pages and security, WebAssembly build', () => suite('wasm'));
optionalBuild(tool('qpdf')).describe('qpdf pages and security, system qpdf', () => suite('system'));

describe('page ranges in the order given (orderedPages)', () => {
  it('keeps the order and repeats as written, and cuts nothing', () => {
    expect(orderedPages('9,2-4,2', 10, 'a.pdf')).toEqual([
      { from: 9, to: 9 },
      { from: 2, to: 4 },
      { from: 2, to: 2 },
    ]);
    expect(orderedPages('7-', 10, 'a.pdf')).toEqual([{ from: 7, to: 10 }]);
  });

  it.each([
    ['', 'pages names no page of a.pdf: give pages such as 1-3,5,7-.'],
    ['1,x', '"x" in pages is not a page number or a range (such as 1-3,5,7-).'],
    ['0-2', '"0-2" in pages: pages are numbered from 1.'],
    ['5-3', '"5-3" in pages runs backwards: write 3-5, or list the pages in the order wanted.'],
    ['11', 'Page 11 is past the end of a.pdf, which has 10 pages.'],
  ])('refuses %j', (pages, message) => {
    expect(() => orderedPages(pages, 10, 'a.pdf')).toThrow(new EngineFailure('INVALID_INPUT', message));
  });
});
