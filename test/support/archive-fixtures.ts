/**
 * Archives made in the tests, each by a writer other than the engine under test where one exists:
 * zip by fflate, tar by tar-stream, gzip by node's zlib, RAR5 by test/support/rar5.ts, cpio (newc) and
 * ar written here; 7z, bzip2, xz and WIM, which only 7-Zip writes among the installed packages, by 7-Zip
 * in WebAssembly in this process. And the readers that check outputs: never 7-Zip.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { unzipSync, zipSync, type Zippable } from 'fflate';
import { ArchiveReader, libarchiveWasm } from 'libarchive-wasm';
import { extract as tarExtract, pack as tarPack } from 'tar-stream';

/** A small directory tree: path inside the archive → content. */
export const TREE: Record<string, string> = {
  'top.txt': 'at the top\n',
  'docs/readme.md': '# read me\n',
  'docs/deep/data.csv': 'a,b\n1,2\n',
};

export const zipOf = (files: Record<string, string | Buffer>, level: 0 | 6 | 9 = 6): Buffer =>
  Buffer.from(zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, [Buffer.from(v), { level }]])) as Zippable));

export type TarEntry = { name: string; data?: string | Buffer; type?: 'file' | 'directory' | 'symlink' | 'link'; linkname?: string };

export async function tarOf(entries: readonly TarEntry[]): Promise<Buffer> {
  const pack = tarPack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    pack.on('data', (c) => chunks.push(c as Buffer));
    pack.on('end', resolve);
    pack.on('error', reject);
  });
  for (const e of entries) {
    const type = e.type ?? 'file';
    if (type === 'file') pack.entry({ name: e.name }, Buffer.from(e.data ?? ''));
    else pack.entry({ name: e.name, type, linkname: e.linkname });
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

export const treeTar = () => tarOf(Object.entries(TREE).map(([name, data]) => ({ name, data })));
export const gzip = (b: Buffer) => gzipSync(b);

/** cpio in the "new ASCII" (newc) form: a 110-byte header of hex fields, the name, the data, 4-byte aligned. */
export function cpioOf(files: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  const pad = (n: number) => Buffer.alloc((4 - (n % 4)) % 4);
  let ino = 1;
  const entry = (name: string, data: Buffer, mode: number) => {
    const hex = (n: number) => n.toString(16).padStart(8, '0');
    const fields = [ino++, mode, 0, 0, 1, 0, data.length, 0, 0, 0, 0, name.length + 1, 0].map(hex).join('');
    const head = Buffer.from(`070701${fields}${name}\0`, 'latin1');
    parts.push(head, pad(head.length), data, pad(data.length));
  };
  for (const [name, data] of Object.entries(files)) entry(name, Buffer.from(data), 0o100644);
  entry('TRAILER!!!', Buffer.alloc(0), 0);
  return Buffer.concat(parts);
}

/** An ar archive (as a .deb is): `!<arch>`, then per member a 60-byte header and its data, 2-byte aligned. */
export function arOf(files: Record<string, string>): Buffer {
  const parts: Buffer[] = [Buffer.from('!<arch>\n')];
  for (const [name, data] of Object.entries(files)) {
    const body = Buffer.from(data);
    const head = `${`${name}/`.padEnd(16)}${'0'.padEnd(12)}${'0'.padEnd(6)}${'0'.padEnd(6)}${'100644'.padEnd(8)}${String(body.length).padEnd(10)}\`\n`;
    parts.push(Buffer.from(head, 'latin1'), body, Buffer.alloc(body.length % 2));
  }
  return Buffer.concat(parts);
}

/** 7-Zip in this process (7z-wasm), for the formats nothing else installed writes. */
export async function sevenZipWrite(type: string, files: Record<string, string | Buffer>, switches: string[] = []): Promise<Buffer> {
  const factory = (await import('7z-wasm')).default as unknown as (o: object) => Promise<{ FS: any; callMain(a: string[]): number }>;
  const z = await factory({ print: () => {}, printErr: () => {} });
  const mk = (dir: string) => {
    let at = '';
    for (const part of dir.split('/').filter(Boolean)) {
      at += `/${part}`;
      try {
        z.FS.mkdir(at);
      } catch {
        // exists
      }
    }
  };
  mk('/src');
  for (const [name, data] of Object.entries(files)) {
    mk(`/src/${name.split('/').slice(0, -1).join('/')}`);
    z.FS.writeFile(`/src/${name}`, Buffer.from(data));
  }
  z.FS.chdir('/src');
  const code = z.callMain(['a', `-t${type}`, ...switches, '/out.bin', ...(['bzip2', 'xz', 'gzip'].includes(type) ? Object.keys(files) : ['*'])]);
  if (code) throw new Error(`7-Zip exited with ${code}`);
  return Buffer.from(z.FS.readFile('/out.bin'));
}

/** The files of a zip (fflate). */
export const readZip = (b: Buffer) => Object.fromEntries(Object.entries(unzipSync(b)).filter(([k]) => !k.endsWith('/')).map(([k, v]) => [k, Buffer.from(v).toString()]));

/** The regular files of a tar (tar-stream). */
export async function readTar(b: Buffer): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const ex = tarExtract();
  const done = new Promise<void>((resolve, reject) => {
    ex.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c) => chunks.push(c as Buffer));
      stream.on('end', () => {
        if (header.type === 'file') out[header.name] = Buffer.concat(chunks).toString();
        next();
      });
    });
    ex.on('finish', resolve);
    ex.on('error', reject);
  });
  ex.end(b);
  await done;
  return out;
}

export const readTarGz = (b: Buffer) => readTar(gunzipSync(b));

/** The regular files of an archive libarchive reads (7z, tar.bz2, tar.xz, zip, rar). */
export async function readLibarchive(b: Buffer): Promise<Record<string, string>> {
  const mod = await libarchiveWasm();
  const reader = new ArchiveReader(mod, new Int8Array(b));
  const out: Record<string, string> = {};
  try {
    for (const entry of reader.entries()) {
      const name = entry.getPathname();
      if (entry.getFiletype() === 'File') out[name] = new TextDecoder().decode(entry.readData());
    }
  } finally {
    reader.free();
  }
  return out;
}
