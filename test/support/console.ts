/**
 * The console in a real headless Chromium against a local platform: the platform (serverless-offline
 * with its backends, live events and queues), a browser, and pages signed in with the platform's
 * one-click sign-in link. Every page records Content-Security-Policy violations (the browser's
 * `securitypolicyviolation` events and its console reports) and refuses every request that is not to
 * this machine, so a test can assert that the console loaded nothing from elsewhere and broke no rule.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../local/emulator.js';
import { launchBrowser } from './browser.js';
import { e2eOutput } from './platform-output.js';

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface ConsoleHarness {
  platform: Emulator;
  browser: Browser;
  close(): Promise<void>;
}

/** A platform and a browser; `close` stops both and removes their folders. */
export async function startConsoleHarness(opts: Partial<EmulatorOptions> = {}): Promise<ConsoleHarness> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'console-e2e-data-'));
  const platform = await startEmulator({ dataDir, output: e2eOutput, ...opts });
  let launched: Awaited<ReturnType<typeof launchBrowser>>;
  try {
    launched = await launchBrowser();
  } catch (err) {
    await platform.stop();
    throw err;
  }
  return {
    platform,
    browser: launched.browser,
    async close() {
      await launched.close().catch(() => {});
      await platform.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ConsolePage {
  page: Page;
  /** CSP violations seen so far (each `directive blocked-uri`), and console reports of them. */
  violations(): Promise<string[]>;
  /** Requests refused because they were not to this machine. */
  refused: string[];
  /** Responses with a status of 500 or more. */
  serverErrors: string[];
}

/**
 * A new page signed in to the built-in account with the sign-in link, then at `to` (a path under the
 * service, e.g. `/console/jobs`).
 */
export async function openConsole(harness: ConsoleHarness, to = '/console'): Promise<ConsolePage> {
  const page = await harness.browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  const refused: string[] = [];
  const serverErrors: string[] = [];
  const reported: string[] = [];
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol === 'data:' || url.protocol === 'blob:' || LOCAL_HOSTS.has(url.hostname)) void request.continue();
    else {
      refused.push(request.url());
      void request.abort('internetdisconnected');
    }
  });
  page.on('response', (response) => {
    if (response.status() >= 500) serverErrors.push(`${response.status()} ${response.url()}`);
  });
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) reported.push(message.text());
  });
  await page.evaluateOnNewDocument(() => {
    const seen: string[] = [];
    (window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(harness.platform.signInUrl, { waitUntil: 'networkidle0' });
  if (to !== '/console') await page.goto(`${harness.platform.baseUrl}${to}`, { waitUntil: 'networkidle0' });
  return {
    page,
    refused,
    serverErrors,
    async violations() {
      const inPage = await page.evaluate(() => (window as unknown as { __cspViolations?: string[] }).__cspViolations ?? []).catch(() => [] as string[]);
      return [...inPage, ...reported];
    },
  };
}
