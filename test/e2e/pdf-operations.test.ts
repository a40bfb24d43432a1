/**
 * The pdf/… operations through the official `cloudconvert` SDK against the whole platform: a 10-page
 * PDF (page N reads "Page N of 10") split, some of its pages extracted, encrypted and decrypted, made a
 * PDF/A-2b; argument problems answered with 422 naming the field; passwords never shown. qpdf and
 * Ghostscript ship as WebAssembly builds too, so these run on every machine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodePDFRawStream, PDFDocument, PDFName, PDFRawStream, PDFStream } from 'pdf-lib';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { HIDDEN } from '#lib/kernel/redact.js';
import { textPdf } from '../fixtures/engine-fixtures.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { pdfPageText, pdfText } from '../support/pdf-text.js';
import { e2eOutput } from '../support/platform-output.js';

const require = createRequire(import.meta.url);
const pdfjsRoot = path.dirname(require.resolve('pdfjs-dist/package.json'));

const dataDir = mkdtempSync(path.join(tmpdir(), 'pdf-ops-e2e-'));
let platform: Emulator;
let cc: ReturnType<typeof cloudConvertClient>;
let ten: string;
const OPEN_PASSWORD = 'open sesame 42';

beforeAll(async () => {
  ten = (await textPdf(10)).toString('base64');
  platform = await startEmulator({ dataDir, output: e2eOutput, env: { LOG_LEVEL: 'warn' } });
  cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
});

afterAll(async () => {
  await platform?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const download = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());

/** Runs `tasks` after an import of the 10-page PDF (task `ten`), exporting `exported`; the finished job and the exported files' bytes. */
async function run(tasks: Record<string, unknown>, exported: string) {
  const created = await cc.jobs.create({
    tasks: { ten: { operation: 'import/base64', file: ten, filename: 'ten.pdf' }, ...tasks, out: { operation: 'export/url', input: exported } },
  } as never);
  const job = await cc.jobs.wait(created.id);
  const failed = job.tasks.filter((t) => t.status !== 'finished').map((t) => `${t.name}: ${t.code} ${t.message}`);
  expect(failed).toEqual([]);
  const files = cc.jobs.getExportUrls(job);
  return { job, files: await Promise.all(files.map(async (f) => ({ filename: f.filename!, bytes: await download(f.url!) }))) };
}

