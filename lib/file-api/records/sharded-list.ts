/**
 * A list over the shards of a user's index key (gsi1), newest first as one key would give it. Each
 * page queries every shard for items older than the cursor and merges them by sort key; an item is
 * given only while every shard that has more has an item left to compare it with, so nothing newer
 * can come later. The cursor is the sort key of the last item given (sort keys end with the record's
 * id, so they are unique): the next page starts below it in every shard.
 */
import type { Item, Page, StateStore } from '../../adapters/state/port.js';

const encode = (sortKey: string) => Buffer.from(sortKey).toString('base64url');
const decode = (cursor: string) => Buffer.from(cursor, 'base64url').toString();

export async function listShards<T extends Item>(state: StateStore, keys: readonly string[], opts: { limit: number; cursor?: string }): Promise<Page<T>> {
  const below = opts.cursor === undefined ? undefined : decode(opts.cursor);
  // Each shard is read for a share of the page, twice over, so that an uneven spread still fills most of it.
  const perShard = Math.max(10, Math.ceil((2 * opts.limit) / keys.length));
  const pages = await Promise.all(keys.map((pk) => state.query<T>(pk, { index: 'gsi1', descending: true, below, limit: perShard })));
  const heads = pages.map((p) => ({ items: p.items, next: 0, more: p.cursor !== undefined }));
  const sortKey = (item: T) => String(item.gsi1sk);
  const items: T[] = [];
  while (items.length < opts.limit) {
    // A shard read to its page's end that has more: its next item may be newer than any left here.
    if (heads.some((h) => h.more && h.next >= h.items.length)) break;
    let newest: (typeof heads)[number] | undefined;
    for (const h of heads) {
      if (h.next < h.items.length && (!newest || sortKey(h.items[h.next]!) > sortKey(newest.items[newest.next]!))) newest = h;
    }
    if (!newest) break;
    items.push(newest.items[newest.next++]!);
  }
  const more = heads.some((h) => h.more || h.next < h.items.length);
  const last = items.at(-1);
  return { items, ...(more && last ? { cursor: encode(sortKey(last)) } : {}) };
}
