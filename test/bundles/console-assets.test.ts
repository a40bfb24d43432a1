/**
 * The console's build and its assets function: esbuild makes one script and one style sheet named by
 * their content, compressed copies that decompress to them, a manifest the page links from; the
 * function serves only names of that form, compressed; the bundle names no address outside the service.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#lib/kernel/log.js';
import { buildConsoleAssets } from '#lib/web/console/build.js';
import { ASSET_NAME, CONSOLE_ASSETS_DIR, consoleAssetsHandler, readConsoleManifest, type ConsoleManifest } from '#lib/web/console/assets.js';
import { parse } from 'yaml';
import { httpEvent } from '../support/lambda.js';

const logger = createLogger({ function: 'test' }, { level: 'silent' });

const event = (file: string, headers: Record<string, string> = {}) =>
  httpEvent({ path: `/console/assets/${file}`, headers, pathParameters: { file } });

let work: string;
let manifest: ConsoleManifest;
beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'console-assets-'));
  manifest = await buildConsoleAssets(work);
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the console build', () => {
  it('names a script and a style sheet by their content, with compressed copies and a manifest', async () => {
    expect(ASSET_NAME.test(manifest.script) && manifest.script.endsWith('.js')).toBe(true);
    expect(ASSET_NAME.test(manifest.style) && manifest.style.endsWith('.css')).toBe(true);
    expect(await readConsoleManifest(work)).toEqual(manifest);
    for (const file of [manifest.script, manifest.style]) {
      const br = brotliDecompressSync(readFileSync(path.join(work, `${file}.br`)));
      const gz = gunzipSync(readFileSync(path.join(work, `${file}.gz`)));
      expect(br.equals(gz)).toBe(true);
      expect(br.length).toBe(manifest.sizes[file]!.raw);
    }
    // The same sources build to the same names (the URLs are cached for a year).
    const again = await buildConsoleAssets(path.join(work, 'again'));
    expect([again.script, again.style]).toEqual([manifest.script, manifest.style]);
  });

  it('makes a script that loads nothing from another address', () => {
    const script = brotliDecompressSync(readFileSync(path.join(work, `${manifest.script}.br`))).toString('utf8');
    const addresses = [...script.matchAll(/\b(?:https?|wss?):\/\/[^\s"'`)]+/g)].map((m) => m[0]);
    // What a library names in messages or as a namespace is not loaded; anything else would be.
    // (socket.io-client names its documentation in error messages; example.com, reserved by RFC 2606,
    // is a form's placeholder).
    const allowed = [/^http:\/\/www\.w3\.org\//, /^https:\/\/socket\.io\/docs\//, /^https:\/\/example\.com\//];
    expect(addresses.filter((a) => !allowed.some((p) => p.test(a)))).toEqual([]);
    expect(script).not.toMatch(/\beval\(|new Function\(/);
  });
});

describe('the console’s size as the README and docs/using/console.md give it', () => {
  it('is within a fifth of the built script and style sheet, brotli', () => {
    const built = Object.values(manifest.sizes).reduce((sum, s) => sum + s.br, 0) / 1024;
    for (const page of ['README.md', 'docs/using/console.md']) {
      const stated = /console is about (\d+) KB/.exec(readFileSync(page, 'utf8'));
      expect(stated, `${page} states the console's size`).not.toBeNull();
      expect(Math.abs(Number(stated![1]) - built) / built, `${page} says ${stated![1]} KB; the build is ${built.toFixed(1)} KB brotli`).toBeLessThan(0.2);
    }
  });
});

describe('the console assets function', () => {
  const handler = consoleAssetsHandler({ dir: '', logger });

  it('serves the built files compressed, cached for a year', async () => {
    const serve = consoleAssetsHandler({ dir: work, logger });
    const js = await serve(event(manifest.script, { 'accept-encoding': 'gzip, br' }));
    expect(js.statusCode).toBe(200);
    expect(js.headers?.['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers?.['content-encoding']).toBe('br');
    expect(js.headers?.['cache-control']).toContain('immutable');
    expect(brotliDecompressSync(Buffer.from(js.body as string, 'base64')).length).toBe(manifest.sizes[manifest.script]!.raw);
    const css = await serve(event(manifest.style, { 'accept-encoding': 'gzip' }));
    expect(css.headers?.['content-type']).toBe('text/css; charset=utf-8');
    expect((await serve(event(manifest.style))).statusCode).toBe(406);
  });

  it('reads nothing but names of the built form', async () => {
    for (const name of ['manifest.json', '../package.json', 'console-AAAA1111.js.br', '%2e%2e%2fx']) {
      expect((await handler(event(name, { 'accept-encoding': 'br' }))).statusCode).toBe(404);
    }
  });

  it('is packed with the built folder, and the page function with the manifest', () => {
    const yml = parse(readFileSync('serverless.yml', 'utf8')) as { functions: Record<string, { handler: string; package?: { patterns?: string[] } }> };
    const patternsOf = (handler: string) => Object.values(yml.functions).find((f) => f.handler === handler)?.package?.patterns;
    expect(patternsOf('functions/console/assets.handler')).toEqual([`${CONSOLE_ASSETS_DIR}/**`]);
    expect(patternsOf('functions/console/page.handler')).toEqual([`${CONSOLE_ASSETS_DIR}/manifest.json`]);
  });
});
