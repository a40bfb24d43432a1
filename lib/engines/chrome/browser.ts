/**
 * The chrome engine: Chromium through puppeteer-core. One browser per warm function instance (the
 * bundled @sparticuz/chromium, or a system Chromium set by CHROMIUM_PATH), a fresh browser context per
 * task, closed when the task ends, is cancelled or times out.
 *
 * Every request the page makes passes two checks: request interception (only http and https; literal
 * addresses, metadata names and `localhost` refused at once; the task's `headers` added on the page's
 * own origin only) and the guarded proxy, which resolves names and dials only allowed addresses (the
 * browser's own DNS is switched off, so it cannot reach a name any other way).
 */
import { createWriteStream, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Browser, BrowserContext, HTTPRequest, Page, PaperFormat, PDFOptions } from 'puppeteer-core';
import type { Config } from '../../kernel/config.js';
import type { Logger } from '../../kernel/log.js';
import { checkUrl, FetchFailedError } from '../../adapters/net/address-policy.js';
import { checkUrlResolved } from '../../adapters/net/guarded-fetch.js';
import { EngineFailure } from '../core/errors.js';
import type { InstalledVersion } from '../core/catalog.js';
import { policyOf } from '../core/policy.js';
import { startGuardedProxy, type GuardedProxy } from './guarded-proxy.js';
import { bundledChromium } from './unpacked.js';


interface Running {
  key: string;
  browser: Browser;
  proxy: GuardedProxy;
  version: string;
}

let running: Promise<Running> | undefined;
/** Refused requests, reported to the capture that is waiting for them (by browser context). */
const blockedListeners = new Set<(host: string, reason: string) => void>();

/** Flags from @sparticuz/chromium that this service does not want: it keeps the web's own security and needs contexts. */
const UNWANTED_FLAGS = ['--single-process', '--disable-web-security', '--allow-running-insecure-content', '--disable-site-isolation-trials'];

const SYSTEM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-sync',
  '--disable-component-update',
  '--disable-domain-reliability',
  '--font-render-hinting=none',
];

/**
 * What of this process's environment the browser gets: what it and @sparticuz/chromium's set-up need,
 * never credentials (AWS_*, keys and tokens stay in this process).
 */
const BROWSER_ENV = ['PATH', 'HOME', 'LANG', 'TZ', 'FONTCONFIG_PATH', 'LD_LIBRARY_PATH'];
const browserEnv = (): Record<string, string> =>
  Object.fromEntries(BROWSER_ENV.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]!]])));

async function launch(installed: InstalledVersion, config: Config, log: Logger): Promise<Running> {
  const { default: puppeteer } = await import('puppeteer-core');
  const proxy = await startGuardedProxy(policyOf(config), {
    onBlocked: (host, reason) => {
      for (const listener of blockedListeners) listener(host, reason);
    },
  });
  let executablePath: string;
  let args: string[];
  let env = browserEnv();
  if (installed.variant === 'system') {
    executablePath = installed.executable!;
    args = [...SYSTEM_FLAGS];
  } else {
    const { default: chromium } = await import('@sparticuz/chromium');
    chromium.setGraphicsMode = false;
    // Unpacked into a folder of its own version, never whatever another program left in the temp folder.
    const unpacked = await bundledChromium();
    executablePath = unpacked.executablePath;
    env = { ...env, ...unpacked.env };
    args = chromium.args.filter((flag) => !UNWANTED_FLAGS.includes(flag));
  }
  args.push(
    `--proxy-server=${proxy.url}`,
    // Loopback goes through the proxy too (Chromium bypasses it for loopback by default).
    '--proxy-bypass-list=<-loopback>',
    // No DNS of the browser's own: names are resolved (and checked) by the proxy only.
    '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
    '--disable-background-networking',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--disable-quic',
  );
  // The profile in a folder of our own, removed when the browser goes and when the process exits
  // (a process that is killed before it can close the browser would otherwise leave it behind).
  const userDataDir = await mkdtemp(path.join(config.ENGINE_TMP_DIR || tmpdir(), 'chrome-profile-'));
  // Chrome's helper processes may still be writing into it just after the browser disconnects: retry,
  // and never let a folder that could not go yet crash the process (it lies under the temp folder).
  const removeProfile = () => {
    try {
      rmSync(userDataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    } catch (err) {
      log.warn('browser profile not removed', { engine: 'chrome', error: (err as Error).message });
    }
  };
  process.once('exit', removeProfile);
  const started = performance.now();
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      executablePath,
      args,
      env,
      userDataDir,
      headless: installed.variant === 'system' ? true : 'shell',
      defaultViewport: null,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      protocolTimeout: 120_000,
    });
  } catch (err) {
    process.removeListener('exit', removeProfile);
    removeProfile();
    await proxy.close();
    throw err;
  }
  browser.once('disconnected', () => {
    process.removeListener('exit', removeProfile);
    removeProfile();
  });
  const version = (await browser.version()).replace(/^\D+/, '');
  log.info('browser launched', { engine: 'chrome', variant: installed.variant, version, durationMs: Math.round(performance.now() - started) });
  return { key: `${installed.variant}:${installed.executable ?? ''}`, browser, proxy, version };
}

