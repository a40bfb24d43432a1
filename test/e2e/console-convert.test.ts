/**
 * The console's Convert page in a real browser against a local platform (dispatch on, live events):
 * a PNG chosen with the File input becomes a WEBP that sharp reads, with each task's progress bar at
 * 100 and a Download link; an option from discovery (webp's `quality`) typed on the page reaches the
 * job the page created; a corrupt file dropped on the page (a real drop event) shows the failed task's
 * message and code; a value the API refuses shows the API's 422 message naming the field. Every page
 * loads nothing from elsewhere, breaks no CSP rule and meets no 5xx.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { ElementHandle, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConsole, startConsoleHarness, type ConsoleHarness, type ConsolePage } from '../support/console.js';

let harness: ConsoleHarness;
beforeAll(async () => {
  harness = await startConsoleHarness({ dispatch: true });
}, 300_000);
afterAll(() => harness?.close());

interface TaskJson {
  name: string;
  operation: string;
  status: string;
  message: string | null;
  code: string | null;
  payload?: Record<string, unknown>;
}

/** A job as the API gives it to the platform's development key (the console's user). */
async function jobOf(id: string): Promise<{ id: string; status: string; tasks: TaskJson[] }> {
  const res = await fetch(`${harness.platform.baseUrl}/v2/jobs/${id}?include=payload`, { headers: { authorization: `Bearer ${harness.platform.apiKey}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { id: string; status: string; tasks: TaskJson[] } }).data;
}

/**
 * The input labelled File. Found in the DOM (puppeteer's ARIA query does not resolve a file input),
 * and checked to have that accessible name in the browser's accessibility tree.
 */
async function fileInput(page: Page): Promise<ElementHandle<HTMLInputElement>> {
  const input = (await page.waitForSelector('input[type="file"]')) as ElementHandle<HTMLInputElement>;
  expect((await page.accessibility.snapshot({ root: input, interestingOnly: false }))?.name).toBe('File');
  return input;
}

const byName = (page: Page, role: string, name: string) => page.waitForSelector(`::-p-aria([name="${name}"][role="${role}"])`);

/** The id of the job a page's link leads to (`/console/jobs/{id}`), once the job exists. */
async function jobIdOn(page: Page, file: string): Promise<string> {
  const link = await byName(page, 'link', `Job of ${file}`);
  const href = await link!.evaluate((a) => (a as HTMLAnchorElement).pathname);
  expect(href).toMatch(/^\/console\/jobs\/[A-Za-z0-9_-]+$/);
  return href.split('/').pop()!;
}

async function chooseOutput(page: Page, format: string): Promise<void> {
  const select = (await byName(page, 'combobox', 'Convert to')) as ElementHandle<HTMLSelectElement>;
  await page.waitForFunction((s, f) => [...s.options].some((o) => o.value === f), {}, select, format);
  await select.select(format);
}

async function expectClean(p: ConsolePage): Promise<void> {
  expect(await p.violations()).toEqual([]);
  expect(p.refused).toEqual([]);
  expect(p.serverErrors).toEqual([]);
}

describe('the Convert page', () => {
  it('converts a PNG chosen with the File input to WEBP, with live progress, the option typed on the page, and a Download link', async () => {
    const png = await sharp({ create: { width: 64, height: 40, channels: 3, background: { r: 200, g: 30, b: 90 } } })
      .png()
      .toBuffer();
    const dir = mkdtempSync(path.join(tmpdir(), 'console-convert-'));
    const p = await openConsole(harness);
    const { page } = p;
    try {
      const input = await fileInput(page);
      // uploadFile wants a path: the PNG in a temporary file of that name (read when the page uploads it).
      writeFileSync(path.join(dir, 'photo.png'), png);
      await input.uploadFile(path.join(dir, 'photo.png'));
      await chooseOutput(page, 'webp');
      // webp's options come from discovery: quality is one of them.
      const quality = (await byName(page, 'spinbutton', 'quality')) as ElementHandle<HTMLInputElement>;
      await quality.type('63');
      await (await byName(page, 'button', 'Convert'))!.click();

      const jobId = await jobIdOn(page, 'photo.png');
      const bar = (await byName(page, 'progressbar', 'convert: photo.png')) as ElementHandle<HTMLProgressElement>;
      await page.waitForFunction((b) => b.isConnected && b.value === 100, { timeout: 60_000 }, bar);
      for (const name of ['import/upload: photo.png', 'export/url: photo.png']) {
        const other = (await byName(page, 'progressbar', name)) as ElementHandle<HTMLProgressElement>;
        await page.waitForFunction((b) => b.value === 100, { timeout: 30_000 }, other);
      }
      const download = await byName(page, 'link', 'Download');
      const href = await download!.evaluate((a) => (a as HTMLAnchorElement).href);
      const res = await fetch(href);
      expect(res.status).toBe(200);
      const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
      expect(meta.format).toBe('webp');
      expect([meta.width, meta.height]).toEqual([64, 40]);

      const job = await jobOf(jobId);
      expect(job.status).toBe('finished');
      expect(job.tasks.map((t) => t.operation)).toEqual(['import/upload', 'convert', 'export/url']);
      const convert = job.tasks.find((t) => t.operation === 'convert')!;
      expect(convert.payload).toMatchObject({ input_format: 'png', output_format: 'webp', quality: 63 });
      await expectClean(p);
    } finally {
      await page.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("shows a failed conversion's message and code for a corrupt file dropped on the page", async () => {
    const p = await openConsole(harness);
    const { page } = p;
    try {
      await fileInput(page);
      // A file dropped beside the zone is refused (the browser would otherwise leave the page to show it) and not added.
      const beside = await page.evaluate(() => {
        const data = new DataTransfer();
        data.items.add(new File(['x'], 'beside.png'));
        const drop = new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true });
        document.querySelector('main h1')!.dispatchEvent(drop);
        return drop.defaultPrevented;
      });
      expect(beside).toBe(true);
      // A real drop: a DataTransfer holding the file, dispatched on the drop zone.
      await page.evaluate(() => {
        const zone = document.querySelector('[data-drop-zone]')!;
        const data = new DataTransfer();
        data.items.add(new File(['not a png'], 'broken.png', { type: 'image/png' }));
        for (const type of ['dragenter', 'dragover', 'drop']) zone.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
      });
      await chooseOutput(page, 'webp');
      expect(await page.$$('::-p-aria([name="Remove beside.png"][role="button"])')).toHaveLength(0);
      expect(await page.$$('::-p-aria([name="Remove broken.png"][role="button"])')).toHaveLength(1);
      await (await byName(page, 'button', 'Convert'))!.click();
      const jobId = await jobIdOn(page, 'broken.png');
      const alert = await page.waitForSelector('[role="alert"]', { timeout: 60_000 });
      const shown = await alert!.evaluate((a) => a.textContent ?? '');
      const failed = (await jobOf(jobId)).tasks.find((t) => t.status === 'error' && t.operation === 'convert')!;
      expect(failed.message).toBeTruthy();
      expect(shown).toContain(failed.message);
      expect(shown).toContain(failed.code);
      await expectClean(p);
    } finally {
      await page.close();
    }
  }, 120_000);

  it('converts several files of two formats dropped at once: one Convert to per format, one job and one named Download link per file', async () => {
    const image = (w: number, h: number) => sharp({ create: { width: w, height: h, channels: 3, background: { r: 20, g: 120, b: 220 } } });
    const files = [
      { name: 'one.png', base64: (await image(30, 20).png().toBuffer()).toString('base64') },
      { name: 'two.jpg', base64: (await image(24, 36).jpeg().toBuffer()).toString('base64') },
      { name: 'three.png', base64: (await image(12, 18).png().toBuffer()).toString('base64') },
    ];
    const p = await openConsole(harness);
    const { page } = p;
    try {
      await fileInput(page);
      await page.evaluate((list) => {
        const data = new DataTransfer();
        for (const f of list) data.items.add(new File([Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))], f.name));
        const zone = document.querySelector('[data-drop-zone]')!;
        for (const type of ['dragenter', 'dragover', 'drop']) zone.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
      }, files);
      for (const [input, output] of [
        ['PNG', 'webp'],
        ['JPG', 'avif'],
      ] as const) {
        const select = (await byName(page, 'combobox', `Convert to for the ${input} files`)) as ElementHandle<HTMLSelectElement>;
        await page.waitForFunction((s, f) => [...s.options].some((o) => o.value === f), {}, select, output);
        await select.select(output);
      }
      // With several groups no control is named plainly "Convert to".
      expect(await page.$$('::-p-aria([name="Convert to"][role="combobox"])')).toHaveLength(0);
      await (await byName(page, 'button', 'Convert'))!.click();
      const expected = { 'one.webp': ['webp', 30, 20], 'two.avif': ['heif', 24, 36], 'three.webp': ['webp', 12, 18] } as const;
      const ids = new Set<string>();
      for (const f of files) ids.add(await jobIdOn(page, f.name));
      expect(ids.size).toBe(3);
      for (const [output, [format, width, height]] of Object.entries(expected)) {
        const link = await page.waitForSelector(`::-p-aria([name="Download ${output}"][role="link"])`, { timeout: 60_000 });
        const res = await fetch(await link!.evaluate((a) => (a as HTMLAnchorElement).href));
        const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
        expect([meta.format, meta.width, meta.height], output).toEqual([format, width, height]);
      }
      expect(await page.$$('::-p-aria([name="Download"][role="link"])')).toHaveLength(0);
      await expectClean(p);
    } finally {
      await page.close();
    }
  }, 120_000);

  it('finishes by polling the job when no live event reaches the page', async () => {
    const p = await openConsole(harness);
    const { page } = p;
    try {
      // A WebSocket that never opens: the page's subscription is never heard, so only its polls can end the job.
      await page.evaluateOnNewDocument(() => {
        const tried: string[] = [];
        (window as unknown as { __sockets: string[] }).__sockets = tried;
        class Silent extends EventTarget {
          readyState = 0;
          constructor(readonly url: string) {
            super();
            tried.push(url);
          }
          send() {}
          close() {}
        }
        (window as unknown as { WebSocket: unknown }).WebSocket = Silent;
      });
      await page.reload({ waitUntil: 'networkidle0' });
      const png = await sharp({ create: { width: 16, height: 10, channels: 3, background: '#080' } })
        .png()
        .toBuffer();
      const input = await fileInput(page);
      await input.evaluate((i, base64) => {
        const data = new DataTransfer();
        data.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], 'quiet.png'));
        i.files = data.files;
        i.dispatchEvent(new Event('change', { bubbles: true }));
      }, png.toString('base64'));
      await chooseOutput(page, 'webp');
      await (await byName(page, 'button', 'Convert'))!.click();
      const link = await page.waitForSelector('::-p-aria([name="Download"][role="link"])', { timeout: 60_000 });
      const bar = (await byName(page, 'progressbar', 'convert: quiet.png')) as ElementHandle<HTMLProgressElement>;
      expect(await bar.evaluate((b) => b.value)).toBe(100);
      const meta = await sharp(Buffer.from(await (await fetch(await link!.evaluate((a) => (a as HTMLAnchorElement).href))).arrayBuffer())).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['webp', 16, 10]);
      // The page did try its live events (so the polls were the fallback, not the only way it knows).
      expect(await page.evaluate(() => (window as unknown as { __sockets: string[] }).__sockets.length)).toBeGreaterThan(0);
      await expectClean(p);
    } finally {
      await page.close();
    }
  }, 120_000);

  it("shows the API's message naming the field when the job is refused (422), the job asked for from the keyboard", async () => {
    const p = await openConsole(harness);
    const { page } = p;
    try {
      const input = await fileInput(page);
      await input.evaluate((i) => {
        const data = new DataTransfer();
        data.items.add(new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'refused.png', { type: 'image/png' }));
        i.files = data.files;
        i.dispatchEvent(new Event('change', { bubbles: true }));
      });
      await chooseOutput(page, 'webp');
      await (await byName(page, 'spinbutton', 'quality'))!.type('1000');
      const created = page.waitForResponse((r) => r.url().endsWith('/v2/jobs') && r.request().method() === 'POST');
      // From the keyboard: Enter in the option's field submits the page's form, as Convert does.
      await page.keyboard.press('Enter');
      const answer = await created;
      expect(answer.status()).toBe(422);
      const { message } = (await answer.json()) as { message: string };
      const alert = await page.waitForSelector('[role="alert"]');
      const shown = await alert!.evaluate((a) => a.textContent ?? '');
      expect(shown).toContain(message);
      expect(shown).toContain('quality');
      await expectClean(p);
    } finally {
      await page.close();
    }
  }, 120_000);
});
