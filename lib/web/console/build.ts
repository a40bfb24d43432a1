/**
 * Builds the console (console/src, Preact) into CONSOLE_ASSETS_DIR: esbuild bundles and minifies the
 * script and its style sheet, names each by its content hash, and writes brotli and gzip copies and a
 * manifest. Run by scripts/serverless-console-assets.cjs before packaging and before serverless-offline
 * starts (a build takes well under a second). Every file is written to a temporary name and renamed,
 * so builds running at once (tests start several platforms) never leave a half-written file.
 *
 * Never imported by a function.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { build } from 'esbuild';
import { compressedName } from '../precompressed.js';
import { CONSOLE_ASSETS_DIR, CONSOLE_MANIFEST, type ConsoleManifest } from './assets.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const CONSOLE_ENTRY = path.join(ROOT, 'console/src/main.tsx');

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

async function put(dir: string, name: string, bytes: Buffer | string): Promise<void> {
  const temp = path.join(dir, `.${name}.${randomBytes(6).toString('hex')}`);
  await writeFile(temp, bytes);
  await rename(temp, path.join(dir, name));
}

/** Bundles the console into `dir` (default CONSOLE_ASSETS_DIR under the project); returns its manifest. */
export async function buildConsoleAssets(dir = path.join(ROOT, CONSOLE_ASSETS_DIR)): Promise<ConsoleManifest> {
  const result = await build({
    entryPoints: { console: CONSOLE_ENTRY },
    bundle: true,
    write: false,
    minify: true,
    format: 'esm',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    // Named below by a hash of the bytes themselves: esbuild's [hash] also covers the inputs' paths,
    // so a checkout whose node_modules lies elsewhere would name the same bytes differently.
    entryNames: '[name]',
    outdir: dir,
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  await mkdir(dir, { recursive: true });
  const manifest: ConsoleManifest = { script: '', style: '', sizes: {} };
  for (const file of result.outputFiles) {
    const bytes = Buffer.from(file.contents);
    const ext = path.extname(file.path);
    const name = `console-${createHash('sha256').update(bytes).digest('hex').slice(0, 12).toUpperCase()}${ext}`;
    const [br, gzipped] = await Promise.all([
      brotli(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }),
      gz(bytes, { level: 9 }),
    ]);
    await Promise.all([put(dir, compressedName(name, 'br'), br), put(dir, compressedName(name, 'gzip'), gzipped)]);
    manifest.sizes[name] = { raw: bytes.length, br: br.length, gzip: gzipped.length };
    if (name.endsWith('.js')) manifest.script = name;
    else if (name.endsWith('.css')) manifest.style = name;
  }
  if (!manifest.script || !manifest.style) throw new Error(`the console build made ${Object.keys(manifest.sizes).join(', ')}: a script and a style sheet were expected`);
  await put(dir, CONSOLE_MANIFEST, JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}
