/** The usage report: the range a request asks for, every day of it with its operations, the totals. */
import { describe, expect, it } from 'vitest';
import { usageRange, usageReport } from '#lib/file-api/account/usage.js';
import { ApiError } from '#lib/kernel/errors.js';

const now = new Date('2026-03-10T15:00:00Z');
const fieldsOf = (run: () => unknown): Record<string, string[]> | undefined => {
  try {
    run();
  } catch (err) {
    if (err instanceof ApiError && err.reason === 'INVALID_ARGUMENT') return err.fields;
    throw err;
  }
  return undefined;
};

describe('the range of a usage request', () => {
  it('defaults to the last 30 days, today (UTC) included', () => {
    expect(usageRange({}, now)).toEqual({ from: '2026-02-09', to: '2026-03-10' });
    expect(usageRange({ to: '2026-01-31' }, now)).toEqual({ from: '2026-01-02', to: '2026-01-31' });
    expect(usageRange({ from: '2026-03-01' }, now)).toEqual({ from: '2026-03-01', to: '2026-03-10' });
  });

  it('takes a range of up to 366 days, a single day too', () => {
    expect(usageRange({ from: '2024-01-01', to: '2024-12-31' }, now)).toEqual({ from: '2024-01-01', to: '2024-12-31' });
    expect(usageRange({ from: '2026-02-28', to: '2026-02-28' }, now)).toEqual({ from: '2026-02-28', to: '2026-02-28' });
  });

  it('refuses, naming the field, dates that are not YYYY-MM-DD calendar days', () => {
    expect(fieldsOf(() => usageRange({ from: '2026-02-30' }, now))).toEqual({ from: ['must be a date written YYYY-MM-DD.'] });
    expect(Object.keys(fieldsOf(() => usageRange({ to: '10/03/2026' }, now))!)).toEqual(['to']);
    expect(Object.keys(fieldsOf(() => usageRange({ from: '2026-1-5', to: 'today' }, now))!)).toEqual(['from', 'to']);
  });

  it('refuses a reversed range and one longer than 366 days', () => {
    expect(Object.keys(fieldsOf(() => usageRange({ from: '2026-03-02', to: '2026-03-01' }, now))!)).toEqual(['from']);
    expect(fieldsOf(() => usageRange({ from: '2023-12-31', to: '2024-12-31' }, now))?.from?.[0]).toMatch(/covers 367 days; at most 366/);
  });
});

describe('the usage report', () => {
  it('lists every day of the range with its operations, and the totals', () => {
    const report = usageReport('2026-03-01', '2026-03-03', [
      { date: '2026-03-03', operation: 'convert', credits: 4, tasks: 5, failed: 1 },
      { date: '2026-03-01', operation: 'convert', credits: 2, tasks: 2, failed: 0 },
      { date: '2026-03-01', operation: 'import/url', credits: 0, tasks: 3, failed: 1 },
      { date: '2026-02-28', operation: 'convert', credits: 9, tasks: 9, failed: 0 },
    ]);
    expect(report.days.map((d) => d.date)).toEqual(['2026-03-01', '2026-03-02', '2026-03-03']);
    expect(report.days[0]).toEqual({
      date: '2026-03-01',
      credits: 2,
      tasks: 5,
      failed: 1,
      operations: { convert: { credits: 2, tasks: 2, failed: 0 }, 'import/url': { credits: 0, tasks: 3, failed: 1 } },
    });
    expect(report.days[1]).toEqual({ date: '2026-03-02', credits: 0, tasks: 0, failed: 0, operations: {} });
    expect(report.totals).toEqual({
      credits: 6,
      tasks: 10,
      failed: 2,
      operations: { convert: { credits: 6, tasks: 7, failed: 1 }, 'import/url': { credits: 0, tasks: 3, failed: 1 } },
    });
  });

  it('spans month and year ends', () => {
    expect(usageReport('2025-12-30', '2026-01-02', []).days.map((d) => d.date)).toEqual(['2025-12-30', '2025-12-31', '2026-01-01', '2026-01-02']);
  });
});
