/**
 * The console's job builder in a real browser: import/url (a PNG a local server serves) → thumbnail
 * (webp, 64 × 48) → export/url built on the page from discovery's forms, run and followed until the
 * result downloads (sharp reads it at the asked size); then the page's Node.js code, run with `node`
 * and the official SDK, makes the same file, and its curl code creates a job. No CSP violation,
 * nothing from elsewhere, no 5xx.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ElementHandle, Page } from 'puppeteer-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConsole, startConsoleHarness, type ConsoleHarness, type ConsolePage } from '../support/console.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

let harness: ConsoleHarness;
let server: Server;
let pngUrl: string;

beforeAll(async () => {
  const png = await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 200, g: 40, b: 90 } } })
    .png()
    .toBuffer();
  server = createServer((req, res) => {
    if (req.url !== '/source.png') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  pngUrl = `http://127.0.0.1:${port}/source.png`;
  harness = await startConsoleHarness({ env: { LOG_LEVEL: 'warn', FETCH_ALLOW_HOSTS: `127.0.0.1:${port}` } });
}, 300_000);
afterAll(async () => {
  await harness?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** Python that parses a script (without running it) and prints the `payload=` it passes, as JSON. */
const PAYLOAD_OF = [
  'import ast, json, sys',
  'tree = ast.parse(open(sys.argv[1]).read())',
  "payload = next(k.value for k in ast.walk(tree) if isinstance(k, ast.keyword) and k.arg == 'payload')",
  'print(json.dumps(ast.literal_eval(payload)))',
].join('\n');

const aria = (name: string, role: string) => `::-p-aria([name="${name}"][role="${role}"])`;

async function within(page: Page, fieldsetId: string, name: string, role: string): Promise<ElementHandle<Element>> {
  const fieldset = await page.waitForSelector(`#${fieldsetId}`);
  const control = await fieldset!.waitForSelector(aria(name, role));
  return control!;
}

async function addTask(page: Page, operation: string): Promise<void> {
  const select = await page.waitForSelector(`${aria('Operation', 'combobox')}:not([disabled])`);
  await select!.select(operation);
  await page.locator(aria('Add task', 'button')).click();
}

async function typeInto(control: ElementHandle<Element>, text: string): Promise<void> {
  await control.click({ count: 3 });
  await control.type(text);
}

/** No CSP violation, no request off the machine, no 5xx answer. */
async function expectClean(opened: ConsolePage): Promise<void> {
  expect(await opened.violations()).toEqual([]);
  expect(opened.refused).toEqual([]);
  expect(opened.serverErrors).toEqual([]);
}

/** The size and format sharp reads from a downloaded file. */
async function imageAt(url: string): Promise<{ format?: string; width?: number; height?: number }> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
  return { format: meta.format, width: meta.width, height: meta.height };
}

