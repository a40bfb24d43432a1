/** The usage chart as the server renders it: one bar per day, heights by credits, axes, titles, escaping. */
import { describe, expect, it } from 'vitest';
import { renderUsageChart } from '#lib/file-api/account/usage-chart.js';
import { usageReport } from '#lib/file-api/account/usage.js';

describe('the usage chart', () => {
  const days = usageReport('2026-03-01', '2026-03-30', [
    { date: '2026-03-02', operation: 'convert', credits: 12, tasks: 12, failed: 0 },
    { date: '2026-03-03', operation: 'convert', credits: 3, tasks: 4, failed: 1 },
    { date: '2026-03-30', operation: 'convert', credits: 6, tasks: 6, failed: 0 },
  ]).days;
  const bars = (svg: string) => [...svg.matchAll(/<rect class="bar" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"[^>]*><title>([^<]*)<\/title><\/rect>/g)];

  it('draws one bar per day, its height by the day\'s credits, each titled', () => {
    const svg = renderUsageChart(days);
    const found = bars(svg);
    expect(found).toHaveLength(30);
    const height = (i: number) => Number(found[i]![4]);
    expect(height(0)).toBe(0);
    expect(height(1)).toBeGreaterThan(0);
    expect(height(1) / height(2)).toBeCloseTo(4, 1);
    expect(height(29) / height(2)).toBeCloseTo(2, 1);
    expect(found[1]![5]).toBe('2026-03-02: 12 credits, 12 tasks');
    expect(found[0]![5]).toBe('2026-03-01: 0 credits, 0 tasks');
    // Bars stand left to right in day order without overlapping.
    const xs = found.map((m) => Number(m[1]));
    for (let i = 1; i < xs.length; i++) expect(xs[i]!).toBeGreaterThan(xs[i - 1]! + Number(found[i - 1]![3]));
  });

  it('labels the axes: credits at round steps reaching the highest day, days that do not crowd', () => {
    const svg = renderUsageChart(days, { width: 720 });
    const yLabels = [...svg.matchAll(/text-anchor="end" fill="[^"]+">(\d+)<\/text>/g)].map((m) => Number(m[1]));
    expect(yLabels[0]).toBe(0);
    expect(yLabels.at(-1)).toBeGreaterThanOrEqual(12);
    expect(new Set(yLabels.slice(1).map((v, i) => v - yLabels[i]!)).size).toBe(1);
    expect(svg).toContain('>credits</text>');
    const dayLabels = [...svg.matchAll(/text-anchor="middle" fill="[^"]+">(\d\d-\d\d)<\/text>/g)].map((m) => m[1]);
    expect(dayLabels[0]).toBe('03-01');
    expect(dayLabels.length).toBeGreaterThan(5);
    expect(dayLabels.length).toBeLessThanOrEqual(Math.floor((720 - 64) / 48));
    expect(svg).toContain('2026-03-01 – 2026-03-30 (UTC)');
  });

  it('is self-contained and accessible: no script, no external reference, a title and a description', () => {
    const svg = renderUsageChart(days);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).not.toMatch(/<script|href=|url\(|<style|on[a-z]+=/i);
    expect(svg).toMatch(/role="img" aria-labelledby="usage-chart-title" aria-describedby="usage-chart-desc"/);
    expect(svg).toContain('<desc id="usage-chart-desc">21 credits from 2026-03-01 to 2026-03-30 (UTC), one bar per day.</desc>');
  });

  it('escapes every text it is given', () => {
    const svg = renderUsageChart(days.slice(0, 2), { title: '<script>alert("x")</script> & co', id: 'a"b' });
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; co');
    expect(svg).toContain('id="a&#34;b-title"');
  });

  it('draws an empty range as axes without bars, and a range without credits with flat bars', () => {
    expect(bars(renderUsageChart([]))).toHaveLength(0);
    const flat = bars(renderUsageChart(usageReport('2026-03-01', '2026-03-07', []).days));
    expect(flat.map((m) => Number(m[4]))).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });
});
