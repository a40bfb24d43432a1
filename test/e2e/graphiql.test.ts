/**
 * The explorer in a real headless Chromium, with every request that is not to this machine refused.
 *
 * By default against the local platform (serverless-offline running the functions of serverless.yml
 * from their sources, as `npm start` does): the page comes from the graphql function, its assets from
 * the graphiqlAssets function's precompressed files, messages from dynalite. Set GRAPHQL_E2E_BASE_URL
 * (e.g. http://localhost:4000, or a deployed stage's URL) to test a running service instead.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../local/emulator.js';
import { launchBrowser } from '../support/browser.js';
import { e2eOutput } from '../support/platform-output.js';

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

let baseUrl: string;
let browser: Browser;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  if (process.env.GRAPHQL_E2E_BASE_URL) {
    baseUrl = process.env.GRAPHQL_E2E_BASE_URL.replace(/\/$/, '');
  } else {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'graphiql-e2e-data-'));
    const platform = await startEmulator({ dataDir, dispatch: false, output: e2eOutput });
    cleanups.push(async () => {
      await platform.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });
    baseUrl = platform.baseUrl;
  }
  const launched = await launchBrowser();
  cleanups.push(launched.close);
  browser = launched.browser;
}, 300_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

let page: Page;
let refused: string[];
let failed: string[];

beforeEach(async () => {
  refused = [];
  failed = [];
  page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 900 });
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol === 'data:' || url.protocol === 'blob:' || LOCAL_HOSTS.has(url.hostname)) {
      void request.continue();
    } else {
      refused.push(request.url());
      void request.abort('internetdisconnected');
    }
  });
  page.on('response', (response) => {
    if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
  });
});

afterEach(async () => {
  await page?.close();
});

const text = (selector: string) => page.$eval(selector, (el) => (el as HTMLElement).innerText);

async function openExplorer(): Promise<void> {
  await page.goto(`${baseUrl}/graphql`, { waitUntil: 'networkidle0' });
  await page.waitForSelector('.graphiql-container', { timeout: 30_000 });
}

async function clickDocLink(className: string, label: string): Promise<void> {
  const handle = await page.waitForFunction(
    (cls, name) => [...document.querySelectorAll(`.graphiql-doc-explorer .${cls}`)].find((el) => el.textContent === name),
    { timeout: 10_000 },
    className,
    label,
  );
  await (handle.asElement() as Awaited<ReturnType<Page['$']>>)!.click();
}

/** Replaces the editor's query as a user would: select all, then enter the new text. */
async function replaceQuery(query: string): Promise<void> {
  await page.click('.graphiql-query-editor .view-lines');
  await page.keyboard.down('Control');
  await page.keyboard.press('KeyA');
  await page.keyboard.up('Control');
  await page.keyboard.press('Backspace');
  // Inserted as one piece of text (as a paste is), so the editor's auto-closing brackets stay out of the way.
  await page.keyboard.sendCharacter(query);
}

async function resultText(): Promise<string> {
  return text('[aria-label="Result Window"]');
}

