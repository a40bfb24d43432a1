/**
 * The packaging plugin's rewrite of a function's zip (scripts/serverless-lambda-package.cjs): the files
 * of its packages that Node never loads are left out, everything else is kept byte for byte with
 * Lambda's file modes, and the zip still reads as one. Zips are real archives made with archiver (its
 * entries carry data descriptors, as serverless-esbuild's do).
 */
import { ZipArchive } from 'archiver';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractZip, unzippedSize } from '../../scripts/ci/zip.js';

const LambdaPackage = createRequire(import.meta.url)('../../scripts/serverless-lambda-package.cjs') as (new (sls: unknown) => { repackArtifacts(): void }) & {
  repack(file: string, drop?: RegExp, pack?: RegExp): { changed: number; dropped: number; droppedBytes: number; packed: number; packedSaved: number };
  NEVER_LOADED: RegExp;
  PACKED: RegExp;
  removeZipStaging(pid?: number, dir?: string): string[];
};
const { repack, NEVER_LOADED, PACKED, removeZipStaging } = LambdaPackage;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'lambda-package-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

async function writeZip(file: string, entries: Array<{ name: string; data: string | Buffer; mode?: number }>) {
  const archive = new ZipArchive({ zlib: { level: 1 } });
  const done = pipeline(archive, createWriteStream(file));
  for (const e of entries) archive.append(e.data, { name: e.name, mode: e.mode ?? 0o644 });
  await archive.finalize();
  await done;
}

const loaded = [
  { name: 'functions/engines/media.cjs', data: 'module.exports = 1;\n'.repeat(50) },
  // The function's own map: its logger reads it.
  { name: 'functions/engines/media.cjs.map', data: '{"version":3}' },
  { name: 'node_modules/sharp/dist/index.cjs', data: 'require("./x");\n'.repeat(40) },
  { name: 'node_modules/sharp/package.json', data: '{"name":"sharp"}' },
  { name: 'node_modules/sharp/LICENSE', data: 'Apache-2.0' },
  { name: 'node_modules/@ffprobe-installer/linux-x64/ffprobe', data: 'ELF'.repeat(300), mode: 0o744 },
];
const neverLoaded = [
  { name: 'node_modules/sharp/lib/index.d.ts', data: 'export {};\n'.repeat(100) },
  { name: 'node_modules/sharp/dist/index.d.cts', data: 'export {};' },
  { name: 'node_modules/luxon/build/cjs-browser/luxon.js.map', data: '{"version":3}'.repeat(20) },
  { name: 'node_modules/semver/README.md', data: '# semver' },
  { name: 'node_modules/sharp/src/pipeline.cc', data: 'int main() {}' },
  { name: 'node_modules/sharp/src/common.h', data: '#pragma once' },
];

describe('repack', () => {
  it('leaves out what Node never loads below node_modules/ and keeps the rest byte for byte', async () => {
    const file = path.join(dir, 'fn.zip');
    await writeZip(file, [neverLoaded[0]!, ...loaded.slice(0, 3), ...neverLoaded.slice(1), ...loaded.slice(3)]);
    const result = repack(file);
    expect(result.dropped).toBe(neverLoaded.length);
    expect(result.droppedBytes).toBe(neverLoaded.reduce((n, e) => n + Buffer.byteLength(e.data), 0));

    const zip = await unzippedSize(file);
    expect(zip.entries.map((e) => e.name).sort()).toEqual(loaded.map((e) => e.name).sort());
    for (const e of loaded) expect(zip.read(zip.entries.find((x) => x.name === e.name)!).toString()).toBe(e.data);
    // Executable by anyone (Lambda's user owns none of it), as the modes' rewrite did before.
    expect(zip.entries.find((e) => e.name.endsWith('/ffprobe'))!.mode! & 0o777).toBe(0o755);
    expect(zip.entries.find((e) => e.name.endsWith('LICENSE'))!.mode! & 0o777).toBe(0o644);
    // Every local record where the central directory says (extraction checks each CRC).
    const out = path.join(dir, 'out');
    expect((await extractZip(file, out)).files).toBe(loaded.length);
  });

  it('leaves a zip with nothing to change as it is', async () => {
    const file = path.join(dir, 'clean.zip');
    await writeZip(file, loaded.slice(0, 3));
    expect(repack(file)).toEqual({ changed: 0, dropped: 0, droppedBytes: 0, packed: 0, packedSaved: 0 });
    expect((await unzippedSize(file)).entries).toHaveLength(3);
  });

  it('names only files below node_modules/ that no require or import resolves to', () => {
    for (const e of neverLoaded) expect(NEVER_LOADED.test(e.name), e.name).toBe(true);
    for (const e of loaded) expect(NEVER_LOADED.test(e.name), e.name).toBe(false);
    for (const name of ['node_modules/x/index.js', 'node_modules/x/index.mjs', 'node_modules/x/data.json', 'node_modules/x/lib.wasm', 'node_modules/x/bin/tool.pl']) {
      expect(NEVER_LOADED.test(name), name).toBe(false);
    }
  });
});

