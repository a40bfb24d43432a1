/**
 * The usage chart in a real headless Chromium: the server's SVG placed in a page as the account page
 * places it, screenshotted, and the screenshot read back: a bar standing for each day that used
 * credits, in the bar colour, at the heights the credits give, with nothing fetched.
 */
import type { Browser, Page } from 'puppeteer-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderUsageChart } from '#lib/file-api/account/usage-chart.js';
import { usageReport } from '#lib/file-api/account/usage.js';
import { launchBrowser } from '../support/browser.js';

let browser: Browser;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ browser, close } = await launchBrowser());
}, 120_000);
afterAll(() => close?.());

/** 30 days; credits on some of them, the highest 12. */
const credits: Record<string, number> = { '2026-03-02': 12, '2026-03-03': 3, '2026-03-10': 6, '2026-03-11': 6, '2026-03-20': 1, '2026-03-30': 9 };
const report = usageReport(
  '2026-03-01',
  '2026-03-30',
  Object.entries(credits).map(([date, n]) => ({ date, operation: 'convert', credits: n, tasks: n, failed: 0 })),
);
const WIDTH = 720;
const HEIGHT = 260;

/** The page with the chart, and every request it made. */
async function chartPage(): Promise<{ page: Page; requests: string[] }> {
  const page = await browser.newPage();
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.setViewport({ width: 800, height: 400 });
  const svg = renderUsageChart(report.days, { width: WIDTH, height: HEIGHT });
  await page.setContent(`<!doctype html><html><head><meta charset="utf-8"><title>usage</title></head><body style="margin:20px;background:#fff">${svg}</body></html>`);
  return { page, requests };
}

/** Whether a pixel is the bar colour (#2563eb), allowing for antialiasing. */
const isBar = (r: number, g: number, b: number) => Math.abs(r - 0x25) < 24 && Math.abs(g - 0x63) < 24 && Math.abs(b - 0xeb) < 24;

describe('the usage chart in a browser', () => {
  it('renders one bar per day, and the screenshot shows a bar for each day with credits at its height', async () => {
    const { page, requests } = await chartPage();
    try {
      // The document: one bar per day of the range, each with its title.
      expect(await page.$$eval('svg rect.bar', (bars) => bars.length)).toBe(30);
      const titles = await page.$$eval('svg rect.bar > title', (els) => els.map((el) => el.textContent));
      expect(titles[1]).toBe('2026-03-02: 12 credits, 12 tasks');
      const box = await page.$eval('svg', (el) => {
        const r = el.getBoundingClientRect();
        return { width: r.width, height: r.height };
      });
      expect(box).toEqual({ width: WIDTH, height: HEIGHT });

      // The pixels: the chart's own screenshot, decoded.
      const shot = await (await page.$('svg'))!.screenshot({ type: 'png' });
      const { data, info } = await sharp(Buffer.from(shot)).raw().toBuffer({ resolveWithObject: true });
      expect([info.width, info.height]).toEqual([WIDTH, HEIGHT]);
      const at = (x: number, y: number) => {
        const i = (y * info.width + x) * info.channels;
        return [data[i]!, data[i + 1]!, data[i + 2]!] as const;
      };
      let nonWhite = 0;
      for (let y = 0; y < info.height; y++) for (let x = 0; x < info.width; x++) if (at(x, y).some((c) => c < 240)) nonWhite++;
      expect(nonWhite).toBeGreaterThan(2000);

      // Just above the x axis every bar with credits crosses the row: count the runs of bar colour.
      const axis = await page.$eval('svg line[stroke="#4b5563"]', (el) => Number(el.getAttribute('y1')));
      const runsAt = (y: number) => {
        let runs = 0;
        let inside = false;
        for (let x = 0; x < info.width; x++) {
          const bar = isBar(...at(x, y));
          if (bar && !inside) runs++;
          inside = bar;
        }
        return runs;
      };
      expect(runsAt(Math.round(axis) - 3)).toBe(Object.keys(credits).length);
      // Higher up only the taller bars remain: half way up the scale, the days above 7.5 credits (the scale's top is 15).
      const scale = await page.$$eval('svg text[text-anchor="end"]', (els) =>
        els.map((el) => ({ value: Number(el.textContent), y: Number(el.getAttribute('y')) })).filter((t) => Number.isFinite(t.value)),
      );
      const top = scale.reduce((a, b) => (b.value > a.value ? b : a));
      expect(top.value).toBe(15);
      const yOf = (value: number) => Math.round(axis - (value / top.value) * (axis - top.y));
      expect(runsAt(yOf(7.5))).toBe(Object.values(credits).filter((n) => n > 7.5).length);
      expect(runsAt(yOf(top.value) + 2)).toBe(0);

      expect(requests.filter((url) => !url.startsWith('about:') && !url.startsWith('data:'))).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('is an image with a name and a description for assistive technology', async () => {
    const { page } = await chartPage();
    try {
      const tree = await page.accessibility.snapshot({ root: (await page.$('svg'))! });
      expect(tree).toMatchObject({ role: 'image', name: 'Credits per day', description: '37 credits from 2026-03-01 to 2026-03-30 (UTC), one bar per day.' });
    } finally {
      await page.close();
    }
  });
});
