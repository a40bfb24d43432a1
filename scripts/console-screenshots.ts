/**
 * `npm run screenshots`: the README's pictures of the console, taken from the real thing. Starts a
 * local platform, signs in with its link, converts a PNG made here to WEBP on the Convert page and
 * photographs the page with its finished result, then the job's page (in the dark scheme). Writes
 * docs/images/console-convert.png, docs/images/console-job.png and docs/images/console-screenshots.json,
 * which names the console build the pictures show: test/bundles/console-screenshots.test.ts fails when
 * the console changed since (run this again then).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ElementHandle } from 'puppeteer-core';
import sharp from 'sharp';
import { readConsoleManifest } from '../lib/web/console/assets.js';
import { startEmulator } from '../local/emulator.js';
import { launchBrowser } from '../test/support/browser.js';

const SCREENSHOTS_DIR = 'docs/images';
const SCREENSHOTS_RECORD = `${SCREENSHOTS_DIR}/console-screenshots.json`;

const dataDir = mkdtempSync(path.join(tmpdir(), 'console-screenshots-'));
const work = mkdtempSync(path.join(tmpdir(), 'console-screenshots-files-'));
const platform = await startEmulator({ dataDir, output: 'ignore', env: { LOG_LEVEL: 'warn' } });
const { browser, close } = await launchBrowser();
try {
  await mkdir(SCREENSHOTS_DIR, { recursive: true });
  const page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 760, deviceScaleFactor: 1 });
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
  await page.goto(platform.signInUrl, { waitUntil: 'networkidle0' });

  // A picture worth converting: a gradient with a circle.
  const photo = path.join(work, 'sunrise.png');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="400"><defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#3b5bdb"/><stop offset="1" stop-color="#ffa94d"/></linearGradient></defs><rect width="640" height="400" fill="url(#g)"/><circle cx="320" cy="300" r="90" fill="#ffe066"/></svg>`;
  await sharp(Buffer.from(svg)).png().toFile(photo);

  // The input labelled File (puppeteer's ARIA query does not resolve a file input).
  const input = (await page.waitForSelector('input[type="file"]')) as ElementHandle<HTMLInputElement>;
  await input.uploadFile(photo);
  const target = (await page.waitForSelector('::-p-aria([name="Convert to"][role="combobox"])')) as ElementHandle<HTMLSelectElement>;
  await page.waitForFunction((s) => [...s.options].some((o) => o.value === 'webp'), {}, target);
  await target.select('webp');
  await page.locator('::-p-aria([name="Convert"][role="button"])').click();
  const download = await page.waitForSelector('::-p-aria([name="Download"][role="link"])', { timeout: 120_000 });
  await page.screenshot({ path: `${SCREENSHOTS_DIR}/console-convert.png` });

  // The job's page, from the link the Convert page gives, in the dark scheme.
  const jobHref = await page.$$eval('a[href^="/console/jobs/"]', (links) => links.map((a) => a.getAttribute('href')).find(Boolean));
  if (!jobHref || !download) throw new Error('the Convert page showed no job link or no Download link');
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
  await page.goto(`${platform.baseUrl}${jobHref}`, { waitUntil: 'networkidle0' });
  await page.waitForFunction(() => document.querySelector('main h1')?.textContent?.startsWith('Job'));
  await page.screenshot({ path: `${SCREENSHOTS_DIR}/console-job.png` });

  const manifest = await readConsoleManifest();
  writeFileSync(SCREENSHOTS_RECORD, JSON.stringify({ script: manifest.script, style: manifest.style }, null, 2) + '\n');
  console.log(`wrote ${SCREENSHOTS_DIR}/console-convert.png and console-job.png (console ${manifest.script}, ${manifest.style})`);
} finally {
  await close();
  await platform.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
}
