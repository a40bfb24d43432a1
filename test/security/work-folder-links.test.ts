/**
 * A compromised tool has its task's work folder read-write, and can leave links there: named as its
 * output (the service would store a host file as the result), as the next input (the service would
 * write the user's bytes over a host file), or in place of a folder. lib/engines/core/work-files.ts is
 * what the service does about it; here each trick is played, by a real confined process where one can
 * be started, by a stand-in for qpdf inside a real task otherwise, against a "host" file outside the
 * work folder that must stay unread and unchanged.
 */
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { confinement } from '#lib/engines/core/confine.js';
import { EngineFailure } from '#lib/engines/core/errors.js';
import { runTool } from '#lib/engines/core/tool.js';
import type * as QpdfModule from '#lib/engines/pdf/qpdf.js';
import { createExclusive, openOutput, ownFolder, removeSpecialFiles } from '#lib/engines/core/work-files.js';
import { textPdf } from '../fixtures/engine-fixtures.js';
import { base64, startEngineHarness, type Harness } from '../integration/engines-harness.js';

/** What the stand-in for qpdf does instead of rotating: set by each test. */
const trick = vi.hoisted(() => ({ play: undefined as undefined | ((input: string, output: string) => void) }));
vi.mock('#lib/engines/pdf/qpdf.js', async (importOriginal) => {
  const original = await importOriginal<typeof QpdfModule>();
  return {
    ...original,
    runQpdf: async (...args: Parameters<typeof original.runQpdf>) => {
      const [, , input, output] = args;
      if (!trick.play) return original.runQpdf(...args);
      trick.play(input, output);
      return { stdout: '', stderr: '', exitCode: 0 };
    },
  };
});

const SECRET = 'host secret: AWS_SECRET_ACCESS_KEY=not-for-the-task\n';
let outside: string;
let secret: string;
beforeAll(() => {
  outside = mkdtempSync(path.join(tmpdir(), 'work-links-host-'));
  secret = path.join(outside, 'secret.txt');
  writeFileSync(secret, SECRET);
});
afterAll(() => rmSync(outside, { recursive: true, force: true }));

const expectUntouched = () => expect(readFileSync(secret, 'utf8')).toBe(SECRET);
const changedFolder = (err: unknown) => err instanceof EngineFailure && err.code === 'CONVERSION_FAILED' && /changed its work folder/.test(err.message);

