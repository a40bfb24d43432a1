/**
 * Compresses GraphiQL's assets (from `@graphql-yoga/render-graphiql`) into a folder, once per installed
 * version: brotli and gzip files that the graphiqlAssets function serves as they are
 * (lib/graphql/server/graphiql-assets.ts). Run by scripts/serverless-graphiql-assets.cjs before packaging and
 * before serverless-offline starts; a folder that is already up to date is left alone.
 *
 * Never imported by a function: the 9 MB asset module stays out of every bundle.
 */
import type * as GraphiqlModule from '@graphql-yoga/render-graphiql/graphiql';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { compressedName, ENCODINGS, GRAPHIQL_ASSET_FILES, GRAPHIQL_ASSETS_DIR, type GraphiqlAssetFile } from './graphiql-assets.js';

type AssetModule = typeof GraphiqlModule;

/** Which export of the asset module each file is. */
const CONTENT: Record<GraphiqlAssetFile, (m: AssetModule) => string | Buffer> = {
  'graphiql.js': (m) => m.js,
  'graphiql.css': (m) => m.css,
  'editor.worker.js': (m) => m.editorWorkerService,
  'json.worker.js': (m) => m.jsonWorker,
  'graphql.worker.js': (m) => m.graphqlWorker,
  // A data: URL in the module; served as the icon's bytes.
  'favicon.ico': (m) => Buffer.from(m.favicon.slice(m.favicon.indexOf(',') + 1), 'base64'),
};

/**
 * Brotli quality 9 with a 16 MB window: the 5.3 MB script becomes 1.23 MB in about 5 s (quality 11
 * saves another 0.1 MB for 40 s, quality 5 costs 0.06 MB more).
 */
const BROTLI = { [zlib.BROTLI_PARAM_QUALITY]: 9, [zlib.BROTLI_PARAM_LGWIN]: 24 };
const GZIP_LEVEL = 9;
const STAMP = 'STAMP';

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

/** The installed version of `@graphql-yoga/render-graphiql`. */
export function installedGraphiqlVersion(): string {
  const require = createRequire(import.meta.url);
  const entry = require.resolve('@graphql-yoga/render-graphiql');
  const pkg = JSON.parse(readFileSync(path.join(entry, '..', '..', 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/** The uncompressed bytes of every asset, as the installed module holds them. */
export async function graphiqlAssetContents(): Promise<Record<GraphiqlAssetFile, Buffer>> {
  const m = await import('@graphql-yoga/render-graphiql/graphiql');
  const pick = (file: GraphiqlAssetFile) => {
    const value = CONTENT[file](m);
    return typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  };
  return Object.fromEntries(GRAPHIQL_ASSET_FILES.map((file) => [file, pick(file)])) as Record<GraphiqlAssetFile, Buffer>;
}

const stampText = () => `@graphql-yoga/render-graphiql ${installedGraphiqlVersion()}; brotli ${JSON.stringify(BROTLI)}; gzip ${GZIP_LEVEL}\n`;

async function upToDate(dir: string, stamp: string): Promise<boolean> {
  try {
    if ((await readFile(path.join(dir, STAMP), 'utf8')) !== stamp) return false;
    for (const file of GRAPHIQL_ASSET_FILES) {
      for (const encoding of ENCODINGS) await stat(path.join(dir, compressedName(file, encoding)));
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes `<file>.br` and `<file>.gz` for every asset into `dir` (default: GRAPHIQL_ASSETS_DIR below the
 * working directory) unless they are there for the installed version. Safe when several processes run
 * it at once: each file is written under a name of this call's own and renamed over its final name, so
 * a reader always finds a whole file (this version's or, until replaced, the previous one), and the stamp
 * that says the folder is up to date comes last. The folder itself is never removed.
 */
export async function buildGraphiqlAssets(dir = path.resolve(GRAPHIQL_ASSETS_DIR)): Promise<{ dir: string; built: boolean; bytes: number }> {
  const stamp = stampText();
  if (await upToDate(dir, stamp)) {
    let bytes = 0;
    for (const file of GRAPHIQL_ASSET_FILES) for (const e of ENCODINGS) bytes += (await stat(path.join(dir, compressedName(file, e)))).size;
    return { dir, built: false, bytes };
  }

  const contents = await graphiqlAssetContents();
  await mkdir(dir, { recursive: true });
  const suffix = `.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  const written: string[] = [];
  let bytes = 0;
  const put = async (name: string, data: Buffer | string) => {
    const temporary = path.join(dir, name + suffix);
    written.push(temporary);
    await writeFile(temporary, data);
    await rename(temporary, path.join(dir, name));
  };
  try {
    await Promise.all(
      GRAPHIQL_ASSET_FILES.flatMap((file) => [
        brotli(contents[file], { params: { ...BROTLI, [zlib.BROTLI_PARAM_SIZE_HINT]: contents[file].length } }).then((b) => {
          bytes += b.length;
          return put(compressedName(file, 'br'), b);
        }),
        gz(contents[file], { level: GZIP_LEVEL }).then((b) => {
          bytes += b.length;
          return put(compressedName(file, 'gzip'), b);
        }),
      ]),
    );
    await put(STAMP, stamp);
  } finally {
    // Whatever was not renamed into place (after a failure).
    await Promise.all(written.map((f) => rm(f, { force: true })));
  }
  return { dir, built: true, bytes };
}