const createJob = (tasks: Record<string, unknown>) =>
  fetch(`${platform.baseUrl}/v2/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${platform.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tasks: { ten: { operation: 'import/base64', file: ten, filename: 'ten.pdf' }, ...tasks } }),
  });

const openWithPdfjs = (bytes: Uint8Array, password?: string) =>
  getDocument({
    data: new Uint8Array(bytes),
    password,
    standardFontDataUrl: path.join(pdfjsRoot, 'standard_fonts') + path.sep,
    disableFontFace: true,
    isEvalSupported: false,
    verbosity: 0,
  }).promise;

const pageTexts = async (bytes: Uint8Array) => {
  const count = (await PDFDocument.load(bytes)).getPageCount();
  const texts: string[] = [];
  for (let n = 1; n <= count; n++) texts.push(await pdfPageText(bytes, n));
  return texts;
};

describe('pdf pages and passwords (qpdf) through the SDK', () => {
  it('pdf/split-pages: ten one-page PDFs, page N in the Nth', async () => {
    const { job, files } = await run({ split: { operation: 'pdf/split-pages', input: 'ten' } }, 'split');
    expect(job.tasks.find((t) => t.name === 'split')).toMatchObject({ engine: 'qpdf', credits: 1 });
    expect(files).toHaveLength(10);
    for (const [i, file] of files.entries()) {
      expect(file.filename).toMatch(/\.pdf$/);
      expect(await pageTexts(file.bytes)).toEqual([`Page ${i + 1} of 10`]);
    }
  });

  it("pdf/extract-pages '2-4,9': one 4-page PDF of pages 2, 3, 4 and 9", async () => {
    const { files } = await run({ pick: { operation: 'pdf/extract-pages', input: 'ten', pages: '2-4,9' } }, 'pick');
    expect(files.map((f) => f.filename)).toEqual(['ten.pdf']);
    expect(await pageTexts(files[0]!.bytes)).toEqual(['Page 2 of 10', 'Page 3 of 10', 'Page 4 of 10', 'Page 9 of 10']);
  });

  it('pdf/encrypt: the output asks for its password; pdf/decrypt with it gives a PDF that opens without; the passwords are hidden', async () => {
    const { job, files } = await run(
      {
        lock: { operation: 'pdf/encrypt', input: 'ten', set_password: OPEN_PASSWORD, allow_print: false, filename: 'locked.pdf' },
        unlock: { operation: 'pdf/decrypt', input: 'lock', password: OPEN_PASSWORD, filename: 'unlocked.pdf' },
      },
      ['lock', 'unlock'] as never,
    );
    expect(files.map((f) => f.filename).sort()).toEqual(['locked.pdf', 'unlocked.pdf']);
    const locked = files.find((f) => f.filename === 'locked.pdf')!.bytes;
    const unlocked = files.find((f) => f.filename === 'unlocked.pdf')!.bytes;
    const refused = await openWithPdfjs(locked).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(refused?.name).toBe('PasswordException');
    await expect(openWithPdfjs(locked, 'wrong password')).rejects.toMatchObject({ name: 'PasswordException' });
    expect((await openWithPdfjs(locked, OPEN_PASSWORD)).numPages).toBe(10);
    expect((await openWithPdfjs(unlocked)).numPages).toBe(10);
    expect(await pageTexts(unlocked)).toEqual(Array.from({ length: 10 }, (_, i) => `Page ${i + 1} of 10`));

    // Neither the job's answer nor a task's (payload included) shows a password.
    const task = async (name: string) => (await cc.tasks.get(job.tasks.find((t) => t.name === name)!.id, { include: ['payload'] } as never)) as unknown as { payload: Record<string, unknown> };
    const [lock, unlock] = [await task('lock'), await task('unlock')];
    expect(lock.payload).toMatchObject({ set_password: HIDDEN, allow_print: false });
    expect(unlock.payload).toMatchObject({ password: HIDDEN });
    expect(JSON.stringify([job, await cc.jobs.get(job.id), lock, unlock])).not.toContain(OPEN_PASSWORD);
  });

  it('answers 422 naming pages for pdf/extract-pages without pages, and set_password for pdf/encrypt without a password', async () => {
    const res = await createJob({
      pick: { operation: 'pdf/extract-pages', input: 'ten' },
      lock: { operation: 'pdf/encrypt', input: 'ten' },
    });
    expect(res.status).toBe(422);
    const { errors } = (await res.json()) as { errors: Record<string, string[]> };
    expect(Object.keys(errors).sort()).toEqual(['tasks.lock.set_password', 'tasks.pick.pages']);
    expect(errors['tasks.lock.set_password']!.join(' ')).toContain('set_owner_password');
  });
});

/** The `pdfaid` declaration of a PDF's XMP (its catalog's /Metadata). */
async function pdfaId(bytes: Uint8Array) {
  const doc = await PDFDocument.load(bytes, { updateMetadata: false });
  const stream = doc.catalog.lookupMaybe(PDFName.of('Metadata'), PDFStream);
  const xmp = stream instanceof PDFRawStream ? Buffer.from(decodePDFRawStream(stream).decode()).toString('utf8') : '';
  const attribute = (name: string) => {
    for (const [open, close] of [[`pdfaid:${name}="`, '"'], [`pdfaid:${name}='`, "'"], [`<pdfaid:${name}>`, '<']] as const) {
      const at = xmp.indexOf(open);
      if (at >= 0) return xmp.slice(at + open.length, xmp.indexOf(close, at + open.length));
    }
    return undefined;
  };
  return { part: attribute('part'), conformance: attribute('conformance') };
}

describe('pdf/a (Ghostscript) through the SDK', () => {
  it('conformance_level 2b: the XMP declares PDF/A part 2, conformance B, and every page keeps its text', async () => {
    const { job, files } = await run({ archive: { operation: 'pdf/a', input: 'ten', conformance_level: '2b' } }, 'archive');
    expect(job.tasks.find((t) => t.name === 'archive')).toMatchObject({ engine: 'ghostscript', credits: 1 });
    const [file] = files;
    expect(file!.filename).toBe('ten.pdf');
    expect(await pdfaId(file!.bytes)).toEqual({ part: '2', conformance: 'B' });
    const text = await pdfText(file!.bytes);
    for (let n = 1; n <= 10; n++) expect(text).toContain(`Page ${n} of 10`);
  });

  it('refuses an unknown conformance_level with 422 naming it', async () => {
    const res = await createJob({ archive: { operation: 'pdf/a', input: 'ten', conformance_level: '4u' } });
    expect(res.status).toBe(422);
    expect(Object.keys(((await res.json()) as { errors: Record<string, string[]> }).errors)).toEqual(['tasks.archive.conformance_level']);
  });
});