describe('GraphiQL served by the functions', () => {
  it('opens offline, documents creatures and creature, and runs its default query', async () => {
    await openExplorer();
    expect(await page.title()).toBe('Creature API explorer');

    // Docs panel: the root types, then Query's fields with their descriptions.
    await page.click('[aria-label="Show Documentation Explorer"]');
    await page.waitForSelector('.graphiql-doc-explorer');
    await clickDocLink('graphiql-doc-explorer-type-name', 'Query');
    await page.waitForSelector('.graphiql-doc-explorer-field-name');
    const fields = await page.$$eval('.graphiql-doc-explorer-field-name', (els) => els.map((el) => el.textContent));
    expect(fields).toEqual(expect.arrayContaining(['creatures', 'creature', 'getMessage']));
    const queryDocs = await text('.graphiql-doc-explorer');
    expect(queryDocs).toContain('Creatures in number order');
    expect(queryDocs).toContain('One creature by name (case-insensitive');

    // Into one field: its arguments are documented too.
    await clickDocLink('graphiql-doc-explorer-field-name', 'creature');
    await page.waitForFunction(() => document.querySelector('.graphiql-doc-explorer')?.textContent?.includes('letter case does not matter'));

    // Run the default query and see real data in the result pane.
    await page.click('[aria-label="Execute query (Ctrl-Enter)"]');
    await page.waitForFunction(() => document.querySelector('[aria-label="Result Window"]')?.textContent?.includes('Cindlet'), {
      timeout: 15_000,
    });
    const result = await resultText();
    expect(result).toContain('"creatures"');
    expect(result).toContain('"Ember"');
    expect(result).not.toContain('"errors"');

    expect(refused).toEqual([]);
    expect(failed).toEqual([]);
  });

  it('runs a query the user types, with the answer from the server', async () => {
    await openExplorer();
    await replaceQuery('{ creature(name: "VOLTKIT") { name evolutions { name types } } }');
    await page.click('[aria-label="Execute query (Ctrl-Enter)"]');
    await page.waitForFunction(() => document.querySelector('[aria-label="Result Window"]')?.textContent?.includes('Voltanvil'), {
      timeout: 15_000,
    });
    const result = (await resultText()).replace(/\s+/g, '');
    expect(result).toContain('"name":"Voltkit"');
    expect(result).toContain('"types":["Volt","Mind"]');
    expect(refused).toEqual([]);
  });

  it('creates a message from the explorer that the server keeps (read back over plain HTTP)', async () => {
    await openExplorer();
    await replaceQuery('mutation { createMessage(input: { content: "from the explorer", author: "e2e" }) { id } }');
    await page.click('[aria-label="Execute query (Ctrl-Enter)"]');
    const handle = await page.waitForFunction(
      () => /"id":\s*"([0-9a-f]{20})"/.exec(document.querySelector('[aria-label="Result Window"]')?.textContent ?? '')?.[1],
      { timeout: 15_000 },
    );
    const id = (await handle.jsonValue()) as string;

    const res = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query($id: ID!) { getMessage(id: $id) { content author } }', variables: { id } }),
    });
    expect(await res.json()).toEqual({ data: { getMessage: { content: 'from the explorer', author: 'e2e' } } });
    expect(refused).toEqual([]);
  });
});

/**
 * What a page of another origin can make a visitor's browser do with the API, now that GET queries
 * need no header: read public data (as it could itself), and nothing more. Statuses are read from
 * the network, where the page itself sees only opaque answers.
 */
describe('a page of another origin', () => {
  let otherOrigin: string;
  let statuses: Array<{ method: string; status: number }>;

  beforeAll(async () => {
    const other = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>another site</title>'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => other.close(() => resolve())));
    otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  });

  beforeEach(async () => {
    statuses = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === '/graphql') statuses.push({ method: response.request().method(), status: response.status() });
    });
    await page.goto(otherOrigin, { waitUntil: 'load' });
  });

  const mutation = 'mutation { createMessage(input: { content: "sent by another site" }) { id } }';

  it('reads a public GET query, but never with the visitor\'s credentials', async () => {
    const outcome = await page.evaluate(async (endpoint) => {
      const url = `${endpoint}?query=${encodeURIComponent('{ creature(name: "Pebbro") { number } }')}`;
      const plain = await (await fetch(url)).json();
      const credentialed = await fetch(url, { credentials: 'include' }).then(
        () => 'read',
        (error: Error) => error.name,
      );
      return { plain, credentialed };
    }, `${baseUrl}/graphql`);
    expect(outcome).toEqual({ plain: { data: { creature: { number: '013' } } }, credentialed: 'TypeError' });
  });

  it('cannot write: a mutation over GET is 405, a form or text/plain POST 403', async () => {
    await page.evaluate(
      async (endpoint, query) => {
        await fetch(`${endpoint}?query=${encodeURIComponent(query)}`, { mode: 'no-cors' });
        await fetch(endpoint, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ query }) });
      },
      `${baseUrl}/graphql`,
      mutation,
    );
    // A form submitted as a page would, navigating the tab to the API's answer.
    await Promise.all([
      page.waitForNavigation(),
      page.evaluate(
        (endpoint, query) => {
          const form = Object.assign(document.createElement('form'), { method: 'POST', action: endpoint });
          form.append(Object.assign(document.createElement('input'), { name: 'query', value: query }));
          document.body.append(form);
          form.submit();
        },
        `${baseUrl}/graphql`,
        mutation,
      ),
    ]);
    expect(statuses).toEqual([
      { method: 'GET', status: 405 },
      { method: 'POST', status: 403 },
      { method: 'POST', status: 403 },
    ]);
  });
});
