/**
 * The bundled Chromium (@sparticuz/chromium) is unpacked into a folder of its own version, under a
 * folder of this user: what another program left at the temp folder's `chromium` (another version of
 * @sparticuz/chromium unpacks there) changes neither which browser runs nor the version it reports.
 * The temp folder is one of this file's own (TMPDIR), never the machine's shared /tmp/chromium.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUNDLED_VERSIONS } from '#lib/engines/core/catalog.js';
import { browserVersion, capture, closeBrowser } from '#lib/engines/chrome/browser.js';
import { bundledChromium, resetBundledChromium } from '#lib/engines/chrome/unpacked.js';
import { parseConfig } from '#lib/kernel/config.js';
import { createLogger } from '#lib/kernel/log.js';
import { TEST_CONFIG_ENV } from '../support/recording-queue.js';

const realTmp = tmpdir();
const packageVersion = (JSON.parse(readFileSync(path.resolve('node_modules/@sparticuz/chromium/package.json'), 'utf8')) as { version: string }).version;
const uid = process.getuid?.() ?? 0;
const savedTmp = process.env.TMPDIR;
let tmp: string;
const ranFake = () => existsSync(path.join(tmp, 'stale-chromium-ran'));

beforeAll(() => {
  tmp = mkdtempSync(path.join(realTmp, 'chrome-unpack-'));
  process.env.TMPDIR = tmp;
  // What another @sparticuz/chromium (143) left: its browser, which notes that it ran and fails.
  writeFileSync(path.join(tmp, 'chromium'), `#!/bin/sh\ntouch '${tmp}/stale-chromium-ran'\necho 'Chromium 143.0.7499.0'\nexit 1\n`, { mode: 0o755 });
  mkdirSync(path.join(tmp, 'fonts'));
  writeFileSync(path.join(tmp, 'fonts', 'fonts.conf'), '<fontconfig><dir>/nowhere</dir></fontconfig>');
  // And a folder of this very version that a crash left half-written (no mark that it is complete).
  const half = path.join(tmp, `engine-tools-${uid}`, `sparticuz-chromium-${packageVersion}`);
  mkdirSync(half, { recursive: true, mode: 0o700 });
  writeFileSync(path.join(half, 'chromium'), `#!/bin/sh\ntouch '${tmp}/stale-chromium-ran'\nexit 1\n`, { mode: 0o755 });
});

afterAll(async () => {
  await closeBrowser();
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(tmp, { recursive: true, force: true });
});

it('unpacks into a folder named by its version, beside what another version or a crash left, and runs its own browser', { timeout: 180_000 }, async () => {
  const unpacked = await bundledChromium();
  expect(unpacked.packageVersion).toBe(packageVersion);
  expect(path.dirname(unpacked.executablePath)).toBe(path.join(tmp, `engine-tools-${uid}`, `sparticuz-chromium-${packageVersion}`));
  expect(statSync(unpacked.executablePath).size).toBeGreaterThan(50e6);
  expect(readFileSync(path.join(tmp, 'chromium'), 'utf8')).toContain('143.0.7499.0');
  // The fonts it ships are found where it unpacked them, not in the other version's folder.
  expect(readFileSync(path.join(path.dirname(unpacked.executablePath), 'fonts', 'fonts.conf'), 'utf8')).toContain(`${path.dirname(unpacked.executablePath)}/fonts`);

  const config = parseConfig({ ...TEST_CONFIG_ENV, ENGINE_TMP_DIR: tmp });
  const out = path.join(tmp, 'page.png');
  const done = await capture({
    source: { html: Buffer.from('<!doctype html><p>which browser?</p>'), filename: 'which.html' },
    offline: true,
    format: 'png',
    options: { screen_width: 200, screen_height: 100, clip: true, device_scale_factor: 1 },
    out,
    installed: { version: BUNDLED_VERSIONS.chromium, variant: 'bundled' },
    config,
    signal: new AbortController().signal,
    log: createLogger({}, { level: 'silent' }),
  });
  expect(done.version).toBe(BUNDLED_VERSIONS.chromium);
  expect(await browserVersion()).toBe(BUNDLED_VERSIONS.chromium);
  expect(ranFake()).toBe(false);
  expect(readFileSync(out).subarray(1, 4).toString('latin1')).toBe('PNG');
});

it('is unpacked once: a later process (here: the memo forgotten) finds the complete folder and unpacks nothing', async () => {
  const first = await bundledChromium();
  const written = statSync(first.executablePath).mtimeMs;
  resetBundledChromium();
  const again = await bundledChromium();
  expect(again.executablePath).toBe(first.executablePath);
  expect(statSync(again.executablePath).mtimeMs).toBe(written);
});
