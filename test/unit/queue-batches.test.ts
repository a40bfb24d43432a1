import { describe, expect, it } from 'vitest';
import { batches, MAX_MESSAGE_BYTES } from '#lib/adapters/queue/sqs.js';

describe('SQS batches', () => {
  it('groups at most 10 messages and 256 KiB per batch, in order', () => {
    const small = Array.from({ length: 23 }, (_, i) => `m${i}`);
    expect(batches(small).map((b) => b.length)).toEqual([10, 10, 3]);
    const large = Array.from({ length: 5 }, (_, i) => String(i).repeat(100 * 1024));
    const grouped = batches(large);
    expect(grouped.map((b) => b.map((e) => e.index))).toEqual([[0, 1], [2, 3], [4]]);
    for (const b of grouped) expect(b.reduce((n, e) => n + Buffer.byteLength(e.body), 0)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
  });

  it('refuses a single message over the limit instead of letting SQS reject the batch', () => {
    expect(() => batches(['ok', 'x'.repeat(MAX_MESSAGE_BYTES + 1)])).toThrow(/larger than a queue message may be/);
  });
});
