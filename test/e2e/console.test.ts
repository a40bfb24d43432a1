/**
 * The console's frame in a real browser: the one-click sign-in link of the local platform opens it,
 * its script and styles come from the service only under a strict Content-Security-Policy (a
 * violation fails), the navigation reaches each page, and signing out ends the console's tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConsole, startConsoleHarness, type ConsoleHarness } from '../support/console.js';

let harness: ConsoleHarness;
beforeAll(async () => {
  harness = await startConsoleHarness({ dispatch: false });
}, 300_000);
afterAll(() => harness?.close());

describe('the console', () => {
  it('opens signed in from the sign-in link, with nothing from elsewhere and no CSP violation', async () => {
    const { page, violations, refused, serverErrors } = await openConsole(harness);
    try {
      expect(new URL(page.url()).pathname).toBe('/console');
      await page.waitForSelector('nav[aria-label="Console"]');
      for (const name of ['Jobs', 'Job builder', 'Account', 'Convert']) {
        await page.locator(`::-p-aria([name="${name}"][role="link"])`).click();
        await page.waitForFunction((h: string) => document.querySelector('main h1')?.textContent?.startsWith(h), {}, name);
      }
      const csp = (await page.goto(page.url()))!.headers()['content-security-policy'];
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(await violations()).toEqual([]);
      expect(refused).toEqual([]);
      expect(serverErrors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('the violation recorder sees an inline script the policy blocks (so the check above can fail)', async () => {
    const { page, violations } = await openConsole(harness);
    try {
      await page.evaluate(() => {
        const script = document.createElement('script');
        script.textContent = 'window.__ran = true';
        document.body.append(script);
      });
      await page.waitForFunction(() => ((window as unknown as { __cspViolations?: string[] }).__cspViolations ?? []).length > 0);
      expect(await page.evaluate(() => (window as unknown as { __ran?: boolean }).__ran)).toBeUndefined();
      expect((await violations()).join('\n')).toContain('script-src');
    } finally {
      await page.close();
    }
  });

  it('is linked from the service root', async () => {
    const { page, violations } = await openConsole(harness);
    try {
      await page.goto(`${harness.platform.baseUrl}/`, { waitUntil: 'load' });
      await page.locator('::-p-aria([name="Console"][role="link"])').click();
      await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Convert');
      expect(new URL(page.url()).pathname).toBe('/console');
      expect(await violations()).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('shows the password form to a browser that is not signed in, and refuses a wrong link', async () => {
    const context = await harness.browser.createBrowserContext();
    const page = await context.newPage();
    try {
      await page.goto(`${harness.platform.baseUrl}/console/jobs`);
      expect(await page.$eval('h1', (h) => h.textContent)).toBe('Sign in to your account');
      expect(await page.$eval('input[name=next]', (i) => (i as HTMLInputElement).value)).toBe('/console/jobs');
      const wrong = await page.goto(`${harness.platform.baseUrl}/console/sign-in?token=not-the-secret`);
      expect(wrong!.status()).toBe(404);
    } finally {
      await context.close();
    }
  });

  it('gives a token only to its own page: the session cookie and its CSRF token in a header, both', async () => {
    const { page } = await openConsole(harness);
    try {
      await page.waitForSelector('nav[aria-label="Console"]');
      const csrf = await page.evaluate(() => (JSON.parse(document.getElementById('app')!.dataset.config!) as { csrf: string }).csrf);
      const cookie = (await page.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
      const post = (headers: Record<string, string>) => fetch(`${harness.platform.baseUrl}/console/token`, { method: 'POST', headers });
      expect((await post({ cookie })).status).toBe(403);
      expect((await post({ cookie, 'x-csrf-token': `${csrf}x` })).status).toBe(403);
      expect((await post({ 'x-csrf-token': csrf })).status).toBe(403);
      const granted = await post({ cookie, 'x-csrf-token': csrf });
      expect(granted.status).toBe(200);
      expect(granted.headers.get('cache-control')).toBe('no-store');
      const body = (await granted.json()) as { scope: string; token_type: string };
      expect([body.token_type, body.scope]).toEqual(['Bearer', 'user.read user.write task.read task.write webhook.read webhook.write']);
      // A page of another site cannot read it: no CORS grant for credentials.
      expect(granted.headers.get('access-control-allow-credentials')).toBeNull();
    } finally {
      await page.close();
    }
  });

  it('signing out ends the session and the token the page held', async () => {
    const { page } = await openConsole(harness);
    try {
      await page.waitForSelector('nav[aria-label="Console"]');
      const token = await page.evaluate(async () => {
        const csrf = (JSON.parse(document.getElementById('app')!.dataset.config!) as { csrf: string }).csrf;
        const res = await fetch('/console/token', { method: 'POST', headers: { 'x-csrf-token': csrf } });
        return ((await res.json()) as { access_token: string }).access_token;
      });
      const me = (t: string) => fetch(`${harness.platform.baseUrl}/v2/users/me`, { headers: { authorization: `Bearer ${t}` } });
      expect((await me(token)).status).toBe(200);
      await page.locator('::-p-aria([name="Sign out"][role="button"])').click();
      await page.waitForFunction(() => document.querySelector('h1')?.textContent === 'Sign in to your account');
      expect((await me(token)).status).toBe(401);
    } finally {
      await page.close();
    }
  });
});
