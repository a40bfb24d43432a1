/**
 * The Account page's pure parts: the webhook event names the console offers are those
 * POST /v2/webhooks accepts, and the usage chart's geometry (one bar per day, heights by credits
 * against a round top, words for each bar).
 */
import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENTS } from '#lib/file-api/webhooks/model.js';
import { chartGeometry, scaleTop } from '../../console/src/usage-bars.js';
import { WEBHOOK_EVENT_NAMES } from '../../console/src/webhook-events.js';

describe('the account page logic', () => {
  it('offers exactly the webhook events the API accepts', () => {
    expect([...WEBHOOK_EVENT_NAMES].sort()).toEqual([...WEBHOOK_EVENTS].sort());
  });

  it('rounds the scale up to 1, 2 or 5 times a power of ten', () => {
    expect([0, 0.3, 1, 3, 7, 12, 20, 21, 480, 501].map(scaleTop)).toEqual([1, 0.5, 1, 5, 10, 20, 20, 50, 500, 1000]);
  });

  it('draws one bar per day, the highest day reaching the top only when it is the round top', () => {
    const days = [
      { date: '2026-11-01', credits: 0, tasks: 0, failed: 0 },
      { date: '2026-11-02', credits: 10, tasks: 4, failed: 1 },
      { date: '2026-11-03', credits: 5, tasks: 1, failed: 0 },
    ];
    const g = chartGeometry(days, { width: 348, height: 140 });
    expect(g.bars.map((b) => b.date)).toEqual(days.map((d) => d.date));
    const full = g.plot.bottom - g.plot.top;
    expect(g.top).toBe(10);
    expect(g.bars.map((b) => b.height)).toEqual([0, full, full / 2]);
    expect(g.bars.every((b) => b.y + b.height === g.plot.bottom)).toBe(true);
    // Bars stay inside the plot and do not overlap.
    for (let i = 1; i < g.bars.length; i++) expect(g.bars[i]!.x).toBeGreaterThan(g.bars[i - 1]!.x + g.bars[i - 1]!.width);
    expect(g.bars.at(-1)!.x + g.bars.at(-1)!.width).toBeLessThanOrEqual(g.plot.right);
    expect(g.bars[1]!.title).toBe('2026-11-02: 10 credits, 4 tasks, 1 failed');
    expect(g.bars[2]!.title).toBe('2026-11-03: 5 credits, 1 task');
    expect(g.ticks.map((t) => t.value)).toEqual([0, 2.5, 5, 7.5, 10]);
  });
});