describe('the service in a folder a tool had', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'work-links-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('reads an output only when it is a regular file of the folder', async () => {
    const out = path.join(root, 'out');
    mkdirSync(out);
    writeFileSync(path.join(out, 'good.pdf'), '%PDF-1.7 good');
    symlinkSync(secret, path.join(out, 'link.pdf'));
    mkdirSync(path.join(out, 'folder.pdf'));
    symlinkSync(outside, path.join(root, 'elsewhere'));

    const good = await openOutput(path.join(out, 'good.pdf'), root);
    expect(good.size).toBe(13);
    expect((await good.handle.readFile()).toString()).toBe('%PDF-1.7 good');
    await good.handle.close();
    await expect(openOutput(path.join(out, 'link.pdf'), root, 'result.pdf')).rejects.toSatisfy(changedFolder);
    await expect(openOutput(path.join(out, 'link.pdf'), root, 'result.pdf')).rejects.toThrow('The output result.pdf is a link, not a file');
    await expect(openOutput(path.join(out, 'folder.pdf'), root)).rejects.toThrow('is not a regular file');
    // A link in place of a folder on the way: the file opened is outside, and refused after the open.
    await expect(openOutput(path.join(root, 'elsewhere', 'secret.txt'), root, 'result.pdf')).rejects.toThrow('The output result.pdf is outside its work folder');
  });

  it('creates its own files only where nothing is, and folders only where none or a real one is', async () => {
    const planted = path.join(root, 'planted.pdf');
    symlinkSync(secret, planted);
    await expect(createExclusive(planted)).rejects.toSatisfy(changedFolder);
    expectUntouched();
    const fresh = await createExclusive(path.join(root, 'fresh.pdf'));
    await new Promise<void>((resolve, reject) => fresh.end('written', (err?: Error | null) => (err ? reject(err) : resolve())));
    expect(readFileSync(path.join(root, 'fresh.pdf'), 'utf8')).toBe('written');

    symlinkSync(outside, path.join(root, 'in'));
    await expect(ownFolder(path.join(root, 'in'))).rejects.toThrow('The folder in is not a folder');
    // A folder on the way swapped for a link (what a running office worker could do): nothing is left outside.
    await expect(createExclusive(path.join(root, 'in', 'next.docx'), root)).rejects.toThrow('next.docx would have been written outside its work folder');
    expect(existsSync(path.join(outside, 'next.docx'))).toBe(false);
    await (await createExclusive(path.join(root, 'call-in-root.txt'), root)).close();
    await ownFolder(path.join(root, 'call-1'));
    await ownFolder(path.join(root, 'call-1'));
    expect(lstatSync(path.join(root, 'call-1')).isDirectory()).toBe(true);
  });

  it('removes links below a folder, never following one, and leaves files and folders', async () => {
    const dir = mkdtempSync(path.join(root, 'sweep-'));
    mkdirSync(path.join(dir, 'a', 'b'), { recursive: true });
    writeFileSync(path.join(dir, 'a', 'b', 'kept.txt'), 'kept');
    symlinkSync(secret, path.join(dir, 'a', 'b', 'file-link'));
    symlinkSync(outside, path.join(dir, 'dir-link'));
    expect(await removeSpecialFiles(dir)).toBe(2);
    expect(existsSync(path.join(dir, 'a', 'b', 'kept.txt'))).toBe(true);
    expect(existsSync(path.join(dir, 'dir-link')) || existsSync(path.join(dir, 'a', 'b', 'file-link'))).toBe(false);
    expect(existsSync(secret)).toBe(true);
    // Never the shared temporary folder itself.
    expect(await removeSpecialFiles(tmpdir())).toBe(0);
  });

  it('leaves nothing a tool linked after it ends (a real process, confined as configured)', async () => {
    const dir = mkdtempSync(path.join(root, 'tool-'));
    mkdirSync(path.join(dir, 'out'));
    const plant = `const fs = require('fs'); fs.symlinkSync(${JSON.stringify(secret)}, 'out/result.pdf'); fs.symlinkSync('/', 'in'); fs.writeFileSync('out/kept.txt', 'kept');`;
    const config = parseEngineConfig(process.env);
    const ac = new AbortController();
    await runTool(process.execPath, ['-e', plant], { cwd: dir, workDir: dir, confinement: confinement(config), signal: ac.signal, readOnly: [path.dirname(process.execPath)] });
    expect(existsSync(path.join(dir, 'out', 'kept.txt'))).toBe(true);
    expect(() => lstatSync(path.join(dir, 'out', 'result.pdf'))).toThrow(/ENOENT/);
    expect(() => lstatSync(path.join(dir, 'in'))).toThrow(/ENOENT/);
  });
});

describe('a task whose tool plants links (qpdf stood in for, pdf/rotate-pages)', () => {
  let h: Harness;
  let pdf: Buffer;
  beforeAll(async () => {
    h = await startEngineHarness();
    pdf = await textPdf(2);
  });
  afterAll(async () => {
    trick.play = undefined;
    await h?.close();
  });

  it('does not store a host file linked as its output', async () => {
    trick.play = (_input, output) => symlinkSync(secret, output);
    const t = await h.run({ in: base64(pdf, 'a.pdf'), rot: { operation: 'pdf/rotate-pages', input: 'in', rotation: 90 } });
    expect([t.rot!.status, t.rot!.code]).toEqual(['error', 'CONVERSION_FAILED']);
    expect(t.rot!.message).toMatch(/^The output a\.pdf is a link, not a file; an engine changed its work folder/);
    expect(t.rot!.result?.files ?? []).toEqual([]);
  });

  it('does not write the next input over a host file linked in its place', async () => {
    trick.play = (input, output) => {
      copyFileSync(input, output);
      // The second file's name in the inputs folder (index 1), linked to the host file.
      symlinkSync(secret, path.join(path.dirname(input), '1-b.pdf'));
    };
    const t = await h.run({ a: base64(pdf, 'a.pdf'), b: base64(pdf, 'b.pdf'), rot: { operation: 'pdf/rotate-pages', input: ['a', 'b'], rotation: 90 } });
    expect([t.rot!.status, t.rot!.code]).toEqual(['error', 'CONVERSION_FAILED']);
    expect(t.rot!.message).toMatch(/^1-b\.pdf was there before it was written; an engine changed its work folder/);
    expectUntouched();
  });
});
