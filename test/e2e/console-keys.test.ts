/**
 * The Account page's API keys in a real browser: a key made on the page with chosen scopes, its
 * secret read from the page, used with the real curl (its scope works, a scope it lacks is 403), then
 * revoked on the page with the keyboard (the confirmation takes the focus) and refused by the same curl.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ElementHandle, Page } from 'puppeteer-core';
import { openConsole, startConsoleHarness, type ConsoleHarness } from '../support/console.js';

const run = promisify(execFile);
let harness: ConsoleHarness;
beforeAll(async () => {
  harness = await startConsoleHarness({ dispatch: false });
}, 300_000);
afterAll(() => harness?.close());

/** The HTTP status curl gets for GET `path` with the key. */
async function curlStatus(key: string, path: string): Promise<number> {
  const { stdout } = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-H', `Authorization: Bearer ${key}`, `${harness.platform.baseUrl}${path}`]);
  return Number(stdout);
}

/** The table row of the key with this name. */
async function rowOf(page: Page, name: string): Promise<ElementHandle<HTMLTableRowElement>> {
  const handle = await page.waitForFunction(
    (n) => [...document.querySelectorAll<HTMLTableRowElement>('table tbody tr')].find((r) => r.cells[0]?.textContent === n),
    {},
    name,
  );
  return handle as ElementHandle<HTMLTableRowElement>;
}

const focusedText = (page: Page) => page.evaluate(() => document.activeElement?.textContent?.trim());

describe('API keys on the Account page', () => {
  it('creates a key with chosen scopes that works with curl, shows it once, and revokes it from the keyboard', async () => {
    const { page, violations, refused, serverErrors } = await openConsole(harness, '/console/account');
    const name = `e2e key ${process.pid}`;
    try {
      await page.waitForSelector('::-p-aria([name="Your API keys"][role="table"])');
      // The development key of `npm start` is listed (its id, never its secret).
      const devKey = harness.platform.apiKey;
      await rowOf(page, 'development');
      expect(await page.$eval('table', (t) => t.textContent)).not.toContain(devKey);

      await page.locator('::-p-aria([name="Name"][role="textbox"])').fill(name);
      await page.locator('::-p-aria([name="See your account: name, e-mail, remaining credits and usage user.read"][role="checkbox"])').click();
      await page.locator('::-p-aria([name="Create key"][role="button"])').click();

      const secretField = await page.waitForSelector('::-p-aria([name="New API key"][role="textbox"])');
      const secret = await secretField!.evaluate((i) => (i as HTMLInputElement).value);
      expect(secret).toMatch(/^key_/);
      expect(await secretField!.evaluate((i) => (i as HTMLInputElement).readOnly)).toBe(true);
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('new-api-key');
      expect(await page.$eval('#new-api-key-warning', (p) => p.textContent)).toContain('will not be shown again');
      await page.waitForSelector('::-p-aria([name="Copy"][role="button"])');

      expect(await curlStatus(secret, '/v2/users/me')).toBe(200);
      // task.read was not chosen.
      expect(await curlStatus(secret, '/v2/jobs')).toBe(403);

      const row = await rowOf(page, name);
      expect(await row.evaluate((r) => [...r.cells].slice(2, 6).map((c) => c.textContent))).toEqual(['user.read', expect.any(String), 'No', 'Active']);

      // Shown once: after a reload the page has the key's row but not its secret.
      await page.reload({ waitUntil: 'networkidle0' });
      await rowOf(page, name);
      expect(await page.$('::-p-aria([name="New API key"][role="textbox"])')).toBeNull();
      expect(await page.evaluate(() => document.body.innerHTML)).not.toContain(secret);

      // Revoke, then Escape: the confirmation closes and the focus is back on Revoke.
      const revoke = await (await rowOf(page, name)).$('::-p-aria([name="Revoke"][role="button"])');
      await revoke!.focus();
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.activeElement?.textContent?.trim() === 'Yes, revoke');
      await page.keyboard.press('Escape');
      await page.waitForFunction(() => document.activeElement?.textContent?.trim() === 'Revoke');
      expect(await curlStatus(secret, '/v2/users/me')).toBe(200);

      // Enter opens the confirmation again, Enter on its focused button revokes.
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.activeElement?.textContent?.trim() === 'Yes, revoke');
      expect(await focusedText(page)).toBe('Yes, revoke');
      await page.keyboard.press('Enter');
      await page.waitForFunction((n) => document.querySelector('[role="status"]')?.textContent === `The key “${n}” was revoked.`, {}, name);
      await page.waitForFunction(
        (n) => [...document.querySelectorAll<HTMLTableRowElement>('table tbody tr')].find((r) => r.cells[0]?.textContent === n)?.cells[5]?.textContent?.startsWith('Revoked'),
        {},
        name,
      );
      // The focus went to the section's heading (the confirmation is gone), not lost to the body.
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('api-keys-title');
      expect(await curlStatus(secret, '/v2/users/me')).toBe(401);
      // The development key is untouched.
      expect(await curlStatus(devKey, '/v2/users/me')).toBe(200);

      expect(await violations()).toEqual([]);
      expect(refused).toEqual([]);
      expect(serverErrors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('shows a refusal under the field it names, as an alert', async () => {
    const { page, violations, refused, serverErrors } = await openConsole(harness, '/console/account');
    try {
      await page.waitForSelector('::-p-aria([name="Your API keys"][role="table"])');
      await page.locator('::-p-aria([name="Name"][role="textbox"])').fill('no scopes');
      await page.locator('::-p-aria([name="Create key"][role="button"])').click();
      const alert = await page.waitForSelector('#key-scopes-error[role="alert"]');
      expect(await alert!.evaluate((a) => a.textContent)).toMatch(/scope/);
      expect(await page.$('::-p-aria([name="New API key"][role="textbox"])')).toBeNull();
      expect(await violations()).toEqual([]);
      expect(refused).toEqual([]);
      expect(serverErrors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
