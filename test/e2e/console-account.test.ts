/**
 * The console's Account page in a real browser against a local platform, each section checked
 * against the public API from outside (the development key, or a sandbox key of the same user): a
 * webhook added on the page is the API's and Delete removes it; Show gives the API's signing secret; a
 * signed-URL base made on the page is listed and deleted; a file dropped into the sandbox section puts
 * its MD5 (node:crypto's) on the whitelist; the usage chart has one bar per day of the API's report; an
 * application the user authorized is listed and Revoke ends its access token. No CSP violation, no
 * request off this machine, no 5xx.
 */
import { createHash, randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeys } from '#lib/access/auth/keys.js';
import { OAuthClients } from '#lib/access/oauth/clients.js';
import { TokenStore } from '#lib/access/oauth/tokens.js';
import { DynamoStateStore } from '#lib/adapters/state/dynamodb.js';
import { LOCAL_CREDENTIALS } from '../../local/backends.js';
import { openConsole, startConsoleHarness, type ConsoleHarness, type ConsolePage } from '../support/console.js';

let harness: ConsoleHarness;
let state: DynamoStateStore;
let sandboxKey: string;

beforeAll(async () => {
  harness = await startConsoleHarness({ dispatch: false });
  state = new DynamoStateStore(
    new DynamoDBClient({ region: 'us-east-1', endpoint: harness.platform.endpoints.dynamodb, credentials: LOCAL_CREDENTIALS }),
    'api-platform-local-state',
  );
  // The built-in account's sandbox key, to read the whitelist as a client would.
  sandboxKey = (await new ApiKeys(state).create({ scopes: ['user.read'], userId: 1, sandbox: true })).key;
}, 300_000);
afterAll(() => harness?.close());

