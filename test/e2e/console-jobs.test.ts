/**
 * The console's Jobs table and a job's page in a real browser, against a platform that runs jobs
 * (dispatch on): jobs made through the API with the dev key (user 1, the user the console signs in
 * as) appear in the table with their final status without a reload; a failed job's page shows its
 * task's message, retries a failed task where the API allows it and deletes the job (then the API
 * answers 404); another user's job is "No such job" and never in the table. No CSP violation, nothing
 * refused, no 5xx.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'puppeteer-core';
import { Accounts } from '#lib/access/auth/accounts.js';
import { ApiKeys } from '#lib/access/auth/keys.js';
import { SCOPES } from '#lib/access/auth/scopes.js';
import { SocketConnections } from '#lib/file-api/events/connections.js';
import { openConsole, startConsoleHarness, type ConsoleHarness, type ConsolePage } from '../support/console.js';
import { callApi } from '../support/file-api.js';
import { platformState } from '../support/platform-state.js';
import { recorded } from '../support/sockets.js';

interface Task {
  id: string;
  name: string;
  operation: string;
  status: string;
  message: string | null;
  retry_of_task_id: string | null;
  payload?: unknown;
}
interface Job {
  id: string;
  tag: string | null;
  status: string;
  tasks: Task[];
}

let harness: ConsoleHarness;
let connections: SocketConnections;
let otherKey: string;

beforeAll(async () => {
  harness = await startConsoleHarness();
  const state = platformState(harness.platform);
  connections = new SocketConnections(state);
  // A second user, made as `npm run users -- create` makes one, with a key as `npm run keys` gives.
  const accounts = new Accounts(state, { username: 'local', email: 'local@example.com', credits: 'unlimited' });
  const { user } = await accounts.create({ email: 'other@example.com', username: 'other', password: 'other-password-123456' });
  otherKey = (await new ApiKeys(state).create({ scopes: [...SCOPES], name: 'other user', userId: user.id })).key;
}, 300_000);
afterAll(() => harness?.close());

const api = <T = unknown>(key: string, method: string, route: string, body?: unknown) => callApi<T>(harness.platform.baseUrl, key, method, route, body);
const mine = <T = unknown>(method: string, route: string, body?: unknown) => api<T>(harness.platform.apiKey, method, route, body);

const convertJob = (tag: string, png: Buffer, filename: string) => ({
  tag,
  tasks: {
    file: { operation: 'import/base64', file: png.toString('base64'), filename },
    convert: { operation: 'convert', input: 'file', input_format: 'png', output_format: 'webp' },
    out: { operation: 'export/url', input: 'convert' },
  },
});

/** The cells of the Jobs table's row whose first cell is `label`, or null while there is none. */
const rowOf = (page: Page, label: string) =>
  page.evaluate((l) => {
    const table = document.querySelector('table[aria-label="Jobs"]');
    const row = [...(table?.querySelectorAll('tbody tr') ?? [])].find((r) => r.querySelector('td, th')?.textContent?.trim() === l);
    return row ? [...row.querySelectorAll('td, th')].map((c) => c.textContent?.trim() ?? '') : null;
  }, label);

async function expectClean(c: ConsolePage): Promise<void> {
  expect(await c.violations()).toEqual([]);
  expect(c.refused).toEqual([]);
  expect(c.serverErrors).toEqual([]);
}