/** The instance's browser for this installed version, launched on first use and after a crash. */
async function browserFor(installed: InstalledVersion, config: Config, log: Logger): Promise<Running> {
  const key = `${installed.variant}:${installed.executable ?? ''}`;
  const current = running ? await running.catch(() => undefined) : undefined;
  if (current && current.key === key && current.browser.connected) return current;
  if (current) await shutdown(current);
  const next = launch(installed, config, log);
  running = next;
  next.then(
    (r) =>
      r.browser.once('disconnected', () => {
        if (running === next) running = undefined;
        void r.proxy.close();
      }),
    () => {
      if (running === next) running = undefined;
    },
  );
  return next;
}

async function shutdown(r: Running): Promise<void> {
  await r.browser.close().catch(() => {});
  await r.proxy.close();
}

/** Closes the instance's browser (tests, benchmarks, so that Node can exit). */
export async function closeBrowser(): Promise<void> {
  const current = running ? await running.catch(() => undefined) : undefined;
  running = undefined;
  if (current) await shutdown(current);
}

/** The running browser's own version (e.g. `147.0.7727.0`), if one is running. */
export async function browserVersion(): Promise<string | undefined> {
  const current = running ? await running.catch(() => undefined) : undefined;
  return current?.version;
}

/** How many browser contexts (tasks) are open, besides the default one. For tests. */
export async function openContexts(): Promise<number> {
  const current = running ? await running.catch(() => undefined) : undefined;
  return current ? current.browser.browserContexts().length - 1 : 0;
}

export interface CaptureOptions {
  pages?: string;
  zoom?: number;
  page_width?: number;
  page_height?: number;
  page_format?: string;
  page_orientation?: 'portrait' | 'landscape';
  margin_top?: number;
  margin_bottom?: number;
  margin_left?: number;
  margin_right?: number;
  print_background?: boolean;
  display_header_footer?: boolean;
  header_template?: string;
  footer_template?: string;
  wait_until?: 'load' | 'domcontentloaded' | 'networkidle0' | 'networkidle2';
  wait_for_element?: string;
  wait_time?: number;
  css_media_type?: 'print' | 'screen';
  headers?: Record<string, string>;
  screen_width?: number;
  screen_height?: number;
  clip?: boolean;
  device_scale_factor?: number;
  transparent_background?: boolean;
  quality?: number;
}

export interface CaptureRequest {
  /** A page on the web, or a document of the task (served to the browser under a made-up origin). */
  source: { url: string } | { html: Buffer; filename: string };
  /** Nothing but the document itself (a sandbox task, which may use whitelisted files only). */
  offline?: true;
  format: 'pdf' | 'png' | 'jpg';
  options: CaptureOptions;
  out: string;
  installed: InstalledVersion;
  config: Config;
  signal: AbortSignal;
  log: Logger;
}

