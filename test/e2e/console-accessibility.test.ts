/**
 * The console's accessibility in a real browser against a local platform (dispatch on): every page
 * (Convert before and after a conversion, Jobs, a finished job's page, the Job builder with two tasks,
 * Account) audited by axe-core with the WCAG 2.0 A/AA, 2.1 A/AA and 2.2 AA rules (colour contrast
 * included) in both the light and the dark colour scheme; a keyboard-only walk (the skip link first,
 * the whole Convert flow without the mouse, a visible focus on every control tabbed to, the navigation
 * moving focus to the new page's heading); and the live regions (progress and finish announced through
 * role=status, a failed task's message and code as role=alert, audited too).
 *
 * axe's source is evaluated through the DevTools protocol (puppeteer's page.evaluate), which the page's
 * Content-Security-Policy does not govern: no <script> is added and the policy is neither weakened nor
 * bypassed; every page still records and fails on any CSP violation.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { ElementHandle, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConsole, startConsoleHarness, type ConsoleHarness, type ConsolePage } from '../support/console.js';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
const SCHEMES = ['light', 'dark'] as const;

let harness: ConsoleHarness;
beforeAll(async () => {
  harness = await startConsoleHarness({ dispatch: true });
}, 300_000);
afterAll(() => harness?.close());

interface Violation {
  id: string;
  impact: string | null;
  nodes: Array<{ target: unknown[] }>;
}

/** axe's violations on the page as it is now, in the given colour scheme. */
async function audit(page: Page, scheme: (typeof SCHEMES)[number]): Promise<Violation[]> {
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
  expect(await page.evaluate((s) => matchMedia(`(prefers-color-scheme: ${s})`).matches, scheme)).toBe(true);
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (tags) => {
    const axe = (window as unknown as { axe: { run(ctx: Document, o: unknown): Promise<{ violations: Violation[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  }, WCAG_TAGS);
}

const describeViolations = (found: Violation[]) =>
  found.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`).join('\n');

/**
 * The page audited in both schemes; each violation found is added to `failures` as a line naming the
 * page, the scheme, the rule, its impact and the elements (a test asserts the list empty at its end,
 * so that one run reports every page).
 */
async function auditBoth(page: Page, label: string, failures: string[]): Promise<void> {
  for (const scheme of SCHEMES) {
    const found = await audit(page, scheme);
    if (found.length) failures.push(`${label} (${scheme}):\n${describeViolations(found)}`);
  }
  await page.emulateMediaFeatures([]);
}

async function expectClean(c: ConsolePage): Promise<void> {
  expect(await c.violations()).toEqual([]);
  expect(c.refused).toEqual([]);
  expect(c.serverErrors).toEqual([]);
}

const aria = (name: string, role: string) => `::-p-aria([name="${name}"][role="${role}"])`;

async function api<T>(method: string, route: string, body?: unknown): Promise<T> {
  const res = await fetch(`${harness.platform.baseUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${harness.platform.apiKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status).toBeLessThan(300);
  return (await res.json()) as T;
}

const pngOf = () =>
  sharp({ create: { width: 48, height: 32, channels: 3, background: { r: 30, g: 140, b: 200 } } })
    .png()
    .toBuffer();

/** What the focused element is: its tag, role, accessible text and whether its focus is drawn. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { tag: 'body', text: '', type: '', inMain: false, visible: false, id: '', contrast: 0 };
    const style = getComputedStyle(el);
    const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
    const shadow = style.boxShadow !== 'none' && style.boxShadow !== '';
    // WCAG 1.4.11: the outline (drawn outside the element) contrasts 3:1 with the background around it.
    const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = (c: string) => {
      const [r, g, b] = rgb(c).map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    let around = el.parentElement;
    while (around && (rgb(getComputedStyle(around).backgroundColor)[3] ?? 1) === 0) around = around.parentElement;
    const behind = around ? getComputedStyle(around).backgroundColor : 'rgb(255, 255, 255)';
    const [hi, lo] = [luminance(style.outlineColor), luminance(behind)].sort((a, b) => b - a);
    const contrast = (hi! + 0.05) / (lo! + 0.05);
    return {
      tag: el.tagName.toLowerCase(),
      text: (el.getAttribute('aria-label') ?? el.textContent ?? '').trim(),
      type: el.getAttribute('type') ?? '',
      id: el.id,
      inMain: !!el.closest('main'),
      visible: el.matches(':focus-visible') && (outline || shadow),
      contrast: outline ? Math.round(contrast * 100) / 100 : 0,
    };
  });

type Focused = Awaited<ReturnType<typeof focused>>;

/** Tab (forwards) until `want` holds for the focused element; every element passed shows its focus. */
async function tabTo(page: Page, want: (f: Focused) => boolean, passed: Focused[], limit = 80): Promise<Focused> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    const now = await focused(page);
    passed.push(now);
    if (want(now)) return now;
  }
  throw new Error(`Tab never reached the element; passed: ${passed.map((p) => `${p.tag} ${p.text}`).join(' | ')}`);
}

/** A finished PNG → WEBP job of the development key, made through the API. */
async function finishedJob(): Promise<string> {
  const made = await api<{ data: { id: string } }>('POST', '/v2/jobs', {
    tag: 'a11y',
    tasks: {
      file: { operation: 'import/base64', file: (await pngOf()).toString('base64'), filename: 'sky.png' },
      convert: { operation: 'convert', input: 'file', input_format: 'png', output_format: 'webp' },
      out: { operation: 'export/url', input: 'convert' },
    },
  });
  const done = await api<{ data: { status: string } }>('GET', `/v2/jobs/${made.data.id}/wait`);
  expect(done.data.status).toBe('finished');
  return made.data.id;
}

async function addBuilderTasks(page: Page): Promise<void> {
  for (const operation of ['import/url', 'convert']) {
    const select = await page.waitForSelector(`${aria('Operation', 'combobox')}:not([disabled])`);
    await select!.select(operation);
    await page.locator(aria('Add task', 'button')).click();
  }
  await page.waitForSelector('#task-2');
}

describe('the console’s accessibility', () => {
  it('Jobs, a finished job’s page, the Job builder with two tasks and Account pass axe’s WCAG 2.2 AA rules in light and dark', async () => {
    const jobId = await finishedJob();
    const failures: string[] = [];

    const jobs = await openConsole(harness, '/console/jobs');
    try {
      await jobs.page.locator(aria('Jobs', 'table')).wait();
      await jobs.page.waitForFunction(() => document.querySelector('table[aria-label="Jobs"] tbody')?.textContent?.includes('a11y'));
      await auditBoth(jobs.page, '/console/jobs', failures);
      await expectClean(jobs);
    } finally {
      await jobs.page.close();
    }

    const job = await openConsole(harness, `/console/jobs/${jobId}`);
    try {
      await job.page.waitForFunction(() => document.querySelector('main h1')?.textContent?.startsWith('Job ') && document.querySelector('ol[aria-label="Tasks"] li'));
      await auditBoth(job.page, '/console/jobs/{id}', failures);
      await expectClean(job);
    } finally {
      await job.page.close();
    }

    const builder = await openConsole(harness, '/console/builder');
    try {
      const { page } = builder;
      await addBuilderTasks(page);
      await auditBoth(page, '/console/builder', failures);
      await expectClean(builder);
    } finally {
      await builder.page.close();
    }

    const account = await openConsole(harness, '/console/account');
    try {
      await account.page.locator(aria('Create key', 'button')).wait();
      await auditBoth(account.page, '/console/account', failures);
      await expectClean(account);
    } finally {
      await account.page.close();
    }
    expect(failures.join('\n\n'), 'axe found violations').toBe('');
  }, 240_000);

  it('converts with the keyboard alone: the skip link first, a visible focus throughout, progress announced, then the links move focus to each page’s heading', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'console-a11y-'));
    writeFileSync(path.join(dir, 'sea.png'), await pngOf());
    const c = await openConsole(harness);
    const { page } = c;
    try {
      await page.locator('input[type="file"]').wait();
      const failures: string[] = [];
      await auditBoth(page, '/console', failures);
      const passed: Focused[] = [];
      // The walk in the light scheme; the navigation at its end in the dark one.
      await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);

      // From the top of the page, the first Tab reaches the skip link; following it focuses the page's content.
      await page.keyboard.press('Tab');
      const skip = await focused(page);
      passed.push(skip);
      expect(skip).toMatchObject({ tag: 'a', text: 'Skip to the page', visible: true });
      await page.keyboard.press('Enter');
      expect(await page.evaluate(() => document.activeElement?.closest('main') !== null)).toBe(true);

      // Convert with nothing chosen: the error is an alert.
      await tabTo(page, (f) => f.tag === 'button' && f.text === 'Convert', passed);
      await page.keyboard.press('Enter');
      const alert = await page.waitForSelector('main [role="alert"]');
      expect(await alert!.evaluate((a) => a.textContent)).toContain('Choose a file');

      // The file input, reached with Tab from the content's start (Shift+Tab back to it from the button).
      for (let i = 0; i < 10 && (await focused(page)).type !== 'file'; i++) {
        await page.keyboard.down('Shift');
        await page.keyboard.press('Tab');
        await page.keyboard.up('Shift');
      }
      const fileFocus = await focused(page);
      expect(fileFocus).toMatchObject({ tag: 'input', type: 'file', visible: true });
      const input = (await page.$('input[type="file"]')) as ElementHandle<HTMLInputElement>;
      expect(await input.evaluate((i) => i === document.activeElement)).toBe(true);
      await input.uploadFile(path.join(dir, 'sea.png'));

      // The output picked with the arrow keys on the focused "Convert to".
      await page.locator(aria('Convert to', 'combobox')).wait();
      await page.waitForFunction(() => [...document.querySelectorAll<HTMLOptionElement>('select option')].some((o) => o.value === 'webp'));
      await tabTo(page, (f) => f.tag === 'select', passed);
      for (let i = 0; i < 200 && (await page.evaluate(() => (document.activeElement as HTMLSelectElement).value)) !== 'webp'; i++) await page.keyboard.press('ArrowDown');
      expect(await page.evaluate(() => (document.activeElement as HTMLSelectElement).value)).toBe('webp');

      // Every announcement of the file's role=status region, from the moment Convert is pressed.
      await page.evaluate(() => {
        const seen: string[] = [];
        (window as unknown as { __status: string[] }).__status = seen;
        new MutationObserver(() => {
          const text = [...document.querySelectorAll('.convert-file [role="status"]')].map((s) => s.textContent ?? '').join(' | ');
          if (text && seen[seen.length - 1] !== text) seen.push(text);
        }).observe(document.querySelector('main')!, { subtree: true, childList: true, characterData: true });
      });
      await tabTo(page, (f) => f.tag === 'button' && f.text === 'Convert', passed);
      await page.keyboard.press('Enter');

      const bar = (await page.waitForSelector(aria('convert: sea.png', 'progressbar'))) as ElementHandle<HTMLProgressElement>;
      await page.waitForFunction((b) => b.value === 100, { timeout: 60_000 }, bar);
      const download = await page.waitForSelector(aria('Download', 'link'), { timeout: 60_000 });
      const res = await fetch(await download!.evaluate((a) => (a as HTMLAnchorElement).href));
      expect((await sharp(Buffer.from(await res.arrayBuffer())).metadata()).format).toBe('webp');
      const statuses = await page.evaluate(() => (window as unknown as { __status: string[] }).__status);
      expect(statuses.length).toBeGreaterThan(1);
      expect(statuses[statuses.length - 1]).toBe('Finished.');
      expect(new Set(statuses).size).toBeGreaterThan(1);
      expect(await page.$$('main [role="alert"]')).toHaveLength(0);
      await auditBoth(page, '/console after a conversion', failures);
      await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);

      // Tab on to the Download link, then round to the navigation; each link moves focus to the new page's h1.
      await tabTo(page, (f) => f.tag === 'a' && f.text.startsWith('Download'), passed);
      for (const [link, heading] of [
        ['Jobs', 'Jobs'],
        ['Job builder', 'Job builder'],
        ['Account', 'Account'],
        ['Convert', 'Convert'],
      ] as const) {
        await tabTo(page, (f) => f.tag === 'a' && !f.inMain && f.text === link, passed);
        await page.keyboard.press('Enter');
        await page.waitForFunction((h) => document.activeElement?.tagName === 'H1' && document.activeElement.closest('main') && document.activeElement.textContent?.startsWith(h), {}, heading);
      }

      const hidden = passed.filter((f) => f.tag !== 'body' && (!f.visible || f.contrast < 3));
      expect(hidden, `focus not visible (or its outline under 3:1) on: ${hidden.map((h) => `${h.tag}#${h.id} ${h.text} ${h.contrast}`).join(', ')}`).toEqual([]);
      expect(failures.join('\n\n'), 'axe found violations').toBe('');
      await expectClean(c);
    } finally {
      await page.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);

  it('every control of Jobs, a job’s page, the builder and Account is reached with Tab and shows a focus outline of 3:1 or more, light and dark', async () => {
    const jobId = await finishedJob();
    const pages: Array<[string, (page: Page) => Promise<unknown>]> = [
      ['/console/jobs', (page) => page.waitForFunction(() => document.querySelector('table[aria-label="Jobs"] tbody')?.textContent?.includes('a11y'))],
      [`/console/jobs/${jobId}`, (page) => page.waitForSelector('ol[aria-label="Tasks"] li')],
      ['/console/builder', addBuilderTasks],
      ['/console/account', (page) => page.locator(aria('Create key', 'button')).wait()],
    ];
    const weak: string[] = [];
    for (const [to, ready] of pages) {
      const c = await openConsole(harness, to);
      try {
        await ready(c.page);
        for (const scheme of SCHEMES) {
          await c.page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
          // Back to the top of the page: the skip link, then Shift+Tab out of the page before it.
          await c.page.evaluate(() => document.querySelector<HTMLElement>('a.skip')?.focus());
          await c.page.keyboard.down('Shift');
          await c.page.keyboard.press('Tab');
          await c.page.keyboard.up('Shift');
          const seen: Focused[] = [];
          // Round the page once: from the skip link until the focus leaves the page or comes back to it.
          for (let i = 0; i < 400; i++) {
            await c.page.keyboard.press('Tab');
            const now = await focused(c.page);
            if (now.tag === 'body' || (seen.length > 0 && now.text === 'Skip to the page')) break;
            seen.push(now);
          }
          expect(seen[0]?.text, `${to}: the first Tab`).toBe('Skip to the page');
          expect(seen.length, `${to}: controls reached`).toBeGreaterThan(6);
          for (const f of seen) if (!f.visible || f.contrast < 3) weak.push(`${to} (${scheme}): ${f.tag}#${f.id} "${f.text.slice(0, 40)}" contrast ${f.contrast}`);
        }
        await expectClean(c);
      } finally {
        await c.page.close();
      }
    }
    expect(weak, weak.join('\n')).toEqual([]);
  }, 240_000);

  it('a failed conversion is announced: the file’s status says Failed. and the task’s message and code are an alert', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'console-a11y-bad-'));
    writeFileSync(path.join(dir, 'bad.png'), 'this is not a PNG');
    const c = await openConsole(harness);
    const { page } = c;
    try {
      const input = (await page.waitForSelector('input[type="file"]')) as ElementHandle<HTMLInputElement>;
      await input.uploadFile(path.join(dir, 'bad.png'));
      const select = (await page.waitForSelector(aria('Convert to', 'combobox'))) as ElementHandle<HTMLSelectElement>;
      await page.waitForFunction((el) => [...el.options].some((o) => o.value === 'webp'), {}, select);
      await select.select('webp');
      await (await page.waitForSelector(aria('Convert', 'button')))!.focus();
      await page.keyboard.press('Enter');
      const link = await page.waitForSelector(aria('Job of bad.png', 'link'));
      const jobId = (await link!.evaluate((a) => (a as HTMLAnchorElement).pathname)).split('/').pop()!;
      const alert = await page.waitForSelector('.convert-file [role="alert"]', { timeout: 60_000 });
      const job = await api<{ data: { tasks: Array<{ operation: string; status: string; message: string; code: string }> } }>('GET', `/v2/jobs/${jobId}`);
      const failed = job.data.tasks.find((t) => t.status === 'error' && t.operation === 'convert')!;
      const said = await alert!.evaluate((a) => a.textContent ?? '');
      expect(said).toContain(failed.message);
      expect(said).toContain(failed.code);
      expect(await page.$eval('.convert-file [role="status"]', (s) => s.textContent)).toBe('Failed.');
      // The error's colours meet the contrast rules too.
      const failures: string[] = [];
      await auditBoth(page, '/console with a failed conversion', failures);
      expect(failures.join('\n\n'), 'axe found violations').toBe('');
      await expectClean(c);
    } finally {
      await page.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