describe('packing the static ffprobe', () => {
  const ffprobe = 'node_modules/@ffprobe-installer/linux-x64/ffprobe';
  // A binary's mix: code that compresses, and bytes that do not.
  const binary = Buffer.concat([Buffer.from('\x7fELF'), randomBytes(50_000), Buffer.from('mov eax, 1; ret\n'.repeat(20_000))]);

  it('replaces the binary by its brotli form and the digest of what npm installed', async () => {
    const file = path.join(dir, 'packed.zip');
    const others = loaded.filter((e) => e.name !== ffprobe);
    await writeZip(file, [...others.slice(0, 2), { name: ffprobe, data: binary, mode: 0o744 }, ...others.slice(2)]);
    const before = await unzippedSize(file);
    const result = repack(file, NEVER_LOADED, PACKED);
    expect(result.packed).toBe(1);

    const zip = await unzippedSize(file);
    expect(zip.entries.map((e) => e.name).sort()).toEqual([...others.map((e) => e.name), `${ffprobe}.br`, `${ffprobe}.sha256`].sort());
    const entry = (name: string) => zip.read(zip.entries.find((e) => e.name === name)!);
    expect(brotliDecompressSync(entry(`${ffprobe}.br`)).equals(binary)).toBe(true);
    expect(entry(`${ffprobe}.sha256`).toString()).toBe(`${createHash('sha256').update(binary).digest('hex')}  ffprobe\n`);
    for (const e of others) expect(entry(e.name).toString()).toBe(e.data);
    // Data, not programs: nothing runs them from the zip.
    for (const name of [`${ffprobe}.br`, `${ffprobe}.sha256`]) expect(zip.entries.find((e) => e.name === name)!.mode! & 0o777).toBe(0o644);
    expect(before.unzipped - zip.unzipped).toBe(result.packedSaved);
    expect(result.packedSaved).toBeGreaterThan(binary.length / 2);
    expect((await extractZip(file, path.join(dir, 'packed-out'))).files).toBe(others.length + 2);
  });

  it('names the static ffprobe alone', () => {
    expect(PACKED.test(ffprobe)).toBe(true);
    for (const name of ['node_modules/@ffmpeg-installer/linux-x64/ffmpeg', `${ffprobe}.br`, 'node_modules/@ffprobe-installer/linux-x64/package.json']) expect(PACKED.test(name), name).toBe(false);
  });
});

describe('the packaging plugin', () => {
  /** A service with a media family: its process function, its engine function and an HTTP function, each with its zip. */
  async function packaged(isolation: string) {
    const names = ['processMedia', 'engineMedia', 'jobsCreate'];
    for (const name of names) await writeZip(path.join(dir, `${isolation}-${name}.zip`), [...loaded, ...neverLoaded]);
    const functions = Object.fromEntries(names.map((name) => [name, { package: { artifact: path.join(dir, `${isolation}-${name}.zip`) } }]));
    const service = {
      custom: { engineFunctions: { processMedia: 'media' }, engineIsolation: isolation },
      package: {},
      getAllFunctions: () => names,
      getFunction: (name: string) => functions[name],
    };
    const env = { ...process.env };
    new LambdaPackage({ service }).repackArtifacts();
    // The plugin sets npm's platform for serverless-esbuild's install; not this test's process.
    process.env = env;
    const kept = async (name: string) => (await unzippedSize(path.join(dir, `${isolation}-${name}.zip`))).entries.map((e) => e.name).sort();
    return { kept };
  }

  it('packs no engine into a process function that invokes its engine function', async () => {
    const { kept } = await packaged('function');
    expect(await kept('processMedia')).toEqual(['functions/engines/media.cjs', 'functions/engines/media.cjs.map']);
    const everything = loaded.flatMap((e) => (PACKED.test(e.name) ? [`${e.name}.br`, `${e.name}.sha256`] : [e.name])).sort();
    expect(await kept('engineMedia')).toEqual(everything);
    expect(await kept('jobsCreate')).toEqual(everything);
  });

  it('keeps the engines of a process function that runs them (ENGINE_ISOLATION=inline)', async () => {
    const { kept } = await packaged('inline');
    expect(await kept('processMedia')).toEqual(loaded.flatMap((e) => (PACKED.test(e.name) ? [`${e.name}.br`, `${e.name}.sha256`] : [e.name])).sort());
  });
});

describe("the bundler's zip staging folders", () => {
  it("are removed, the full ones too, and only this process's", async () => {
    const temp = path.join(dir, 'temp');
    const mine = [`processPdf-${process.pid}-1795822349958-86e3bb99`, `engine.pdf_x-${process.pid}-1795822351238-985a1f80`];
    const others = [`processPdf-${process.pid + 1}-1795822349958-86e3bb99`, `processPdf-${process.pid}-notes`, `lambda-package-${process.pid}`];
    for (const name of [...mine, ...others]) {
      await mkdir(path.join(temp, name, 'node_modules', 'sharp'), { recursive: true });
      await writeFile(path.join(temp, name, 'node_modules', 'sharp', 'index.js'), 'module.exports = 1;');
    }
    expect(removeZipStaging(process.pid, temp).sort()).toEqual([...mine].sort());
    expect((await readdir(temp)).sort()).toEqual([...others].sort());
  });
});