/** Where a task's own HTML document is served from: a name that no DNS resolves. */
const DOCUMENT_ORIGIN = 'http://document.invalid';
const NAVIGATION_TIMEOUT_MS = 120_000;

function pdfOptions(o: CaptureOptions): PDFOptions {
  const header = o.header_template;
  const footer = o.footer_template;
  const withTemplates = o.display_header_footer ?? (header !== undefined || footer !== undefined);
  const sized = o.page_width !== undefined || o.page_height !== undefined;
  return {
    ...(sized
      ? { width: `${o.page_width ?? 21.59}cm`, height: `${o.page_height ?? 27.94}cm` }
      : { format: (o.page_format ?? 'Letter') as PaperFormat }),
    landscape: o.page_orientation === 'landscape',
    margin: { top: `${o.margin_top ?? 0}mm`, bottom: `${o.margin_bottom ?? 0}mm`, left: `${o.margin_left ?? 0}mm`, right: `${o.margin_right ?? 0}mm` },
    printBackground: o.print_background ?? true,
    displayHeaderFooter: withTemplates,
    // A missing template would otherwise print Chromium's default (date, title, URL).
    ...(withTemplates ? { headerTemplate: header ?? '<span></span>', footerTemplate: footer ?? '<span></span>' } : {}),
    ...(o.pages ? { pageRanges: o.pages.replace(/\s+/g, '') } : {}),
    scale: Math.min(2, Math.max(0.1, o.zoom ?? 1)),
  };
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

/** Decides one request of the page: allowed (through the proxy), served from the task, or refused. */
function interceptor(req: CaptureRequest, origin: string, blocked: string[]) {
  const policy = policyOf(req.config);
  const document = 'html' in req.source ? req.source : undefined;
  return (request: HTTPRequest) => {
    if (request.isInterceptResolutionHandled()) return;
    const url = request.url();
    if (/^(data|blob|about):/i.test(url)) return void request.continue().catch(() => {});
    if (document && url.startsWith(`${DOCUMENT_ORIGIN}/`)) {
      const own = url.split(/[?#]/)[0] === `${DOCUMENT_ORIGIN}/${encodeURIComponent(document.filename)}`;
      return void (own
        ? request.respond({ status: 200, contentType: 'text/html; charset=utf-8', body: document.html })
        : request.respond({ status: 404, contentType: 'text/plain', body: 'Only the document itself is available.' })
      ).catch(() => {});
    }
    if (req.offline) {
      blocked.push(`${url.slice(0, 100)}: the sandbox fetches nothing`);
      return void request.abort('blockedbyclient').catch(() => {});
    }
    let parsed: URL;
    try {
      parsed = checkUrl(url, policy);
    } catch (err) {
      blocked.push(`${url.slice(0, 100)}: ${(err as Error).message}`);
      return void request.abort('blockedbyclient').catch(() => {});
    }
    const sameOrigin = parsed.origin === origin;
    const extra = sameOrigin && req.options.headers ? req.options.headers : undefined;
    return void request.continue(extra ? { headers: { ...request.headers(), ...extra } } : undefined).catch(() => {});
  };
}

/** Captures a page as PDF, PNG or JPG into `out`. */
export async function capture(req: CaptureRequest): Promise<{ version: string; blocked: string[] }> {
  const o = req.options;
  let target: string;
  if ('url' in req.source) {
    try {
      // A clear task error for a page that may not be reached; the proxy checks every connection anyway.
      target = (await checkUrlResolved(req.source.url, policyOf(req.config))).url.href;
    } catch (err) {
      if (err instanceof FetchFailedError) throw new EngineFailure('CAPTURE_FAILED', `The page cannot be captured: ${err.message}`, { retryable: err.retryable, cause: err });
      throw err;
    }
  } else {
    target = `${DOCUMENT_ORIGIN}/${encodeURIComponent(req.source.filename)}`;
  }
  const origin = new URL(target).origin;

  const chrome = await browserFor(req.installed, req.config, req.log);
  req.signal.throwIfAborted();
  const context: BrowserContext = await chrome.browser.createBrowserContext({ downloadBehavior: { policy: 'deny' } });
  const blocked: string[] = [];
  const onBlocked = (host: string, reason: string) => blocked.push(`${host}: ${reason}`);
  blockedListeners.add(onBlocked);
  const onAbort = () => void context.close().catch(() => {});
  req.signal.addEventListener('abort', onAbort, { once: true });
  if (req.signal.aborted) onAbort();
  try {
    const page: Page = await context.newPage();
    page.setDefaultTimeout(NAVIGATION_TIMEOUT_MS);
    page.on('dialog', (dialog) => void dialog.dismiss().catch(() => {}));
    await page.setBypassServiceWorker(true);
    await page.setRequestInterception(true);
    page.on('request', interceptor(req, origin, blocked));
    await page.setViewport({
      width: o.screen_width ?? 1280,
      height: o.screen_height ?? 800,
      deviceScaleFactor: req.format === 'pdf' ? 1 : (o.device_scale_factor ?? 2),
    });
    if (o.css_media_type) await page.emulateMediaType(o.css_media_type);

    let response;
    try {
      response = await page.goto(target, { waitUntil: o.wait_until ?? 'load', timeout: NAVIGATION_TIMEOUT_MS });
    } catch (err) {
      req.signal.throwIfAborted();
      throw new EngineFailure('CAPTURE_FAILED', `The page did not load: ${(err as Error).message.split('\n')[0]}`, { cause: err });
    }
    if (response && response.status() >= 400) req.log.info('captured page answered with an error status', { status: response.status() });
    if (o.wait_for_element) {
      try {
        await page.waitForSelector(o.wait_for_element, { timeout: NAVIGATION_TIMEOUT_MS });
      } catch (err) {
        req.signal.throwIfAborted();
        throw new EngineFailure('CAPTURE_FAILED', `The element ${o.wait_for_element} did not appear.`, { cause: err });
      }
    }
    if (o.wait_time) await sleep(o.wait_time, req.signal);
    req.signal.throwIfAborted();

    if (req.format === 'pdf') {
      const stream = await page.createPDFStream(pdfOptions(o));
      await pipeline(Readable.fromWeb(stream as WebReadableStream<Uint8Array>), createWriteStream(req.out), { signal: req.signal });
    } else {
      if (o.zoom && o.zoom !== 1) await page.evaluate((z) => void ((document.documentElement.style as any).zoom = String(z)), o.zoom);
      const scale = o.device_scale_factor ?? 2;
      const size = o.clip
        ? { width: o.screen_width ?? 1280, height: o.screen_height ?? 800 }
        : await page.evaluate(() => ({ width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight }));
      const pixels = size.width * size.height * scale * scale;
      if (pixels > req.config.MAX_IMAGE_PIXELS) {
        throw new EngineFailure(
          'IMAGE_TOO_LARGE',
          `The full page would be ${Math.round(size.width * scale)} × ${Math.round(size.height * scale)} pixels, over MAX_IMAGE_PIXELS; use clip or a smaller device_scale_factor.`,
        );
      }
      await page.screenshot({
        path: req.out as `${string}.png`,
        type: req.format === 'jpg' ? 'jpeg' : 'png',
        fullPage: !o.clip,
        omitBackground: req.format === 'png' && o.transparent_background === true,
        ...(req.format === 'jpg' ? { quality: o.quality ?? 85 } : {}),
      });
    }
    req.signal.throwIfAborted();
    if (blocked.length) req.log.info('page requests refused', { count: blocked.length, blocked: blocked.slice(0, 20) });
    return { version: chrome.version, blocked };
  } catch (err) {
    if (req.signal.aborted) throw req.signal.reason;
    throw err;
  } finally {
    req.signal.removeEventListener('abort', onAbort);
    blockedListeners.delete(onBlocked);
    await context.close().catch(() => {});
  }
}