/** The API from outside the browser, with the development key (or another credential). */
async function apiGet<T>(path: string, key = harness.platform.apiKey): Promise<{ status: number; data: T }> {
  const res = await fetch(`${harness.platform.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const body = (await res.json().catch(() => ({}))) as { data: T };
  return { status: res.status, data: body.data };
}

const byName = (page: Page, role: string, name: string) => page.locator(`::-p-aria([name="${name}"][role="${role}"])`);
const statusSays = (page: Page, text: string) =>
  page.waitForFunction((t) => [...document.querySelectorAll('[role=status]')].some((s) => s.textContent?.includes(t)), {}, text);

async function withAccountPage(run: (p: ConsolePage) => Promise<void>) {
  const opened = await openConsole(harness, '/console/account');
  try {
    await opened.page.waitForSelector('#webhooks-heading');
    await run(opened);
    expect(await opened.violations()).toEqual([]);
    expect(opened.refused).toEqual([]);
    expect(opened.serverErrors).toEqual([]);
  } finally {
    await opened.page.close();
  }
}

describe('the console Account page', () => {
  it('shows the profile, adds a webhook the API lists, deletes it, and shows the signing secret the API has', async () => {
    await withAccountPage(async ({ page }) => {
      const me = (await apiGet<{ email: string; username: string }>('/v2/users/me')).data;
      await page.waitForFunction((email) => document.querySelector('dl.facts')?.textContent?.includes(email), {}, me.email);

      const url = `https://hooks.example.com/console-${randomBytes(4).toString('hex')}`;
      await byName(page, 'textbox', 'Webhook URL').fill(url);
      await byName(page, 'checkbox', 'task.failed A task failed').click();
      await byName(page, 'button', 'Create webhook').click();
      await statusSays(page, `Webhook for ${url} created.`);
      type Hook = { id: string; url: string; events: string[] };
      const listed = (await apiGet<Hook[]>('/v2/users/me/webhooks')).data.find((h) => h.url === url);
      expect(listed?.events.sort()).toEqual(['job.failed', 'job.finished', 'task.failed']);
      // The endpoint's own secret, behind its disclosure in the row.
      const ownSecret = await page.$$eval(
        'table[aria-label="Webhooks"] tbody tr',
        (trs, u) => trs.find((tr) => tr.textContent?.includes(u))?.querySelector('details code')?.textContent,
        url,
      );
      expect(ownSecret).toBe((listed as Hook & { signing_secret: string }).signing_secret);

      await byName(page, 'button', `Delete webhook ${url}`).click();
      await statusSays(page, `Webhook for ${url} deleted.`);
      expect((await apiGet<Hook[]>('/v2/users/me/webhooks')).data.map((h) => h.url)).not.toContain(url);

      expect(await page.$('code[data-secret=account]')).toBeNull();
      await byName(page, 'button', 'Show').click();
      const shown = await page.waitForSelector('code[data-secret=account]');
      const secret = (await apiGet<{ signing_secret: string }>('/v2/users/me/webhooks/signing-secret')).data.signing_secret;
      expect(secret.length).toBeGreaterThan(16);
      expect(await shown!.evaluate((c) => c.textContent)).toBe(secret);
    });
  });

  it('creates a signed-URL base the API lists, showing its secret once, and deletes it', async () => {
    await withAccountPage(async ({ page }) => {
      type Base = { id: string; url: string };
      const before = (await apiGet<Base[]>('/v2/signed-urls')).data.map((b) => b.id);
      await byName(page, 'button', 'Create signed-URL base').click();
      await statusSays(page, 'Signed-URL base created');
      const made = (await apiGet<Base[]>('/v2/signed-urls')).data.filter((b) => !before.includes(b.id));
      expect(made).toHaveLength(1);
      expect(made[0]!.url).toMatch(/\/s\/[^/]+$/);
      expect(await page.$eval('[aria-label="New signed-URL base"]', (g) => g.textContent)).toContain(made[0]!.url);
      await byName(page, 'button', `Delete signed-URL base ${made[0]!.url}`).click();
      await statusSays(page, 'its URLs no longer work');
      expect((await apiGet<Base[]>('/v2/signed-urls')).data.map((b) => b.id)).not.toContain(made[0]!.id);
    });
  });

  it('puts the MD5 of a dropped file on the sandbox whitelist, as node:crypto computes it, and takes it off', async () => {
    await withAccountPage(async ({ page }) => {
      const bytes = randomBytes(1024 * 1024 + 77);
      const md5 = createHash('md5').update(bytes).digest('hex');
      const name = 'dropped.bin';
      await page.evaluate(
        (b64, fileName) => {
          const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
          const transfer = new DataTransfer();
          transfer.items.add(new File([data], fileName));
          const zone = document.querySelector('section[aria-labelledby=sandbox-heading] .drop')!;
          zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
          zone.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
        },
        bytes.toString('base64'),
        name,
      );
      await statusSays(page, `${name} (${md5})`);
      type Entry = { md5: string; filename: string | null };
      expect((await apiGet<Entry[]>('/sandbox/v2/users/me/sandbox/files', sandboxKey)).data).toContainEqual(expect.objectContaining({ md5, filename: name }));
      // The live base does not serve the whitelist: the page reached it through the sandbox base.
      expect((await apiGet('/v2/users/me/sandbox/files')).status).toBe(404);

      const typed = createHash('md5').update('typed by hand').digest('hex');
      await byName(page, 'textbox', 'MD5').fill(typed.toUpperCase());
      await byName(page, 'button', 'Add MD5').click();
      await statusSays(page, `Added ${typed} to the sandbox whitelist.`);
      await byName(page, 'button', `Remove ${md5}`).click();
      await statusSays(page, `Removed ${md5}`);
      const left = (await apiGet<Entry[]>('/sandbox/v2/users/me/sandbox/files', sandboxKey)).data.map((e) => e.md5);
      expect(left).toContain(typed);
      expect(left).not.toContain(md5);
    });
  });

  it('charts one bar per day of the usage report, each with its day in a title, and the table repeats them', async () => {
    await withAccountPage(async ({ page }) => {
      const report = (await apiGet<{ days: Array<{ date: string }> }>('/v2/users/me/usage')).data;
      await page.waitForSelector('svg.usage-chart rect.bar');
      const bars = await page.$$eval('svg.usage-chart rect.bar', (rects) => rects.map((r) => r.querySelector('title')?.textContent ?? ''));
      expect(report.days.length).toBe(30);
      expect(bars).toHaveLength(report.days.length);
      expect(bars.map((t) => t.slice(0, 10))).toEqual(report.days.map((d) => d.date));
      expect(await page.$$eval('table[aria-label="Usage per day"] tbody tr', (rows) => rows.length)).toBe(report.days.length);
    });
  });

  it('lists an application the user authorized, and Revoke ends its access token', async () => {
    const client = (await new OAuthClients(state).create({ name: 'Photo printer', redirectUris: ['http://127.0.0.1:7/cb'], public: true })).client;
    const tokens = new TokenStore(state, { codeSeconds: 60, accessSeconds: 3600, refreshSeconds: 86_400 });
    const grant = await tokens.approve(1, client.id, ['user.read', 'task.read']);
    const { accessToken } = await tokens.issueImplicit({ userId: 1, clientId: client.id, grantId: grant.grantId }, grant.scopes);
    expect((await apiGet('/v2/users/me', accessToken)).status).toBe(200);
    await withAccountPage(async ({ page }) => {
      await page.waitForSelector('table[aria-label="Authorized applications"]');
      const rows = await page.$$eval('table[aria-label="Authorized applications"] tbody tr', (trs) => trs.map((tr) => tr.textContent ?? ''));
      // The console's own client is not an application listed here.
      expect(rows).toHaveLength(1);
      expect(rows[0]).toContain('Photo printer');
      expect(rows[0]).toContain('task.read');
      await byName(page, 'button', 'Revoke Photo printer').click();
      await statusSays(page, 'Photo printer can no longer use your account.');
      expect((await apiGet('/v2/users/me', accessToken)).status).toBe(401);
      expect(await page.$('table[aria-label="Authorized applications"]')).toBeNull();
    });
  });
});
