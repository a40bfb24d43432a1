/**
 * `BENCH_ONLY=console`: the console's weight and its first load. The bundle's sizes come from the
 * build's manifest (as built, brotli, gzip). The first load is measured in headless Chromium with an
 * empty cache each time (a new browser context): from navigation until the app has drawn its page
 * (the Convert heading), against the bare baseline of the account page (server-rendered, no script)
 * loaded the same way in the same rounds, alternating. Bytes are what crossed the wire.
 */
import type { Browser, Page } from 'puppeteer-core';
import type { Emulator } from '../local/emulator.js';
import { readConsoleManifest } from '../lib/web/console/assets.js';
import { launchBrowser } from '../test/support/browser.js';
import { median } from './measure.js';

const ROUNDS = Number(process.env.BENCH_CONSOLE_ROUNDS ?? 9);

/** Loads `url` in a fresh context (no cache; signed in with the link first), returns ms until `ready` and the bytes received. */
async function coldLoad(browser: Browser, platform: Emulator, path: string, ready: (page: Page) => Promise<unknown>): Promise<{ ms: number; bytes: number }> {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    // The sign-in sets the session cookie; its own page load is not measured.
    await page.goto(platform.signInUrl, { waitUntil: 'load' });
    const cdp = await page.createCDPSession();
    await cdp.send('Network.enable');
    await cdp.send('Network.clearBrowserCache');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    let bytes = 0;
    cdp.on('Network.loadingFinished', (e) => (bytes += e.encodedDataLength));
    const started = performance.now();
    await page.goto(`${platform.baseUrl}${path}`, { waitUntil: 'domcontentloaded' });
    await ready(page);
    const ms = performance.now() - started;
    return { ms, bytes };
  } finally {
    await context.close();
  }
}

export async function consoleBench(platform: Emulator): Promise<string[]> {
  const manifest = await readConsoleManifest();
  const sizes = Object.values(manifest.sizes).reduce((sum, s) => ({ raw: sum.raw + s.raw, br: sum.br + s.br, gzip: sum.gzip + s.gzip }), { raw: 0, br: 0, gzip: 0 });
  const { browser, close } = await launchBrowser();
  const consoleRuns: Array<{ ms: number; bytes: number }> = [];
  const baseRuns: Array<{ ms: number; bytes: number }> = [];
  try {
    const consoleReady = (page: Page) => page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Convert');
    const accountReady = (page: Page) => page.waitForSelector('h1');
    // One of each first (cold server paths), not counted.
    await coldLoad(browser, platform, '/console', consoleReady);
    await coldLoad(browser, platform, '/account', accountReady);
    for (let i = 0; i < ROUNDS; i++) {
      consoleRuns.push(await coldLoad(browser, platform, '/console', consoleReady));
      baseRuns.push(await coldLoad(browser, platform, '/account', accountReady));
    }
  } finally {
    await close();
  }
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  const consoleMs = median(consoleRuns.map((r) => r.ms));
  const baseMs = median(baseRuns.map((r) => r.ms));
  return [
    `console bundle: ${kib(sizes.raw)} as built, ${kib(sizes.br)} brotli, ${kib(sizes.gzip)} gzip (${manifest.script}, ${manifest.style})`,
    `console first load, empty cache, until the page is drawn: median ${consoleMs.toFixed(0)} ms, ${kib(median(consoleRuns.map((r) => r.bytes)))} over the wire (${ROUNDS} rounds)`,
    `  bare baseline, the account page (server-rendered, no script): median ${baseMs.toFixed(0)} ms, ${kib(median(baseRuns.map((r) => r.bytes)))}; ratio ${(consoleMs / baseMs).toFixed(2)}×`,
  ];
}
