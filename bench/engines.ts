/**
 * Engine scenarios for `npm run bench`, each beside the bare engine call it wraps, measured in the
 * same run:
 *
 * - a thumbnail job of a 1 MB JPEG (import/base64 → thumbnail → export/url, through the SDK and the
 *   whole platform) against the bare sharp call (decode, resize, encode in this process);
 * - a capture-website job (→ export/url) of a local page against a bare puppeteer `page.pdf` of the
 *   same page (warm browser, a fresh page per run).
 *
 * The page is served by `startBenchSite()`, which run.ts starts before the platform so that its host
 * can be allowed (FETCH_ALLOW_HOSTS).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { bundledChromium } from '../lib/engines/chrome/unpacked.js';
import type { Emulator } from '../local/emulator.js';
import { cloudConvertClient } from '../test/support/cloudconvert.js';
import { median } from './measure.js';

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Bench</title>
<style>body{font-family:sans-serif;margin:2cm} td{border:1px solid #999;padding:4px}</style></head><body>
<h1>Quarterly figures</h1>${'<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.</p>'.repeat(20)}
<table>${Array.from({ length: 40 }, (_, i) => `<tr><td>Row ${i}</td><td>${i * 17}</td><td>${(i * 3.14).toFixed(2)}</td></tr>`).join('')}</table>
</body></html>`;

/** A local page to capture; its `host` goes into FETCH_ALLOW_HOSTS. */
export async function startBenchSite(): Promise<{ origin: string; host: string; close(): Promise<void> }> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin: `http://${host}`, host, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A photo-like JPEG of about 1 MB (gradients and noise). */
export async function jpegOfAboutOneMegabyte(): Promise<Buffer> {
  const width = 1600;
  const height = 1200;
  const pixels = Buffer.alloc(width * height * 3);
  const noise = randomBytes(width * height);
  for (let i = 0; i < width * height; i++) {
    const n = (noise[i]! - 128) / 3;
    pixels[i * 3] = Math.max(0, Math.min(255, ((i % width) / width) * 255 + n));
    pixels[i * 3 + 1] = Math.max(0, Math.min(255, (Math.floor(i / width) / height) * 255 + n));
    pixels[i * 3 + 2] = Math.max(0, Math.min(255, 120 + n));
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } }).jpeg({ quality: 92 }).toBuffer();
}

/** A job against the bare engine call it wraps: medians over `runs`, ms. */
export interface EngineComparison {
  runs: number;
  jobMs: number;
  bareMs: number;
}

export interface EngineResult {
  lines: string[];
  thumbnail: EngineComparison;
  capture: EngineComparison;
}

export async function engineScenarios(platform: Emulator, site: { origin: string }, runs = 10): Promise<EngineResult> {
  const cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
  const lines: string[] = [];

  // Thumbnail of a 1 MB JPEG: the job against sharp alone.
  const photo = await jpegOfAboutOneMegabyte();
  const base64 = photo.toString('base64');
  const bareThumb = async () => {
    const t = performance.now();
    await sharp(photo).rotate().resize(200, 200, { fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 85 }).toBuffer();
    return performance.now() - t;
  };
  const thumbJob = async () => {
    const t = performance.now();
    const created = await cc.jobs.create({
      tasks: {
        photo: { operation: 'import/base64', file: base64, filename: 'photo.jpg' },
        thumb: { operation: 'thumbnail', input: 'photo', output_format: 'jpg', width: 200, height: 200 },
        out: { operation: 'export/url', input: 'thumb' },
      },
    });
    const done = await cc.jobs.wait(created.id);
    if (done.status !== 'finished') throw new Error(`thumbnail bench job ended ${done.status}: ${JSON.stringify(done.tasks.map((x) => x.message))}`);
    return performance.now() - t;
  };
  await bareThumb();
  await thumbJob();
  const thumbBare: number[] = [];
  const thumbJobs: number[] = [];
  for (let i = 0; i < runs; i++) {
    thumbBare.push(await bareThumb());
    thumbJobs.push(await thumbJob());
  }
  const thumbnail = { runs, jobMs: median(thumbJobs), bareMs: median(thumbBare) };
  lines.push(
    `thumbnail of a ${(photo.length / 1e6).toFixed(2)} MB JPEG: job end to end median ${thumbnail.jobMs.toFixed(0)} ms, ` +
      `bare sharp resize ${thumbnail.bareMs.toFixed(1)} ms (${(thumbnail.jobMs / thumbnail.bareMs).toFixed(1)}x; ${runs} runs)`,
  );

  // capture-website to PDF: the job against puppeteer's page.pdf on a warm browser.
  const { default: chromium } = await import('@sparticuz/chromium');
  const { default: puppeteer } = await import('puppeteer-core');
  chromium.setGraphicsMode = false;
  const browser = await puppeteer.launch({
    executablePath: (await bundledChromium()).executablePath,
    args: chromium.args.filter((a) => a !== '--single-process'),
    headless: 'shell',
  });
  try {
    const barePdf = async () => {
      const t = performance.now();
      const page = await browser.newPage();
      await page.goto(site.origin, { waitUntil: 'load' });
      await page.pdf({ format: 'A4', printBackground: true });
      await page.close();
      return performance.now() - t;
    };
    const captureJob = async () => {
      const t = performance.now();
      const created = await cc.jobs.create({
        tasks: {
          shot: { operation: 'capture-website', url: site.origin, output_format: 'pdf', page_format: 'A4' },
          out: { operation: 'export/url', input: 'shot' },
        },
        // The SDK's types do not list page_format.
      } as never);
      const done = await cc.jobs.wait(created.id);
      if (done.status !== 'finished') throw new Error(`capture bench job ended ${done.status}: ${JSON.stringify(done.tasks.map((x) => x.message))}`);
      return performance.now() - t;
    };
    await barePdf();
    await captureJob();
    const pdfBare: number[] = [];
    const pdfJobs: number[] = [];
    for (let i = 0; i < runs; i++) {
      pdfBare.push(await barePdf());
      pdfJobs.push(await captureJob());
    }
    const capture = { runs, jobMs: median(pdfJobs), bareMs: median(pdfBare) };
    lines.push(
      `capture-website → PDF: job end to end median ${capture.jobMs.toFixed(0)} ms, bare puppeteer goto + page.pdf ` +
        `${capture.bareMs.toFixed(0)} ms (${(capture.jobMs / capture.bareMs).toFixed(1)}x; ${runs} runs)`,
    );
    return { lines, thumbnail, capture };
  } finally {
    await browser.close();
  }
}
