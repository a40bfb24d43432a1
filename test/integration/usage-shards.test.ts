/** The usage ledger spread over shards: adds land on several keys, the report sums them all, the key of before included. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayOf, Usage, usageShards } from '#lib/file-api/account/usage.js';
import { startStateBackend } from '../support/dynalite.js';

// Days the ledger still keeps: today and yesterday.
const today = dayOf(new Date());
const yesterday = dayOf(new Date(Date.now() - 24 * 3600 * 1000));

let backend: Awaited<ReturnType<typeof startStateBackend>>;
beforeAll(async () => {
  backend = await startStateBackend();
});
afterAll(() => backend.close());

describe('the usage ledger of a busy user', () => {
  it('adds to one shard at a time and reports the sum of every shard', async () => {
    let next = 0;
    const usage = new Usage(backend.store, 30, (shards) => next++ % shards);
    const user = 31;
    const day = today;
    for (let i = 0; i < 8; i++) await usage.add(user, day, 'convert', { credits: 2, tasks: 1, failed: i % 4 === 0 ? 1 : 0 });
    await usage.add(user, yesterday, 'export/url', { credits: 0, tasks: 1, failed: 0 });
    const used = await Promise.all(usageShards(user).map(async (pk) => (await backend.store.query(pk)).items.length));
    expect(used.every((n) => n > 0)).toBe(true);
    const report = await usage.report(user, yesterday, day);
    expect(report.totals).toEqual({ credits: 16, tasks: 9, failed: 2, operations: { convert: { credits: 16, tasks: 8, failed: 2 }, 'export/url': { credits: 0, tasks: 1, failed: 0 } } });
    expect(report.days.map((d) => d.tasks)).toEqual([1, 8]);
  });

  it('reports the items written before the sharding (the one key of before)', async () => {
    const user = 32;
    await backend.store.put({ pk: `usage#${user}`, sk: `${today}#convert`, date: today, operation: 'convert', credits: 5, tasks: 2, failed: 0 });
    await new Usage(backend.store, 30, () => 3).add(user, today, 'convert', { credits: 1, tasks: 1, failed: 0 });
    expect((await new Usage(backend.store, 30).report(user, today, today)).totals).toMatchObject({ credits: 6, tasks: 3 });
  });
});
