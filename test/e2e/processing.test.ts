/**
 * Processing on real engines through the official `cloudconvert` SDK against the whole platform
 * (serverless-offline, queues, consumers, object storage): watermark, capture-website, discovery, engine
 * choice, timeouts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_VERSIONS } from '#lib/engines/core/catalog.js';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { textPdf } from '../fixtures/engine-fixtures.js';
import { pdfPageText } from '../support/pdf-text.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { engine, requires } from '../support/requires.js';
import { e2eOutput } from '../support/platform-output.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'processing-e2e-'));
const work = mkdtempSync(path.join(tmpdir(), 'processing-e2e-files-'));
let platform: Emulator;
let cc: ReturnType<typeof cloudConvertClient>;

/** The local site the service may reach (FETCH_ALLOW_HOSTS): a PDF and test pages. */
let site: Server;
let siteOrigin = '';
/** Loopback, not allowed: must never be reached. */
let secret: Server;
let secretPort = 0;
let secretHits = 0;
let pdf: Buffer;
const office = requires(engine('libreoffice'));

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return (server.address() as AddressInfo).port;
};

beforeAll(async () => {
  pdf = await textPdf(3, 'of the annual report');
  secret = createServer((_req, res) => {
    secretHits++;
    res.writeHead(200, { 'access-control-allow-origin': '*' }).end('secret');
  });
  secretPort = await listen(secret);
  site = createServer((req, res) => {
    const page = (body: string) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><head><style>html,body{margin:0}</style></head><body>${body}</body></html>`);
    if (req.url === '/report.pdf') return res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
    if (req.url === '/article') return page('<h1>Capture me</h1><p>A4, please.</p>');
    if (req.url === '/box') return page('<div style="width:640px;height:480px;background:#204080"></div>');
    if (req.url === '/slow') return; // never answers
    if (req.url === '/probe') {
      return page(`<p id="out">pending</p><img src="http://127.0.0.1:${secretPort}/img">
        <script>
          fetch('http://169.254.169.254/latest/meta-data/').then(
            (r) => r.text().then((t) => 'GOT ' + t),
            () => 'metadata BLOCKED',
          ).then((outcome) => fetch('http://127.0.0.1:${secretPort}/data').then((r) => r.text().then((t) => outcome + ' GOT ' + t), () => outcome + ' loopback BLOCKED'))
           .then((text) => { document.getElementById('out').textContent = text; document.body.insertAdjacentHTML('beforeend', '<p id="done">done</p>'); });
        </script>`);
    }
    res.writeHead(404).end();
  });
  siteOrigin = `http://127.0.0.1:${await listen(site)}`;
  platform = await startEmulator({
    dataDir,
    output: e2eOutput,
    env: { LOG_LEVEL: 'warn', FETCH_ALLOW_HOSTS: new URL(siteOrigin).host },
  });
  cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
});

afterAll(async () => {
  await platform?.stop();
  site?.close();
  secret?.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

const download = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());
const api = (route: string, init: RequestInit = {}) =>
  fetch(`${platform.baseUrl}${route}`, { ...init, headers: { authorization: `Bearer ${platform.apiKey}`, 'content-type': 'application/json', ...init.headers } });

describe('watermark through the SDK', () => {
  it('import/url → watermark (text, opacity 50, rotation -45, centred) → export/url: same page count, the text on every page', async () => {
    const created = await cc.jobs.create({
      tasks: {
        fetch: { operation: 'import/url', url: `${siteOrigin}/report.pdf` },
        mark: {
          operation: 'watermark',
          input: 'fetch',
          text: 'CONFIDENTIAL',
          font_size: 50,
          opacity: 50,
          rotation: -45,
          position_vertical: 'center',
          position_horizontal: 'center',
        },
        out: { operation: 'export/url', input: 'mark' },
      },
    });
    const job = await cc.jobs.wait(created.id);
    expect(job.status).toBe('finished');
    const mark = job.tasks.find((t) => t.name === 'mark') as any;
    expect(mark).toMatchObject({ engine: 'pdf-lib', engine_version: BUNDLED_VERSIONS.pdfLib });
    const [file] = cc.jobs.getExportUrls(job);
    expect(file?.filename).toBe('report.pdf');
    const bytes = await download(file!.url!);
    expect((await PDFDocument.load(bytes)).getPageCount()).toBe(3);
    const saved = path.join(work, 'watermarked.pdf');
    writeFileSync(saved, bytes);
    for (let page = 1; page <= 3; page++) {
      const text = await pdfPageText(saved, page);
      expect(text).toContain(`Page ${page} of 3`);
      expect(text.replace(/\s/g, '')).toContain('CONFIDENTIAL');
    }
  });
});

describe('capture-website through the SDK', () => {
  it('prints A4 pages, and PNGs at twice the viewport by default', async () => {
    const job = await cc.jobs.wait(
      (
        await cc.jobs.create({
          tasks: {
            a4: { operation: 'capture-website', url: `${siteOrigin}/article`, output_format: 'pdf', page_format: 'A4' },
            shot: { operation: 'capture-website', url: `${siteOrigin}/box`, output_format: 'png', screen_width: 640, screen_height: 480 },
            out: { operation: 'export/url', input: ['a4', 'shot'] },
          },
          // The SDK's types know only the seed's capture-website arguments; the spec's others pass through.
        } as never)
      ).id,
    );
    expect(job.status).toBe('finished');
    expect(job.tasks.find((t) => t.name === 'a4')).toMatchObject({ engine: 'chrome', engine_version: BUNDLED_VERSIONS.chromium });
    const files = cc.jobs.getExportUrls(job);
    const pdfFile = files.find((f) => f.filename.endsWith('.pdf'))!;
    const doc = await PDFDocument.load(await download(pdfFile.url!));
    for (const page of doc.getPages()) {
      const { width, height } = page.getSize();
      expect(Math.abs(width - 595.28)).toBeLessThan(1.5);
      expect(Math.abs(height - 841.89)).toBeLessThan(1.5);
    }
    const png = await sharp(await download(files.find((f) => f.filename.endsWith('.png'))!.url!)).metadata();
    expect(png).toMatchObject({ format: 'png', width: 1280, height: 960 });
  });

  it('captures a page that requests http://169.254.169.254/ and loopback: it gets nothing from them', async () => {
    const hits = secretHits;
    const job = await cc.jobs.wait(
      (
        await cc.jobs.create({
          tasks: {
            probe: { operation: 'capture-website', url: `${siteOrigin}/probe`, output_format: 'pdf', wait_for_element: '#done' },
            out: { operation: 'export/url', input: 'probe' },
          },
        })
      ).id,
    );
    expect(job.status).toBe('finished');
    const saved = path.join(work, 'probe.pdf');
    writeFileSync(saved, await download(cc.jobs.getExportUrls(job)[0]!.url!));
    const text = await pdfPageText(saved, 1);
    expect(text).toContain('metadata BLOCKED loopback BLOCKED');
    expect(text).not.toContain('GOT');
    expect(secretHits).toBe(hits);
  });

  it('ends a task with timeout 1 on a slow page in error', async () => {
    const task = await cc.tasks.create('capture-website', { url: `${siteOrigin}/slow`, output_format: 'pdf', timeout: 1 });
    const done = await cc.tasks.wait(task.id);
    expect(done).toMatchObject({ status: 'error', code: 'TIMEOUT' });
  });

  it('refuses a capture of the metadata address as a task error', async () => {
    const task = await cc.tasks.create('capture-website', { url: 'http://169.254.169.254/latest/meta-data/', output_format: 'png' });
    const done = await cc.tasks.wait(task.id);
    expect(done).toMatchObject({ status: 'error', code: 'CAPTURE_FAILED' });
    expect(done.message).toContain('a cloud metadata endpoint');
  });
});

describe('engines: choice and discovery', () => {
  it('answers 422 for an unknown engine or version, naming the choices', async () => {
    await expect(cc.tasks.create('capture-website', { url: `${siteOrigin}/box`, output_format: 'png', engine: 'wkhtmltopdf' })).rejects.toThrow();
    const res = await api('/v2/capture-website', {
      method: 'POST',
      body: JSON.stringify({ url: `${siteOrigin}/box`, output_format: 'png', engine: 'chrome', engine_version: '99' }),
    });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({
      message: 'The given data was invalid.',
      code: 'INVALID_DATA',
      errors: { engine_version: [`There is no version 99 of the engine chrome; choose one of: ${BUNDLED_VERSIONS.chromium}.`] },
    });
    const unknown = await api('/v2/jobs', {
      method: 'POST',
      body: JSON.stringify({ tasks: { shot: { operation: 'capture-website', url: `${siteOrigin}/box`, output_format: 'png', engine: 'wkhtmltopdf' } } }),
    });
    expect(((await unknown.json()) as any).errors).toEqual({ 'tasks.shot.engine': ['There is no engine wkhtmltopdf for capture-website; choose one of: chrome.'] });
  });

  it('runs a task pinned to an engine version with that version', async () => {
    const task = await cc.tasks.create('capture-website', { url: `${siteOrigin}/box`, output_format: 'jpg', engine: 'chrome', engine_version: '147' });
    expect(await cc.tasks.wait(task.id)).toMatchObject({ status: 'finished', engine: 'chrome', engine_version: BUNDLED_VERSIONS.chromium });
  });

  it('GET /v2/operations lists what this installation runs, with options and versions from the schemas', async () => {
    const res = await api('/v2/operations?filter[operation]=watermark&filter[input_format]=pdf&include=options,engine_versions');
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: any[] };
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({
      operation: 'watermark',
      input_format: 'pdf',
      output_format: 'pdf',
      engine: 'pdf-lib',
      engine_versions: [{ version: BUNDLED_VERSIONS.pdfLib, default: true, latest: true, deprecated: false, experimental: false }],
    });
    const options = Object.fromEntries((data[0].options as any[]).map((o) => [o.name, o]));
    for (const name of ['layer', 'text', 'font_size', 'font_color', 'font_name', 'position_vertical', 'position_horizontal', 'margin_vertical', 'margin_horizontal', 'opacity', 'rotation', 'font_width_percent', 'image_width_percent', 'pages']) {
      expect(options[name], name).toBeDefined();
    }
    expect(options.opacity).toMatchObject({ type: 'float', default: 100 });
    expect(options.layer).toMatchObject({ type: 'enum', possible_values: ['above', 'below'] });

    const all = ((await (await api('/v2/operations')).json()) as { data: any[] }).data;
    for (const op of ['convert', 'thumbnail', 'watermark', 'capture-website', 'optimize', 'metadata', 'metadata/write', 'merge', 'archive', 'import/url', 'export/url']) {
      expect(all.some((r) => r.operation === op), op).toBe(true);
    }
    expect(all.find((r) => r.operation === 'capture-website' && r.output_format === 'png')).toMatchObject({ engine: 'chrome', input_format: null });
  });

  it('GET /v2/convert/formats lists the convert pairs, filtered', async () => {
    const res = await api('/v2/convert/formats?filter[input_format]=jpg&filter[output_format]=webp&include=options');
    const { data } = (await res.json()) as { data: any[] };
    expect(data).toEqual([expect.objectContaining({ operation: 'convert', input_format: 'jpg', output_format: 'webp', engine: 'sharp', meta: { group: 'image' } })]);
    expect(data[0].options.map((o: any) => o.name)).toEqual(['width', 'height', 'fit', 'quality', 'strip']);
    const unauthenticated = await fetch(`${platform.baseUrl}/v2/convert/formats`);
    expect(unauthenticated.status).toBe(401);
  });

  office.it('GET /v2/convert/formats lists docx → pdf (and the other Word formats) on LibreOffice where it is installed, e-books on calibre, markup on pandoc', async () => {
    const docx = ((await (await api('/v2/convert/formats?filter[input_format]=docx')).json()) as { data: any[] }).data;
    expect(docx).toContainEqual(expect.objectContaining({ input_format: 'docx', output_format: 'pdf', engine: 'libreoffice' }));
    expect(docx).toContainEqual(expect.objectContaining({ input_format: 'docx', output_format: 'odt', engine: 'libreoffice' }));
    const engineOf = (to: string) => docx.find((row) => row.output_format === to)?.engine;
    expect(['pdf', 'odt', 'doc', 'rtf', 'txt'].map(engineOf)).toEqual(['libreoffice', 'libreoffice', 'libreoffice', 'libreoffice', 'libreoffice']);
    // Each pair on one engine, the first of convert's order that makes it.
    expect(new Set(docx.map((row) => row.output_format)).size).toBe(docx.length);
    if (docx.some((row) => row.engine === 'calibre')) expect(engineOf('mobi')).toBe('calibre');
    if (docx.some((row) => row.engine === 'pandoc')) expect(engineOf('md')).toBe('pandoc');
  });
});
