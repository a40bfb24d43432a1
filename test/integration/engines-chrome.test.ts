/**
 * capture-website and HTML conversion on Chromium, in-process: page sizes, the address guard on every
 * request the page makes (proven on the server side: a refused target sees no connection at all),
 * timeouts closing the task's browser context. DNS answers for `.test` names are faked (node:dns as
 * the guarded proxy sees it): `internal.test` resolves to loopback, which only the proxy can notice,
 * because Chromium itself is given no DNS.
 */
import type * as Dns from 'node:dns';
import http from 'node:http';
import { isIP, type AddressInfo, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BUNDLED_VERSIONS } from '#lib/engines/core/catalog.js';
import { browserVersion, closeBrowser, openContexts } from '#lib/engines/chrome/browser.js';
import { startGuardedProxy } from '#lib/engines/chrome/guarded-proxy.js';
import { pdfPageSizes } from '../fixtures/engine-fixtures.js';
import { pdfPageText } from '../support/pdf-text.js';
import { base64, startEngineHarness, type Harness } from './engines-harness.js';

vi.mock('node:dns', async (importOriginal) => {
  const actual = await importOriginal<typeof Dns & { default: typeof Dns }>();
  const fake: Record<string, string> = { 'internal.test': '127.0.0.1', 'metadata.test': '169.254.169.254' };
  const lookup = (hostname: string, options: any, callback: any) => {
    const address = fake[hostname];
    if (!address) return actual.lookup(hostname, options, callback);
    const result = [{ address, family: isIP(address) }];
    process.nextTick(() => (options.all ? callback(null, result) : callback(null, address, isIP(address))));
  };
  return { ...actual, default: { ...actual.default, lookup }, lookup };
});

interface Site {
  port: number;
  origin: string;
  requests: Array<{ url: string; headers: http.IncomingHttpHeaders }>;
  connections: number;
  close(): Promise<void>;
}

async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse, site: Site) => void): Promise<Site> {
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    site.requests.push({ url: req.url!, headers: req.headers });
    handler(req, res, site);
  });
  server.on('connection', (s) => {
    site.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const site: Site = {
    port,
    origin: `http://127.0.0.1:${port}`,
    requests: [],
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  return site;
}

let h: Harness;
let dir: string;
/** Never to be reached: loopback, not allowed. */
let secret: Site;
/** The pages under test (allowed by FETCH_ALLOW_HOSTS). */
let pages: Site;
/** A second allowed origin, to see which headers cross origins. */
let other: Site;

const html = (body: string, head = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0}</style>${head}</head><body>${body}</body></html>`;

beforeAll(async () => {
  secret = await serve((_req, res) => res.writeHead(200, { 'access-control-allow-origin': '*' }).end('secret'));
  other = await serve((_req, res) => res.end('other'));
  pages = await serve((req, res) => {
    const send = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    if (req.url === '/box') return send(html('<div style="width:800px;height:600px;background:#3060c0"></div>'));
    if (req.url === '/doc') return send(html('<h1>Annual report</h1><p>Engines at work.</p>'));
    if (req.url === '/slow') return; // never answers
    if (req.url === '/to-secret') return res.writeHead(302, { location: `${secret.origin}/via-redirect` }).end();
    if (req.url === '/headers') {
      return send(html(`<img src="${other.origin}/pixel"><p id="done">headers</p>`));
    }
    if (req.url === '/probe') {
      // Every way a page can ask for a forbidden address; each outcome is written into the page.
      const targets = {
        metadata: 'http://169.254.169.254/latest/meta-data/',
        metadataName: 'http://metadata.test/latest/meta-data/',
        loopback: `${secret.origin}/literal`,
        localhost: `http://localhost:${secret.port}/name`,
        resolvesToLoopback: `http://internal.test:${secret.port}/dns`,
        tlsToLoopback: `https://internal.test:${secret.port}/tls`,
        redirect: `${pages.origin}/to-secret`,
      };
      const script = `
        const targets = ${JSON.stringify(targets)};
        const out = [];
        Promise.all(Object.entries(targets).map(([name, url]) =>
          fetch(url).then(
            (r) => r.text().then((t) => out.push(name + (r.ok ? '=GOT:' + t.slice(0, 20) : '=REFUSED' + r.status))),
            () => out.push(name + '=BLOCKED'),
          )
        )).then(() => new Promise((done) => {
          const ws = new WebSocket('ws://internal.test:${secret.port}/ws');
          ws.onopen = () => (out.push('websocket=GOT'), done());
          ws.onerror = () => (out.push('websocket=BLOCKED'), done());
        })).then(() => {
          document.getElementById('out').textContent = out.sort().join(' ');
          document.body.insertAdjacentHTML('beforeend', '<p id="done">done</p>');
        });`;
      return send(
        html(
          `<p id="out">pending</p><img src="${secret.origin}/img"><iframe src="http://localhost:${secret.port}/frame"></iframe><iframe src="file:///etc/passwd"></iframe>`,
          `<script>${script}</script>`,
        ),
      );
    }
    res.writeHead(404).end();
  });
  h = await startEngineHarness({ FETCH_ALLOW_HOSTS: `127.0.0.1:${pages.port},127.0.0.1:${other.port}` });
  dir = mkdtempSync(path.join(tmpdir(), 'engines-chrome-'));
});