describe('the job builder', () => {
  it('builds import/url → thumbnail → export/url, runs it, and its Node.js and curl code do the same', async () => {
    const opened = await openConsole(harness, '/console/builder');
    const { page } = opened;
    const temp = mkdtempSync(path.join(ROOT, '.builder-e2e-'));
    try {
      await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Job builder');

      await addTask(page, 'import/url');
      await typeInto(await within(page, 'task-1', 'url', 'textbox'), pngUrl);

      await addTask(page, 'thumbnail');
      const input = await within(page, 'task-2', 'import-1', 'checkbox');
      expect(await input.evaluate((c) => (c as HTMLInputElement).checked)).toBe(true);
      await (await within(page, 'task-2', 'Input format', 'combobox')).select('png');
      await (await within(page, 'task-2', 'Output format', 'combobox')).select('webp');
      await typeInto(await within(page, 'task-2', 'width', 'spinbutton'), '64');
      await typeInto(await within(page, 'task-2', 'height', 'spinbutton'), '48');

      await addTask(page, 'export/url');
      await within(page, 'task-3', 'thumbnail-1', 'checkbox');

      const expected = {
        tasks: {
          'import-1': { operation: 'import/url', url: pngUrl },
          'thumbnail-1': { operation: 'thumbnail', input: 'import-1', input_format: 'png', output_format: 'webp', width: 64, height: 48 },
          'export-1': { operation: 'export/url', input: 'thumbnail-1' },
        },
      };
      const shown = await page.$eval('pre[aria-label="Job JSON"]', (pre) => pre.textContent ?? '');
      expect(JSON.parse(shown)).toEqual(expected);

      // Run it on the page and follow it to the end.
      await page.locator(aria('Run job', 'button')).click();
      await page.waitForFunction(() => [...document.querySelectorAll('a')].some((a) => a.textContent === 'Download'), { timeout: 120_000 });
      const bar = await page.waitForSelector(aria('thumbnail-1 progress', 'progressbar'));
      expect(await bar!.evaluate((p) => (p as HTMLProgressElement).value)).toBe(100);
      const download = await page.$eval(aria('Download', 'link'), (a) => (a as HTMLAnchorElement).href);
      const onPage = await imageAt(download);
      expect(onPage).toEqual({ format: 'webp', width: 64, height: 48 });
      const jobLink = await page.$eval(aria("Open the job's page", 'link'), (a) => (a as HTMLAnchorElement).pathname);
      expect(jobLink).toMatch(/^\/console\/jobs\/[A-Za-z0-9_-]+$/);

      // The code tabs: a tablist the arrow keys move through.
      const curlTab = await page.waitForSelector(aria('curl', 'tab'));
      expect(await curlTab!.evaluate((t) => t.getAttribute('aria-selected'))).toBe('true');
      await curlTab!.focus();
      await page.keyboard.press('ArrowRight');
      const nodeTab = await page.waitForSelector(`${aria('Node.js', 'tab')}[aria-selected="true"]`);
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Node.js');
      const panelOf = (tab: ElementHandle<Element>) =>
        tab.evaluate((t) => document.getElementById(t.getAttribute('aria-controls')!)!.querySelector('pre')!.textContent ?? '');
      const nodeCode = await panelOf(nodeTab!);
      expect(nodeCode).not.toContain(harness.platform.apiKey);
      // Copy puts the same text on the clipboard.
      await page.browserContext().overridePermissions(new URL(page.url()).origin, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
      await page.locator(aria('Copy the Node.js code', 'button')).click();
      await page.waitForFunction(() => [...document.querySelectorAll('[role=status]')].some((s) => s.textContent === 'The Node.js code is copied.'));
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(nodeCode);
      await nodeTab!.focus();

      const script = path.join(temp, 'job.mjs');
      writeFileSync(script, nodeCode);
      const node = await run(process.execPath, [script], { env: { ...process.env, CLOUDCONVERT_API_KEY: harness.platform.apiKey }, timeout: 120_000 });
      const urls = node.stdout.trim().split('\n');
      expect(urls).toHaveLength(1);
      expect(await imageAt(urls[0]!)).toEqual(onPage);

      // curl: the ArrowLeft from Node.js goes back to it.
      await page.keyboard.press('ArrowLeft');
      const curl = await page.waitForSelector(`${aria('curl', 'tab')}[aria-selected="true"]`);
      const curlCode = await panelOf(curl!);
      if (await run('curl', ['--version']).then(() => true, () => false)) {
        const created = await run('sh', ['-c', curlCode], { env: { ...process.env, CLOUDCONVERT_API_KEY: harness.platform.apiKey }, timeout: 60_000 });
        const job = (JSON.parse(created.stdout) as { data: { id: string; tasks: Array<{ name: string }> } }).data;
        expect(job.tasks.map((t) => t.name).sort()).toEqual(['export-1', 'import-1', 'thumbnail-1']);
        const again = await fetch(`${harness.platform.baseUrl}/v2/jobs/${job.id}`, { headers: { authorization: `Bearer ${harness.platform.apiKey}` } });
        expect(again.status).toBe(200);
      }

      // Python (End reaches the last tab): valid Python whose payload is the job, where python3 is
      // installed; run with the SDK where CLOUDCONVERT_PYTHON_SDK names a folder holding its package.
      await page.keyboard.press('End');
      const pythonTab = await page.waitForSelector(`${aria('Python', 'tab')}[aria-selected="true"]`);
      const pythonCode = await panelOf(pythonTab!);
      const pyScript = path.join(temp, 'job.py');
      writeFileSync(pyScript, pythonCode);
      if (await run('python3', ['--version']).then(() => true, () => false)) {
        const payload = await run('python3', ['-c', PAYLOAD_OF, pyScript]);
        expect(JSON.parse(payload.stdout)).toEqual(expected);
      }
      const sdk = process.env.CLOUDCONVERT_PYTHON_SDK;
      if (sdk) {
        const py = await run('python3', [pyScript], { env: { ...process.env, PYTHONPATH: sdk, CLOUDCONVERT_API_KEY: harness.platform.apiKey }, timeout: 120_000 });
        const pyUrls = py.stdout.trim().split('\n');
        expect(pyUrls).toHaveLength(1);
        expect(await imageAt(pyUrls[0]!)).toEqual(onPage);
      }

      await expectClean(opened);
    } finally {
      rmSync(temp, { recursive: true, force: true });
      await page.close();
    }
  });

  it('runs a job with an import/upload: the run shows a file input for it, and the upload converts', async () => {
    const opened = await openConsole(harness, '/console/builder');
    const { page } = opened;
    const temp = mkdtempSync(path.join(tmpdir(), 'builder-upload-'));
    try {
      await addTask(page, 'import/upload');
      await addTask(page, 'convert');
      await (await within(page, 'task-2', 'Input format', 'combobox')).select('png');
      await (await within(page, 'task-2', 'Output format', 'combobox')).select('webp');
      await addTask(page, 'export/url');
      await page.locator(aria('Run job', 'button')).click();

      const file = path.join(temp, 'upload.png');
      writeFileSync(file, await sharp({ create: { width: 40, height: 30, channels: 3, background: '#123456' } }).png().toBuffer());
      const input = (await page.waitForSelector('.run-tasks input[type=file]', { timeout: 60_000 })) as ElementHandle<HTMLInputElement>;
      expect(await input.evaluate((i) => i.labels?.[0]?.textContent)).toBe('File for import-1');
      await input.uploadFile(file);
      await page.waitForSelector(aria('Download', 'link'), { timeout: 120_000 });
      const download = await page.$eval(aria('Download', 'link'), (a) => (a as HTMLAnchorElement).href);
      expect(await imageAt(download)).toEqual({ format: 'webp', width: 40, height: 30 });

      await expectClean(opened);
    } finally {
      rmSync(temp, { recursive: true, force: true });
      await page.close();
    }
  });

  it('shows a taken name as an error and refuses to run until it is fixed; the API says why a job is wrong', async () => {
    const opened = await openConsole(harness, '/console/builder');
    const { page } = opened;
    try {
      await addTask(page, 'import/url');
      await addTask(page, 'export/url');
      const name = await within(page, 'task-2', 'Name', 'textbox');
      await typeInto(name, 'import-1');
      await page.waitForSelector('#task-2 [role="alert"]');
      expect(await page.$eval('#task-2 [role="alert"]', (e) => e.textContent)).toBe('Another task is named import-1.');
      expect(await page.$eval(aria('Run job', 'button'), (b) => (b as HTMLButtonElement).disabled)).toBe(true);
      await typeInto(name, 'out');
      await page.waitForFunction(() => !document.querySelector('#task-2 [role="alert"]'));
      // import/url without its url: the API's 422 names the field.
      await page.locator(`${aria('Run job', 'button')}:not([disabled])`).click();
      const alert = await page.waitForSelector('section [role="alert"].error');
      expect(await alert!.evaluate((e) => e.textContent)).toMatch(/not created.*url/s);

      // A URL the server does not have: the job runs, and the import's message shows in words.
      await typeInto(await within(page, 'task-1', 'url', 'textbox'), pngUrl.replace('source.png', 'missing.png'));
      await page.locator(`${aria('Run job', 'button')}:not([disabled])`).click();
      const failed = await page.waitForSelector('.run-tasks [role="alert"]', { timeout: 60_000 });
      const message = await failed!.evaluate((e) => e.textContent ?? '');
      expect(message).toMatch(/^import-1: \S/);
      expect(message).toMatch(/404/);

      // The job being built outlives a reload of the tab; moving keeps the keyboard on the task.
      await page.reload({ waitUntil: 'networkidle0' });
      const kept = await within(page, 'task-2', 'Name', 'textbox');
      expect(await kept.evaluate((i) => (i as HTMLInputElement).value)).toBe('out');
      await page.locator(aria('Move out up', 'button')).click();
      await page.waitForFunction(() => document.querySelector('fieldset.builder-task legend')?.textContent?.includes('out'));
      // The focus moves once the page has drawn the new order (a task after the render).
      await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Move out down', { timeout: 5_000 }).catch(() => {});
      expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Move out down');
      await page.locator(aria('Start over', 'button')).click();
      await page.waitForFunction(() => !document.querySelector('fieldset.builder-task'));

      await expectClean(opened);
    } finally {
      await page.close();
    }
  });
});
