/**
 * The archive engine (`archivetool`: 7-Zip in WebAssembly) through jobs: archive/extract of every
 * input format from an archive made in the test (by another writer where one exists), convert to
 * every output format checked by an independent reader (fflate, tar-stream, zlib, libarchive), and
 * the refusals: bombs (by entries, declared size, ratio, and while writing), entries named out of
 * their folder, links out of the archive, encrypted archives without or with a wrong password.
 */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import type { TaskRecord } from '#lib/file-api/records/model.js';
import {
  arOf,
  cpioOf,
  gzip,
  readLibarchive,
  readTar,
  readTarGz,
  readZip,
  sevenZipWrite,
  tarOf,
  TREE,
  treeTar,
  zipOf,
} from '../support/archive-fixtures.js';
import { rar5 } from '../support/rar5.js';
import { arjOf, cabOf, compressZ, isoOf, lzhOf, lzmaAlone, xarOf } from '../support/archive-writers.js';
import { base64, startEngineHarness, type Harness } from './engines-harness.js';

let h: Harness;
let few: Harness;
let small: Harness;

beforeAll(async () => {
  [h, few, small] = await Promise.all([
    startEngineHarness(),
    startEngineHarness({ ARCHIVE_MAX_ENTRIES: '5' }),
    startEngineHarness({ ARCHIVE_MAX_EXPANDED_BYTES: String(2 ** 20) }),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([h?.close(), few?.close(), small?.close()]);
});

/** Runs archive/extract on `bytes` named `filename`; the task. */
async function extract(bytes: Buffer, filename: string, extra: Record<string, unknown> = {}, harness = h): Promise<TaskRecord> {
  const t = await harness.run({ in: base64(bytes, filename), x: { operation: 'archive/extract', input: 'in', ...extra } });
  return t.x!;
}

/** The extracted files as `dir/filename` → content. */
async function contents(task: TaskRecord, harness = h): Promise<Record<string, string>> {
  expect(task, JSON.stringify({ code: task.code, message: task.message })).toMatchObject({ status: 'finished', engine: 'archivetool' });
  const out: Record<string, string> = {};
  for (const [i, f] of task.result!.files!.entries()) out[f.dir ? `${f.dir}/${f.filename}` : f.filename] = (await harness.file(task, i)).toString();
  return out;
}

async function convert(bytes: Buffer, filename: string, output_format: string, extra: Record<string, unknown> = {}): Promise<{ task: TaskRecord; bytes: Buffer }> {
  const t = await h.run({ in: base64(bytes, filename), c: { operation: 'convert', input: 'in', output_format, ...extra } });
  expect(t.c, JSON.stringify({ code: t.c!.code, message: t.c!.message })).toMatchObject({ status: 'finished', engine: 'archivetool' });
  return { task: t.c!, bytes: await h.file(t.c!) };
}

const failed = (task: TaskRecord, code: string) => expect({ status: task.status, code: task.code }, task.message ?? '').toEqual({ status: 'error', code });

describe('archive/extract', () => {
  const trees: Array<[string, () => Promise<Buffer>]> = [
    ['zip', async () => zipOf(TREE)],
    ['jar', async () => zipOf(TREE)],
    ['war', async () => zipOf(TREE)],
    ['apk', async () => zipOf(TREE)],
    ['7z', () => sevenZipWrite('7z', TREE)],
    ['tar', treeTar],
    ['tar.gz', async () => gzip(await treeTar())],
    ['tgz', async () => gzip(await treeTar())],
    ['tar.bz2', async () => sevenZipWrite('bzip2', { 'x.tar': await treeTar() })],
    ['tar.xz', async () => sevenZipWrite('xz', { 'x.tar': await treeTar() })],
    ['wim', () => sevenZipWrite('wim', TREE)],
    ['cab', async () => cabOf(TREE)],
    ['lzh', async () => lzhOf(TREE)],
    ['lha', async () => lzhOf(TREE)],
    ['arj', async () => arjOf(TREE)],
    // 7-Zip shows a xar's table of contents as a file, `[TOC].xml`: not an entry, left out.
    ['xar', async () => xarOf(TREE)],
    ['pkg', async () => xarOf(TREE)],
    ['iso', async () => isoOf(TREE)],
    ['tar.lzma', async () => lzmaAlone('x.tar', await treeTar())],
    ['tar.7z', async () => sevenZipWrite('7z', { 'x.tar': await treeTar() })],
    ['rar', async () => rar5([{ name: 'docs', folder: true }, { name: 'docs/deep', folder: true }, ...Object.entries(TREE).map(([name, data]) => ({ name, data: Buffer.from(data) }))])],
  ];
  for (const [format, make] of trees) {
    it(`extracts a ${format} archive, one file per entry, its folders kept as dir`, async () => {
      const task = await extract(await make(), `tree.${format}`);
      expect(await contents(task)).toEqual(TREE);
      expect(task.result!.files!.find((f) => f.filename === 'data.csv')).toMatchObject({ dir: 'docs/deep' });
    });
  }

  it('makes entry names safe: control characters and bidirectional controls removed', async () => {
    const task = await extract(zipOf({ 'bad\u0007na\u202eme.txt': 'x', 'di\u001br/ok.txt': 'y' }), 'names.zip');
    expect(await contents(task)).toEqual({ 'badname.txt': 'x', 'dir/ok.txt': 'y' });
  });

  it('extracts cpio, ar and deb archives', async () => {
    const flat = { 'one.txt': 'one\n', 'two.txt': 'two\n' };
    expect(await contents(await extract(cpioOf(flat), 'flat.cpio'))).toEqual(flat);
    expect(await contents(await extract(arOf(flat), 'flat.ar'))).toEqual(flat);
    expect(await contents(await extract(arOf({ 'debian-binary': '2.0\n' }), 'pkg.deb'))).toEqual({ 'debian-binary': '2.0\n' });
  });

  it('extracts the one file of Z (compress), lzma and bz, named after the archive', async () => {
    expect(await contents(await extract(compressZ(Buffer.from('compressed by LZW\n')), 'note.txt.Z'))).toEqual({ 'note.txt': 'compressed by LZW\n' });
    expect(await contents(await extract(await lzmaAlone('x', Buffer.from('lzma alone\n')), 'note.txt.lzma'))).toEqual({ 'note.txt': 'lzma alone\n' });
    expect(await contents(await extract(await sevenZipWrite('bzip2', { x: 'bz\n' }), 'note.txt.bz'))).toEqual({ 'note.txt': 'bz\n' });
  });

  it('extracts the one file of gz, bz2 and xz', async () => {
    expect(Object.values(await contents(await extract(gzip(Buffer.from('gzipped\n')), 'note.txt.gz')))).toEqual(['gzipped\n']);
    for (const type of ['bzip2', 'xz']) {
      const bytes = await sevenZipWrite(type, { 'note.txt': 'compressed\n' });
      expect(await contents(await extract(bytes, `note.txt.${type === 'bzip2' ? 'bz2' : 'xz'}`))).toEqual({ 'note.txt': 'compressed\n' });
    }
  });
});

describe('convert between archive formats', () => {
  it('7z → zip (read back by fflate)', async () => {
    const { task, bytes } = await convert(await sevenZipWrite('7z', TREE), 'tree.7z', 'zip');
    expect(task.result!.files![0]!.filename).toBe('tree.zip');
    expect(readZip(bytes)).toEqual(TREE);
  });

  it('zip → tar, tar.gz and tgz (tar-stream, zlib)', async () => {
    expect(await readTar((await convert(zipOf(TREE), 'tree.zip', 'tar')).bytes)).toEqual(TREE);
    expect(await readTarGz((await convert(zipOf(TREE), 'tree.zip', 'tar.gz')).bytes)).toEqual(TREE);
    const tgz = await convert(zipOf(TREE), 'tree.zip', 'tgz');
    expect(tgz.task.result!.files![0]!.filename).toBe('tree.tgz');
    expect(await readTarGz(tgz.bytes)).toEqual(TREE);
  });

  it('rar → 7z, tar.bz2 and tar.xz (libarchive)', async () => {
    const rar = rar5(Object.entries(TREE).map(([name, data]) => ({ name, data: Buffer.from(data) })));
    for (const format of ['7z', 'tar.bz2', 'tar.xz']) expect(await readLibarchive((await convert(rar, 'tree.rar', format)).bytes)).toEqual(TREE);
  });

  it('one file → gz (zlib), bz2 and xz (libarchive reads the tar they hold)', async () => {
    const tar = await treeTar();
    expect(gunzipSync((await convert(zipOf({ 'only.txt': 'just me\n' }), 'one.zip', 'gz')).bytes).toString()).toBe('just me\n');
    for (const format of ['bz2', 'xz']) {
      const { task, bytes } = await convert(zipOf({ 'inner.tar': tar }), 'one.zip', format);
      expect(task.result!.files![0]!.filename).toBe(`inner.tar.${format}`);
      expect(await readLibarchive(bytes)).toEqual(TREE);
    }
  });

  it('refuses gz for an archive of several files', async () => {
    const t = await h.run({ in: base64(zipOf(TREE), 'tree.zip'), c: { operation: 'convert', input: 'in', output_format: 'gz' } });
    failed(t.c!, 'INVALID_INPUT');
  });
});

describe('archive in the formats only 7-Zip writes', () => {
  it('packs its inputs into 7z, tar.bz2 (tbz2) and tar.xz (libarchive)', async () => {
    for (const output_format of ['7z', 'tar.bz2', 'tbz2', 'tar.xz']) {
      const t = await h.run({
        a: base64(Buffer.from('first\n'), 'a.txt'),
        b: base64(Buffer.from('second\n'), 'b.txt'),
        same: base64(Buffer.from('third\n'), 'a.txt'),
        pack: { operation: 'archive', input: ['a', 'b', 'same'], output_format },
      });
      expect(t.pack, t.pack!.message ?? '').toMatchObject({ status: 'finished', engine: 'archivetool', result: { files: [{ filename: `archive.${output_format}` }] } });
      expect(await readLibarchive(await h.file(t.pack!))).toEqual({ 'a.txt': 'first\n', 'b.txt': 'second\n', 'a-1.txt': 'third\n' });
    }
  });
});

/** A zip whose one entry claims `size` bytes once extracted (both its headers edited). */
function claimingZip(size: number): Buffer {
  const zip = zipOf({ 'huge.bin': Buffer.alloc(1000) }, 9);
  for (const [signature, at] of [[0x04034b50, 22], [0x02014b50, 24]] as const) {
    for (let i = 0; i + 4 <= zip.length; i++) if (zip.readUInt32LE(i) === signature) zip.writeUInt32LE(size, i + at);
  }
  return zip;
}

describe('refusals', () => {
  it('refuses a zip bomb by its ratio before extracting it', async () => {
    const bomb = zipOf({ 'zeros.bin': Buffer.alloc(64 * 2 ** 20) }, 9);
    const started = Date.now();
    const task = await extract(bomb, 'bomb.zip');
    failed(task, 'ARCHIVE_TOO_LARGE');
    expect(task.message).toMatch(/ARCHIVE_MAX_RATIO/);
    // Refused from its listing: the bound is generous, the point is that nothing was extracted.
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('refuses an entry claiming gigabytes', async () => {
    const task = await extract(claimingZip(0xfffffff0), 'claims.zip');
    failed(task, 'ARCHIVE_TOO_LARGE');
    expect(task.message).toMatch(/ARCHIVE_MAX_EXPANDED_BYTES/);
  });

  it('refuses more entries than ARCHIVE_MAX_ENTRIES', async () => {
    const many = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`f${i}.txt`, 'x']));
    failed(await extract(zipOf(many), 'many.zip', {}, few), 'ARCHIVE_TOO_LARGE');
  });

  it('stops an extraction past ARCHIVE_MAX_EXPANDED_BYTES when the listing declares no size (bzip2)', async () => {
    const bz2 = await sevenZipWrite('bzip2', { 'zeros.bin': Buffer.alloc(4 * 2 ** 20) });
    failed(await extract(bz2, 'zeros.bin.bz2', {}, small), 'ARCHIVE_TOO_LARGE');
  });

  it('refuses entries named out of their folder (zip-slip), writing nothing', async () => {
    for (const name of ['../../evil.txt', '/etc/evil.txt']) {
      const task = await extract(zipOf({ [name]: 'gotcha', 'fine.txt': 'ok' }), 'slip.zip');
      failed(task, 'UNSAFE_ARCHIVE');
    }
    expect(readdirSync(h.config.ENGINE_TMP_DIR, { recursive: true }).map(String).filter((f) => f.includes('evil'))).toEqual([]);
  });

  it('refuses cab, lzh and arj archives with an entry named out of their folder', async () => {
    const slip = { '../../evil.txt': 'gotcha', 'fine.txt': 'ok' };
    for (const [bytes, name] of [[cabOf(slip), 'slip.cab'], [lzhOf(slip), 'slip.lzh'], [arjOf(slip), 'slip.arj']] as const) failed(await extract(bytes, name), 'UNSAFE_ARCHIVE');
    expect(readdirSync(h.config.ENGINE_TMP_DIR, { recursive: true }).map(String).filter((f) => f.includes('evil'))).toEqual([]);
  });

  it('refuses a RAR with a symbolic link out of the archive', async () => {
    const rar = rar5([{ name: 'a.txt', data: Buffer.from('a') }, { name: 'passwd', symlink: '../../etc/passwd' }]);
    failed(await extract(rar, 'links.rar'), 'UNSAFE_ARCHIVE');
    failed(await extract(rar5([{ name: 'abs', symlink: '/etc/passwd' }]), 'abs.rar'), 'UNSAFE_ARCHIVE');
  });

  it('leaves out links inside the archive and extracts the rest', async () => {
    const tar = await tarOf([
      { name: 'docs/a.txt', data: 'a' },
      { name: 'docs/link', type: 'symlink', linkname: 'a.txt' },
    ]);
    const task = await extract(tar, 'inner.tar');
    expect(await contents(task)).toEqual({ 'docs/a.txt': 'a' });
    failed(await extract(await tarOf([{ name: 'out', type: 'symlink', linkname: '../x' }]), 'out.tar'), 'UNSAFE_ARCHIVE');
  });
});

describe('encrypted archives', () => {
  const secret = { 'secret.txt': 'the plans\n' };
  const cases: Array<[string, string, string[]]> = [
    ['zip', 'zip', []],
    ['7z', '7z', []],
    ['7z with encrypted names', '7z', ['-mhe=on']],
  ];
  for (const [label, type, switches] of cases) {
    it(`opens a ${label} with its password, and says which is wrong otherwise`, async () => {
      const bytes = await sevenZipWrite(type, secret, ['-pletmein', ...switches]);
      expect(await contents(await extract(bytes, `s.${type}`, { password: 'letmein' }))).toEqual(secret);
      failed(await extract(bytes, `s.${type}`), 'ENCRYPTED_INPUT');
      failed(await extract(bytes, `s.${type}`, { password: 'wrong' }), 'INVALID_PASSWORD');
    });
  }
});