afterAll(async () => {
  await closeBrowser();
  await h?.close();
  await Promise.all([secret, pages, other].map((s) => s?.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe('capture-website', () => {
  it('prints a page to A4 PDF pages', async () => {
    const t = await h.run({ shot: { operation: 'capture-website', url: `${pages.origin}/doc`, output_format: 'pdf', page_format: 'A4' } });
    expect(t.shot).toMatchObject({ status: 'finished', engine: 'chrome', engineVersion: BUNDLED_VERSIONS.chromium });
    expect(t.shot!.result!.files![0]!.filename).toBe('127.0.0.1.pdf');
    // The version discovery declares is the one that ran.
    expect(await browserVersion()).toBe(BUNDLED_VERSIONS.chromium);
    const sizes = await pdfPageSizes(await h.file(t.shot!));
    expect(sizes.length).toBeGreaterThan(0);
    // A4 is 210 × 297 mm: 595.28 × 841.89 pt (Chromium rounds to whole hundredths of an inch).
    for (const size of sizes) {
      expect(size.width).toBeCloseTo(595.3, -0.5);
      expect(size.height).toBeCloseTo(841.9, -0.5);
    }
    expect(await pdfPageText(await h.saveTo(dir, t.shot!), 1)).toContain('Annual report');
  });

  it('takes PNG screenshots at twice the viewport by default, and at the given scale', async () => {
    const t = await h.run({
      retina: { operation: 'capture-website', url: `${pages.origin}/box`, output_format: 'png', screen_width: 800, screen_height: 600 },
      plain: { operation: 'capture-website', url: `${pages.origin}/box`, output_format: 'jpg', screen_width: 800, screen_height: 600, device_scale_factor: 1 },
      clipped: { operation: 'capture-website', url: `${pages.origin}/box`, output_format: 'png', screen_width: 400, screen_height: 300, clip: true },
    });
    expect(await sharp(await h.file(t.retina!)).metadata()).toMatchObject({ format: 'png', width: 1600, height: 1200 });
    expect(await sharp(await h.file(t.plain!)).metadata()).toMatchObject({ format: 'jpeg', width: 800, height: 600 });
    expect(await sharp(await h.file(t.clipped!)).metadata()).toMatchObject({ width: 800, height: 600 });
  });

  it('honours orientation, margins, footer templates and transparent backgrounds', async () => {
    const t = await h.run({
      wide: {
        operation: 'capture-website',
        url: `${pages.origin}/doc`,
        output_format: 'pdf',
        page_format: 'A5',
        page_orientation: 'landscape',
        margin_bottom: 20,
        footer_template: '<div style="font-size:10px;width:100%;text-align:center">Footer <span class="pageNumber"></span></div>',
      },
      clear: { operation: 'capture-website', url: `${pages.origin}/doc`, output_format: 'png', transparent_background: true, screen_width: 400, screen_height: 300, device_scale_factor: 1 },
    });
    const [size] = await pdfPageSizes(await h.file(t.wide!));
    // A5 landscape: 210 × 148 mm.
    expect(size!.width).toBeCloseTo(595.3, -0.5);
    expect(size!.height).toBeCloseTo(419.5, -0.5);
    expect(await pdfPageText(await h.saveTo(dir, t.wide!), 1)).toContain('Footer 1');
    const { data, info } = await sharp(await h.file(t.clear!)).raw().toBuffer({ resolveWithObject: true });
    expect(info.channels).toBe(4);
    // The bottom-right corner has no content: fully transparent.
    expect(data[(info.height - 1) * info.width * 4 + (info.width - 1) * 4 + 3]).toBe(0);
  });

  it('sends the task headers to the page’s own origin only', async () => {
    const before = other.requests.length;
    const t = await h.run({
      shot: { operation: 'capture-website', url: `${pages.origin}/headers`, output_format: 'png', headers: { 'x-token': 'abc' }, wait_for_element: '#done' },
    });
    expect(t.shot!.status).toBe('finished');
    expect(pages.requests.find((r) => r.url === '/headers')!.headers['x-token']).toBe('abc');
    const pixel = other.requests.slice(before).find((r) => r.url === '/pixel');
    expect(pixel).toBeDefined();
    expect(pixel!.headers['x-token']).toBeUndefined();
  });

  it('lets a page reach nothing forbidden: metadata, loopback, names resolving to loopback, redirects, websockets, files', async () => {
    const t = await h.run({
      shot: { operation: 'capture-website', url: `${pages.origin}/probe`, output_format: 'pdf', wait_for_element: '#done' },
    });
    expect(t.shot).toMatchObject({ status: 'finished' });
    const text = await pdfPageText(await h.saveTo(dir, t.shot!), 1);
    // Refused in the browser (request interception: addresses and names known to be forbidden) or by
    // the proxy (names that resolve to forbidden addresses: a 403 the page cannot read cross-origin, or
    // a failed tunnel). With ALLOW_LOOPBACK_FETCH=true the same page reads "GOT:secret" for each of them.
    for (const name of ['metadata', 'metadataName', 'loopback', 'localhost', 'resolvesToLoopback', 'tlsToLoopback', 'redirect', 'websocket']) {
      expect(text).toMatch(new RegExp(`\\b${name}=(BLOCKED|REFUSED403)\\b`));
    }
    expect(text).not.toContain('GOT');
    // The forbidden server never saw a request, nor even a connection.
    expect(secret.requests).toEqual([]);
    expect(secret.connections).toBe(0);
  });

  it('refuses a page at a forbidden address before opening it', async () => {
    const t = await h.run({
      meta: { operation: 'capture-website', url: 'http://169.254.169.254/latest/meta-data/', output_format: 'pdf' },
      dns: { operation: 'capture-website', url: `http://internal.test:${secret.port}/`, output_format: 'png' },
    });
    expect(t.meta).toMatchObject({ status: 'error', code: 'CAPTURE_FAILED' });
    expect(t.meta!.message).toBe('The page cannot be captured: Refusing to connect to "169.254.169.254": a cloud metadata endpoint.');
    expect(t.dns).toMatchObject({ status: 'error', code: 'CAPTURE_FAILED' });
    expect(t.dns!.message).toContain('(resolves to 127.0.0.1): a loopback address');
    expect(secret.connections).toBe(0);
  });

  it('ends a task with timeout 1 on a slow page in error, and closes its browser context', async () => {
    const started = performance.now();
    const t = await h.run({ slow: { operation: 'capture-website', url: `${pages.origin}/slow`, output_format: 'pdf', timeout: 1 } });
    expect(t.slow).toMatchObject({ status: 'error', code: 'TIMEOUT', message: 'The task timed out after 1 seconds.' });
    expect(performance.now() - started).toBeLessThan(5000);
    await vi.waitFor(async () => expect(await openContexts()).toBe(0), { timeout: 3000 });
  });
});

describe('HTML to PDF with Chromium', () => {
  it('converts an HTML file of the task; its relative resources are not served', async () => {
    const doc = html('<h1>Invoice 42</h1><img src="logo.png"><img src="' + `${secret.origin}/tracker` + '">');
    const t = await h.run({
      page: { operation: 'import/raw', file: doc, filename: 'invoice.html' },
      pdf: { operation: 'convert', input: 'page', output_format: 'pdf', page_format: 'A5' },
    });
    expect(t.pdf).toMatchObject({ status: 'finished', engine: 'chrome' });
    expect(t.pdf!.result!.files![0]!.filename).toBe('invoice.pdf');
    const [size] = await pdfPageSizes(await h.file(t.pdf!));
    expect(size!.width).toBeCloseTo(419.5, -0.5);
    expect(await pdfPageText(await h.saveTo(dir, t.pdf!), 1)).toContain('Invoice 42');
    expect(secret.connections).toBe(0);
  });

  it('renders a sandbox task\'s HTML file with no network: what it links to is not fetched, even from an allowed host', async () => {
    // An image, a frame, a style sheet, a script and a fetch() from an inline script: none may reach the network.
    const doc = (tag: string) =>
      html(
        `<h1>Sandbox</h1><img src="${pages.origin}/box?${tag}"><iframe src="${other.origin}/frame?${tag}"></iframe><script src="${other.origin}/script?${tag}"></script>` +
          `<script>fetch('${pages.origin}/fetch?${tag}').catch(() => {})</script>`,
        `<link rel="stylesheet" href="${pages.origin}/style?${tag}">`,
      );
    const sandboxed = await h.run(
      { page: { operation: 'import/raw', file: doc('sandbox'), filename: 'page.html' }, pdf: { operation: 'convert', input: 'page', output_format: 'pdf' } },
      { sandbox: true },
    );
    expect(sandboxed.pdf).toMatchObject({ status: 'finished', engine: 'chrome' });
    expect(await pdfPageText(await h.saveTo(dir, sandboxed.pdf!), 1)).toContain('Sandbox');
    expect([...pages.requests, ...other.requests].filter((r) => r.url.includes('sandbox'))).toEqual([]);
    // Live, the same document's resources are fetched (through the guard).
    const live = await h.run({ page: { operation: 'import/raw', file: doc('live'), filename: 'page.html' }, pdf: { operation: 'convert', input: 'page', output_format: 'pdf' } });
    expect(live.pdf).toMatchObject({ status: 'finished' });
    expect(pages.requests.some((r) => r.url === '/box?live')).toBe(true);
  });

  it('turns an HTML file into a PNG through base64 import too', async () => {
    const t = await h.run({
      page: base64(Buffer.from(html('<div style="width:300px;height:200px;background:red"></div>')), 'box.html'),
      png: { operation: 'convert', input: 'page', output_format: 'png', screen_width: 300, screen_height: 200, device_scale_factor: 1 },
    });
    expect(await sharp(await h.file(t.png!)).metadata()).toMatchObject({ width: 300, height: 200 });
  });
});

describe('the guarded proxy on its own', () => {
  it('forwards allowed requests and refuses the rest, for plain HTTP and CONNECT alike', async () => {
    const refused: string[] = [];
    const proxy = await startGuardedProxy({ allowHosts: [`127.0.0.1:${pages.port}`] }, { onBlocked: (host) => refused.push(host) });
    try {
      const viaProxy = (target: string) =>
        new Promise<number>((resolve, reject) => {
          const req = http.request({ host: '127.0.0.1', port: proxy.port, path: target, method: 'GET' }, (res) => {
            res.resume();
            resolve(res.statusCode!);
          });
          req.on('error', reject).end();
        });
      const connect = (authority: string) =>
        new Promise<number>((resolve, reject) => {
          const req = http.request({ host: '127.0.0.1', port: proxy.port, method: 'CONNECT', path: authority });
          req.on('connect', (res, socket) => {
            socket.destroy();
            resolve(res.statusCode!);
          });
          req.on('error', reject).end();
        });
      expect(await viaProxy(`${pages.origin}/doc`)).toBe(200);
      expect(await viaProxy(`${secret.origin}/x`)).toBe(403);
      expect(await viaProxy(`http://internal.test:${secret.port}/x`)).toBe(403);
      expect(await viaProxy('http://169.254.169.254/')).toBe(403);
      expect(await connect(`127.0.0.1:${pages.port}`)).toBe(200);
      expect(await connect(`internal.test:${secret.port}`)).toBe(403);
      expect(await connect(`[::1]:${secret.port}`)).toBe(403);
      expect(await connect('169.254.169.254:443')).toBe(403);
      expect(refused).toEqual([`${secret.origin}/x`, `internal.test:${secret.port}`, 'http://169.254.169.254/', 'internal.test', '::1', '169.254.169.254']);
      expect(secret.connections).toBe(0);
    } finally {
      await proxy.close();
    }
  });
});