describe('the console’s jobs', () => {
  let failedJobId: string;

  it('the Jobs table shows new jobs with their final status live, without a reload', async () => {
    const c = await openConsole(harness, '/console/jobs');
    const { page } = c;
    try {
      await page.locator('::-p-aria([name="Jobs"][role="table"])').wait();
      await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
      // The page's subscriptions take effect once recorded (the protocol has no acknowledgement).
      await recorded(connections, 1, 'private-user.1.jobs');
      await recorded(connections, 1, 'private-user.1.tasks');

      const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366cc' } }).png().toBuffer();
      const good = await mine<{ data: Job }>('POST', '/v2/jobs', convertJob('console-good', png, 'blue.png'));
      const bad = await mine<{ data: Job }>('POST', '/v2/jobs', convertJob('console-broken', Buffer.from('this is not a PNG at all'), 'broken.png'));
      expect(good.status).toBe(201);
      expect(bad.status).toBe(201);
      failedJobId = bad.body!.data.id;

      await page.waitForFunction(
        () => {
          const rows = [...document.querySelectorAll('table[aria-label="Jobs"] tbody tr')].map((r) => r.textContent ?? '');
          return rows.some((r) => r.includes('console-good') && r.includes('finished')) && rows.some((r) => r.includes('console-broken') && r.includes('error'));
        },
        { timeout: 60_000 },
      );
      expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);

      // The rows say what the API says: status, operations, engines, a duration and credits.
      const goodJob = (await mine<{ data: Job }>('GET', `/v2/jobs/${good.body!.data.id}`)).body!.data;
      expect(goodJob.status).toBe('finished');
      const goodRow = (await rowOf(page, 'console-good'))!;
      expect(goodRow[1]).toBe('finished');
      expect(goodRow[2]).toBe('import/base64, convert, export/url');
      const engines = [...new Set(goodJob.tasks.map((t) => (t as unknown as { engine: string | null }).engine).filter(Boolean))];
      expect(engines.length).toBeGreaterThan(0);
      for (const engine of engines) expect(goodRow[3]).toContain(engine);
      expect(goodRow[5]).toMatch(/\d/);
      const credits = goodJob.tasks.reduce((sum, t) => sum + ((t as unknown as { credits: number | null }).credits ?? 0), 0);
      expect(goodRow[6]).toBe(String(credits));
      expect((await rowOf(page, 'console-broken'))![1]).toBe('error');
      // Newest first.
      const order = await page.$$eval('table[aria-label="Jobs"] tbody tr', (rows) => rows.map((r) => r.querySelector('td, th')?.textContent?.trim()));
      expect(order.indexOf('console-broken')).toBeLessThan(order.indexOf('console-good'));
      // The summary line announces, politely.
      expect(await page.$eval('[role="status"]', (s) => [s.getAttribute('aria-live') ?? 'polite', s.textContent])).toEqual(['polite', expect.stringMatching(/2 jobs/)]);
      await expectClean(c);
    } finally {
      await page.close();
    }
  });

  it('a failed job’s page: its task’s message, Retry where the API allows it, Delete after a confirmation', async () => {
    const c = await openConsole(harness, '/console/jobs');
    const { page } = c;
    try {
      await page.locator('::-p-aria([name="console-broken"][role="link"])').click();
      await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Job console-broken');
      expect(new URL(page.url()).pathname).toBe(`/console/jobs/${failedJobId}`);

      const job = (await mine<{ data: Job }>('GET', `/v2/jobs/${failedJobId}`)).body!.data;
      const convert = job.tasks.find((t) => t.name === 'convert')!;
      const file = job.tasks.find((t) => t.name === 'file')!;
      expect(convert.status).toBe('error');
      expect(convert.message).toBeTruthy();
      await page.waitForFunction((m) => document.querySelector('main')?.textContent?.includes(m), {}, convert.message!);

      // Tasks in their order, dependencies first; each with a progressbar at 100 once ended.
      const names = await page.$$eval('ol[aria-label="Tasks"] > li h3', (hs) => hs.map((h) => h.textContent));
      expect(names.map((n) => n?.split(' ')[0])).toEqual(['file', 'convert', 'out']);
      const bars = await page.$$eval('ol[aria-label="Tasks"] [role="progressbar"], ol[aria-label="Tasks"] progress', (ps) => ps.map((p) => (p as HTMLProgressElement).value));
      expect(bars).toEqual([100, 100, 100]);

      // The job's JSON, payloads only on request.
      const json = () => page.$eval('pre[aria-label="Job JSON"]', (p) => JSON.parse(p.textContent ?? '{}') as Job);
      expect((await json()).id).toBe(failedJobId);
      expect((await json()).tasks.some((t) => 'payload' in t)).toBe(false);
      await page.locator('::-p-aria([name="Show payloads"][role="checkbox"])').click();
      await page.waitForFunction(() => document.querySelector('pre[aria-label="Job JSON"]')?.textContent?.includes('"payload"'));
      expect((await json()).tasks.find((t) => t.name === 'convert')!.payload).toMatchObject({ output_format: 'webp' });

      // The import's file came with the request: the API refuses to retry it, and the page offers no Retry.
      expect((await mine('POST', `/v2/tasks/${file.id}/retry`)).status).toBeGreaterThanOrEqual(400);
      expect(await page.$$('::-p-aria([name="Retry file"][role="button"])')).toHaveLength(0);
      // The failed convert task can be retried: a new task with retry_of_task_id, shown on the page.
      await page.locator('::-p-aria([name="Retry convert"][role="button"])').click();
      await page.waitForFunction(() => document.querySelector('[aria-label="Retries"]')?.textContent?.includes('convert'));
      const tasks = (await mine<{ data: Task[] }>('GET', '/v2/tasks?per_page=50')).body!.data;
      const retried = tasks.find((t) => t.retry_of_task_id === convert.id);
      expect(retried).toBeDefined();
      expect(await page.$eval('[aria-label="Retries"]', (r) => r.textContent)).toContain(retried!.id);

      // Delete: a confirmation, used with the keyboard, then back to the Jobs table without the job.
      await page.locator('::-p-aria([name="Delete job"][role="button"])').click();
      await page.locator('::-p-aria([name="Yes, delete"][role="button"])').wait();
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Keep the job');
      await page.keyboard.down('Shift');
      await page.keyboard.press('Tab');
      await page.keyboard.up('Shift');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Yes, delete');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Jobs');
      await page.locator('::-p-aria([name="console-good"][role="link"])').wait();
      expect(await rowOf(page, 'console-broken')).toBeNull();
      expect((await mine('GET', `/v2/jobs/${failedJobId}`)).status).toBe(404);
      await expectClean(c);
    } finally {
      await page.close();
    }
  });

  it('a waiting task is cancelled from its job’s page, which follows the job to its end live', async () => {
    const waiting = await mine<{ data: Job }>('POST', '/v2/jobs', {
      tag: 'console-waiting',
      tasks: { upload: { operation: 'import/upload' }, out: { operation: 'export/url', input: 'upload' } },
    });
    expect(waiting.status).toBe(201);
    const id = waiting.body!.data.id;
    const c = await openConsole(harness, `/console/jobs/${id}`);
    const { page } = c;
    try {
      await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Job console-waiting');
      await recorded(connections, 1, `private-job.${id}.tasks`);
      await recorded(connections, 1, `private-job.${id}`);
      expect(await page.$$('::-p-aria([name="Retry upload"][role="button"])')).toHaveLength(0);
      await page.locator('::-p-aria([name="Cancel upload"][role="button"])').click();
      // The upload ends CANCELLED; its export then fails, and the job with it, heard over the job's channels.
      await page.waitForFunction(() => document.querySelector('[role="status"]')?.textContent?.startsWith('Job error: 2 of 2 tasks ended.'), { timeout: 30_000 });
      const job = (await mine<{ data: Job }>('GET', `/v2/jobs/${id}`)).body!.data;
      expect(job.status).toBe('error');
      const text = await page.$eval('ol[aria-label="Tasks"]', (o) => o.textContent ?? '');
      for (const t of job.tasks) expect(text).toContain(t.message!);
      expect(text).toContain('CANCELLED');
      expect(await page.$$('::-p-aria([name="Cancel upload"][role="button"])')).toHaveLength(0);

      // The Jobs table filtered to errors: this job, not the finished one.
      await page.locator('::-p-aria([name="Jobs"][role="link"])').click();
      await page.locator('::-p-aria([name="console-good"][role="link"])').wait();
      await page.select('#jobs-status', 'error');
      await page.waitForFunction(() => {
        const table = document.querySelector('table[aria-label="Jobs"]');
        return table?.getAttribute('aria-busy') !== 'true' && table?.textContent?.includes('console-waiting') && !table.textContent.includes('console-good');
      });
      expect(await page.$$eval('table[aria-label="Jobs"] tbody tr td:nth-child(2)', (cells) => [...new Set(cells.map((td) => td.textContent))])).toEqual(['error']);
      await expectClean(c);
    } finally {
      await page.close();
    }
  });

  it('more jobs than a page: Older jobs and Newer jobs page through them with the API’s links', async () => {
    for (let i = 0; i < 26; i++) {
      const made = await mine('POST', '/v2/jobs', { tag: `bulk-${i}`, tasks: { raw: { operation: 'import/raw', file: `job ${i}`, filename: `${i}.txt` } } });
      expect(made.status).toBe(201);
    }
    const c = await openConsole(harness, '/console/jobs');
    const { page } = c;
    try {
      const labels = () => page.$$eval('table[aria-label="Jobs"] tbody th', (ths) => ths.map((th) => th.textContent));
      await page.locator('::-p-aria([name="bulk-25"][role="link"])').wait();
      const first = await labels();
      expect(first).toHaveLength(25);
      expect(first.slice(0, 3)).toEqual(['bulk-25', 'bulk-24', 'bulk-23']);
      await page.locator('::-p-aria([name="Older jobs"][role="button"])').click();
      await page.locator('::-p-aria([name="console-good"][role="link"])').wait();
      const second = await labels();
      expect(second).toEqual(expect.arrayContaining(['bulk-0', 'console-good', 'console-waiting']));
      expect(second.filter((l) => first.includes(l))).toEqual([]);
      await page.locator('::-p-aria([name="Newer jobs"][role="button"])').click();
      await page.locator('::-p-aria([name="bulk-25"][role="link"])').wait();
      expect(await labels()).toEqual(first);
      await expectClean(c);
    } finally {
      await page.close();
    }
  });

  it('where the stage publishes no events, the table and a job’s page poll the API instead', async () => {
    const c = await openConsole(harness, '/console/jobs');
    const { page } = c;
    try {
      // The page as a stage without SOCKET_ENDPOINT writes it: `socket: null` in its configuration.
      await page.evaluateOnNewDocument(() => {
        new MutationObserver((_, observer) => {
          const app = document.getElementById('app');
          if (!app?.dataset.config) return;
          app.dataset.config = JSON.stringify({ ...(JSON.parse(app.dataset.config) as object), socket: null });
          observer.disconnect();
        }).observe(document, { childList: true, subtree: true });
      });
      const lists: string[] = [];
      page.on('request', (r) => new URL(r.url()).pathname === '/v2/jobs' && r.method() === 'GET' && lists.push(r.url()));
      await page.goto(`${harness.platform.baseUrl}/console/jobs`, { waitUntil: 'networkidle0' });
      expect(await page.evaluate(() => (JSON.parse(document.getElementById('app')!.dataset.config!) as { socket: unknown }).socket)).toBeNull();
      await page.waitForFunction(() => /\d+ jobs:/.test(document.querySelector('[role="status"]')?.textContent ?? ''));
      await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
      const asked = lists.length;

      const made = await mine<{ data: Job }>('POST', '/v2/jobs', {
        tag: 'console-polled',
        tasks: { upload: { operation: 'import/upload' }, out: { operation: 'export/url', input: 'upload' } },
      });
      expect(made.status).toBe(201);
      const id = made.body!.data.id;
      await page.locator('::-p-aria([name="console-polled"][role="link"])').wait();
      expect(lists.length).toBeGreaterThan(asked);
      expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);

      await page.locator('::-p-aria([name="console-polled"][role="link"])').click();
      await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Job console-polled');
      // Cancelled elsewhere (with the key): the page sees the job end on its next poll.
      expect((await mine('POST', `/v2/tasks/${made.body!.data.tasks.find((t) => t.name === 'upload')!.id}/cancel`)).status).toBe(200);
      await page.waitForFunction(() => document.querySelector('[role="status"]')?.textContent?.startsWith('Job error: 2 of 2 tasks ended.'), { timeout: 30_000 });
      expect((await mine<{ data: Job }>('GET', `/v2/jobs/${id}`)).body!.data.status).toBe('error');
      await expectClean(c);
    } finally {
      await page.close();
    }
  });

  it('another user’s job is “No such job” on its page and not in the table', async () => {
    const theirs = await api<{ data: Job }>(otherKey, 'POST', '/v2/jobs', {
      tag: 'their-secret-job',
      tasks: { raw: { operation: 'import/raw', file: 'not for user one', filename: 'theirs.txt' }, out: { operation: 'export/url', input: 'raw' } },
    });
    expect(theirs.status).toBe(201);
    const id = theirs.body!.data.id;
    expect((await api(otherKey, 'GET', `/v2/jobs/${id}`)).status).toBe(200);

    const c = await openConsole(harness, `/console/jobs/${id}`);
    const { page } = c;
    try {
      await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'No such job');
      const text = await page.$eval('main', (m) => m.textContent ?? '');
      expect(text).not.toContain('their-secret-job');
      expect(text).not.toContain('theirs.txt');
      expect(await page.$$('pre[aria-label="Job JSON"]')).toHaveLength(0);

      await page.locator('::-p-aria([name="Jobs"][role="link"])').click();
      await page.waitForFunction(() => /\d+ jobs:/.test(document.querySelector('[role="status"]')?.textContent ?? ''));
      const listed = await page.$eval('table[aria-label="Jobs"]', (t) => [t.textContent ?? '', [...t.querySelectorAll('a')].map((a) => a.getAttribute('href'))]);
      expect(listed[0]).not.toContain('their-secret-job');
      expect(listed[1]).not.toContain(`/console/jobs/${id}`);
      await expectClean(c);
      // A console 404 is the API's answer, not a 5xx and not a refusal (the API decided).
    } finally {
      await page.close();
    }
  });
});
