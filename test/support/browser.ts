/** A real headless Chromium for end-to-end tests: the one the capture engine ships (@sparticuz/chromium), driven by puppeteer-core. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundledChromium } from '#lib/engines/chrome/unpacked.js';
import puppeteer, { type Browser } from 'puppeteer-core';

const CHROMIUM_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Starts a browser with a profile of its own; `close` ends it and removes the profile. */
export async function launchBrowser(): Promise<{ browser: Browser; close(): Promise<void> }> {
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'e2e-browser-'));
  const browser = await puppeteer.launch({ executablePath: (await bundledChromium()).executablePath, headless: true, userDataDir, args: CHROMIUM_FLAGS });
  return {
    browser,
    async close() {
      await browser.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
