/**
 * ExifTool in WebAssembly (lib/engines/metadata/exiftool-wasm.ts), the exiftool engine where there is no perl.
 * Tasks pin its version, so these run the WebAssembly build whether or not this machine has perl:
 * metadata written and read back, the write limit, a failure that leaves the next call working, and
 * its sandbox (an in-memory file system holding only its input: pseudo-tags that would rename or link
 * files do nothing on the host, no other file can be read, no environment reaches it).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '#lib/kernel/config.js';
import { BUNDLED_VERSIONS } from '#lib/engines/core/catalog.js';
import { confinement } from '#lib/engines/core/confine.js';
import { writeMetadata } from '#lib/engines/metadata/exiftool.js';
import { runExiftoolWasm, stopExiftoolWasm } from '#lib/engines/metadata/exiftool-wasm.js';
import { exiftoolWasm } from '#lib/engines/core/shipped.js';
import { ToolError } from '#lib/engines/core/tool.js';
import { createLogger } from '#lib/kernel/log.js';
import type { EngineCall } from '#lib/engines/core/call.js';
import type { MetadataWriteArgs } from '#lib/engines/metadata/metadata-tags.js';
import { EngineFailure } from '#lib/engines/core/errors.js';
import { jpeg, textPdf } from '../fixtures/engine-fixtures.js';
import { TEST_CONFIG_ENV } from '../support/recording-queue.js';
import { base64, startEngineHarness, type Harness } from './engines-harness.js';

const WASM = { engine: 'exiftool', engine_version: BUNDLED_VERSIONS.exiftoolWasm };

let h: Harness;
let small: Harness;
let photo: Buffer;

beforeAll(async () => {
  // The second harness writes into files of up to 2000 bytes only.
  [h, small] = await Promise.all([startEngineHarness(), startEngineHarness({ EXIFTOOL_WASM_MAX_WRITE_BYTES: '2000' })]);
  photo = await jpeg(320, 200, { noise: 20 });
});
afterAll(async () => {
  await Promise.all([h?.close(), small?.close(), stopExiftoolWasm()]);
});

describe('ExifTool in WebAssembly', () => {
  it('is installed with npm ci', () => {
    expect(exiftoolWasm()).toMatchObject({ version: '1.0.9', file: expect.stringMatching(/dist\/esm\/index\.js$/) });
  });

  it('writes EXIF and XMP into a JPEG and reads them back, the image itself untouched', async () => {
    const t = await h.run({
      photo: base64(photo, 'photo.jpg'),
      tagged: { operation: 'metadata/write', ...WASM, input: 'photo', metadata: { Artist: 'Ada Lovelace', Copyright: '(c) 1843', 'XMP-dc:Title': 'Engines', Keywords: 'analytical, engine' } },
      read: { operation: 'metadata', ...WASM, input: 'tagged' },
    });
    expect(t.tagged).toMatchObject({ status: 'finished', engine: 'exiftool', engineVersion: BUNDLED_VERSIONS.exiftoolWasm });
    expect(t.read).toMatchObject({ status: 'finished', engine: 'exiftool', engineVersion: BUNDLED_VERSIONS.exiftoolWasm });
    expect(t.read!.result!.metadata).toMatchObject({
      Artist: 'Ada Lovelace',
      Copyright: '(c) 1843',
      Title: 'Engines',
      // Keywords is the MWG list tag: one item, as written.
      Keywords: ['analytical, engine'],
      ImageWidth: 320,
      ImageHeight: 200,
      FileType: 'JPEG',
      FileName: 'photo.jpg',
    });
    expect(t.read!.result!.metadata).not.toHaveProperty('SourceFile');
    expect(t.read!.result!.metadata).not.toHaveProperty('ExifToolVersion');
    expect(t.read!.result!.metadata).not.toHaveProperty('Directory');
    // The same pixels: the metadata went in beside the image data, which was not encoded again.
    const written = await h.file(t.tagged!);
    const [before, after] = await Promise.all([sharp(photo).raw().toBuffer(), sharp(written).raw().toBuffer()]);
    expect(after.equals(before)).toBe(true);
    expect(written.length).toBeGreaterThan(photo.length);
  });

  it('writes the Info of a PDF, read back by pdf-lib and by the metadata task', async () => {
    const t = await h.run({
      doc: base64(await textPdf(3), 'report.pdf'),
      tagged: { operation: 'metadata/write', ...WASM, input: 'doc', metadata: { Title: 'Quarterly report', 'PDF:Author': 'Grace Hopper', Subject: 'Compilers' } },
      read: { operation: 'metadata', ...WASM, input: 'tagged' },
    });
    expect(t.tagged, t.tagged!.message ?? '').toMatchObject({ status: 'finished', engine: 'exiftool', engineVersion: BUNDLED_VERSIONS.exiftoolWasm });
    const doc = await PDFDocument.load(await h.file(t.tagged!), { updateMetadata: false });
    expect(doc.getTitle()).toBe('Quarterly report');
    expect(doc.getAuthor()).toBe('Grace Hopper');
    expect(doc.getSubject()).toBe('Compilers');
    expect(doc.getPageCount()).toBe(3);
    expect(t.read!.result!.metadata).toMatchObject({ Title: 'Quarterly report', Author: 'Grace Hopper', PageCount: 3, FileType: 'PDF', FileName: 'report.pdf' });
  });

  it('refuses to write into a file past EXIFTOOL_WASM_MAX_WRITE_BYTES, naming the setting, and still reads it', async () => {
    const t = await small.run({
      photo: base64(photo, 'photo.jpg'),
      tagged: { operation: 'metadata/write', ...WASM, input: 'photo', metadata: { Artist: 'Ada' } },
      read: { operation: 'metadata', ...WASM, input: 'photo' },
    });
    expect(photo.length).toBeGreaterThan(2000);
    expect(t.tagged).toMatchObject({ status: 'error', code: 'FILE_TOO_LARGE' });
    expect(t.tagged!.message).toBe(
      `photo.jpg is ${photo.length} bytes; ExifTool in WebAssembly writes metadata into files of up to 2000 bytes (EXIFTOOL_WASM_MAX_WRITE_BYTES).`,
    );
    expect(t.read).toMatchObject({ status: 'finished' });
    expect(t.read!.result!.metadata).toMatchObject({ ImageWidth: 320, FileType: 'JPEG' });
    // A small file is written under the same limit.
    const tiny = await jpeg(8, 8);
    expect(tiny.length).toBeLessThan(1500);
    const ok = await small.run({ photo: base64(tiny, 'tiny.jpg'), tagged: { operation: 'metadata/write', ...WASM, input: 'photo', metadata: { Artist: 'Ada' } } });
    expect(ok.tagged).toMatchObject({ status: 'finished' });
  });

  it('fails a file it cannot write with ExifTool’s reason, and the next task works', async () => {
    // Not a video at all, under a video's name (no check before the engine looks at .mp4 files).
    const t = await h.run({
      bad: base64(Buffer.from('not a video, only text\n'.repeat(20)), 'broken.mp4'),
      tagged: { operation: 'metadata/write', ...WASM, input: 'bad', metadata: { Artist: 'Ada' } },
    });
    expect(t.tagged).toMatchObject({ status: 'error', code: 'CONVERSION_FAILED' });
    expect(t.tagged!.message).toMatch(/^exiftool could not write the metadata: .*broken\.mp4/);
    expect(t.tagged!.message).not.toContain(tmpdir());
    const next = await h.run({
      photo: base64(photo, 'photo.jpg'),
      tagged: { operation: 'metadata/write', ...WASM, input: 'photo', metadata: { Artist: 'Next' } },
      read: { operation: 'metadata', ...WASM, input: 'tagged' },
    });
    expect(next.read!.result!.metadata).toMatchObject({ Artist: 'Next' });
  });
});

describe('its worker', () => {
  let dir: string;
  const module = () => exiftoolWasm()!;
  const signal = () => new AbortController().signal;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'exiftool-wasm-'));
    writeFileSync(path.join(dir, 'photo.jpg'), photo);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const read = (args: string[], opts: { signal?: AbortSignal } = {}) =>
    runExiftoolWasm(module(), { args: [...args, path.join(dir, 'photo.jpg')], input: path.join(dir, 'photo.jpg'), argFile: path.join(dir, 'exiftool.args') }, {
      signal: opts.signal ?? signal(),
      workDir: dir,
      maxOutputBytes: 1 << 20,
    });

  it('survives a run that ends perl itself, and a call cancelled half-way', async () => {
    // `-if` evaluates Perl (the allowlist never lets a request say so): `exit` ends the interpreter.
    await expect(read(['-if', 'exit 7'])).rejects.toMatchObject({ name: 'ToolError', exitCode: 7 });
    expect(JSON.parse((await read(['-json', '-ImageWidth'])).stdout)).toEqual([expect.objectContaining({ ImageWidth: 320 })]);
    // Cancelled while it runs: the worker is ended, and the next call starts another.
    const cancel = new AbortController();
    const cancelled = read(['-json', '-all'], { signal: cancel.signal });
    setTimeout(() => cancel.abort(new Error('cancelled')), 20);
    await expect(cancelled).rejects.toThrow('cancelled');
    expect(JSON.parse((await read(['-json', '-ImageHeight'])).stdout)).toEqual([expect.objectContaining({ ImageHeight: 200 })]);
  });

  it('sees only its input: not a file beside it, not a host file, not the environment', async () => {
    const secret = path.join(dir, 'secret.txt');
    writeFileSync(secret, 'Secret: do not read\n');
    process.env.EXIFTOOL_WASM_CANARY = 'canary-value';
    try {
      // Another file of the same folder, and a host file, named as inputs: not found.
      const beside = await read(['-json', '-b', secret]);
      expect(beside.stderr).toContain(`File not found - ${secret}`);
      expect(beside.stdout).not.toContain('do not read');
      expect(JSON.parse(beside.stdout)).toEqual([expect.objectContaining({ ImageWidth: 320 })]);
      const host = await read(['-json', '/etc/passwd', '-ImageWidth']);
      expect(host.stderr).toContain('File not found - /etc/passwd');
      expect(host.stdout).not.toContain('root');
      // Tags copied from a host file: nothing to copy.
      const copied = await read(['-json', '-tagsFromFile', '/etc/passwd', '-Comment<FileName']);
      expect(copied.stdout).not.toContain('passwd');
      // Perl's own view (no `$` in it: ExifTool reads those as tag names): no environment, and opening host paths fails.
      const probe = await read([
        '-if',
        'print "ENV=", join(",", sort keys %ENV), "\\n"; print "PASSWD=", (open(F, "<", "/etc/passwd") ? "open" : "closed"), "\\n"; 1',
        '-ImageWidth',
      ]);
      expect(probe.stdout).toContain('ENV=\n');
      expect(probe.stdout).toContain('PASSWD=closed');
    } finally {
      delete process.env.EXIFTOOL_WASM_CANARY;
    }
  });
});

describe('pseudo-tags past the allowlist (issue 10, class 1), written by calling the engine directly', () => {
  const marker = randomUUID().slice(0, 8);
  const realTmp = tmpdir();
  const strays = () => readdirSync(realTmp).filter((n) => n.includes(`pwned-${marker}`));
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(realTmp, 'exiftool-wasm-tags-'));
  });
  afterAll(() => {
    for (const stray of strays()) rmSync(path.join(realTmp, stray), { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  /** An engine call for the WebAssembly build, as the task runner makes it, without creation's checks. */
  function call(metadata: Record<string, string>): EngineCall<MetadataWriteArgs> {
    const callDir = path.join(dir, `call-${randomUUID().slice(0, 6)}`);
    mkdirSync(path.join(callDir, 'out'), { recursive: true });
    mkdirSync(path.join(callDir, 'in'));
    const input = path.join(callDir, 'in', '0-photo.jpg');
    writeFileSync(input, photo);
    const config = parseConfig(TEST_CONFIG_ENV);
    const ac = new AbortController();
    return {
      operation: 'metadata/write',
      payload: { metadata },
      choice: {
        engine: 'exiftool',
        version: BUNDLED_VERSIONS.exiftoolWasm,
        installed: { version: BUNDLED_VERSIONS.exiftoolWasm, variant: 'wasm', executable: exiftoolWasm()!.file },
        capability: { operation: 'metadata/write', inputs: ['jpg'], outputs: 'same', options: ['metadata'] },
      },
      inputs: [{ path: input, filename: 'photo.jpg', format: 'jpg', size: photo.length, taskId: 't' }],
      extras: [],
      dir: callDir,
      tool: { cwd: callDir, workDir: callDir, confinement: confinement(config), signal: ac.signal },
      signal: ac.signal,
      config,
      log: createLogger({}, { level: 'silent' }),
      output: (filename) => path.join(callDir, 'out', filename),
      names: (ext) => [`photo.${ext}`],
    };
  }

  const TRICKS: Array<[string, string]> = [
    ['FileName', `../../pwned-${marker}-renamed.jpg`],
    ['Directory', path.join(realTmp, `pwned-${marker}-moved`)],
    ['HardLink', path.join(realTmp, `pwned-${marker}-hardlink.jpg`)],
    ['SymLink', path.join(realTmp, `pwned-${marker}-symlink.jpg`)],
    ['TestName', path.join(realTmp, `pwned-${marker}-testname.jpg`)],
  ];

  it.each(TRICKS)('%s does nothing on the host', async (tag, value) => {
    const c = call({ Artist: 'Ada', [tag]: value });
    const input = c.inputs[0]!.path;
    let outcome: string;
    try {
      const result = await writeMetadata(c);
      outcome = `wrote ${result.files.map((f) => path.basename(f.path)).join(',')}`;
    } catch (err) {
      expect(err instanceof EngineFailure || err instanceof ToolError, String(err)).toBe(true);
      outcome = 'failed';
    }
    // Whatever ExifTool made of it, the host has only the call's own files, the input where it was.
    expect(strays(), outcome).toEqual([]);
    expect(readdirSync(path.dirname(input))).toEqual(['0-photo.jpg']);
    expect(readdirSync(path.join(c.dir, 'out')).every((n) => n === 'photo.jpg')).toBe(true);
    // The argument file lived in ExifTool's own file system only.
    expect(readdirSync(c.dir).sort()).toEqual(['in', 'out']);
  });
});
