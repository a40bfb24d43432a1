import { describe, expect, it } from 'vitest';
import type { ApiError } from '#lib/kernel/errors.js';
import { listPage, pageSizeOf, parseOrderBy, type ListRequest } from '#lib/google/list.js';
import type { FieldSchema } from '#lib/google/filter.js';

const schema: FieldSchema = { name: { type: 'string' }, createTime: { type: 'timestamp' }, size: { type: 'int' }, labels: { type: 'map' } };
const item = (n: number, size = n) => ({ name: `things/t${String(n).padStart(2, '0')}`, createTime: new Date(Date.UTC(2024, 0, n)).toISOString(), size: String(size) });
const sizes = { default: 2, max: 3 };
const request = (query: string, extra: Partial<ListRequest> = {}): ListRequest => ({
  collection: 'parents/p',
  params: new URLSearchParams(query),
  schema,
  pageSizes: sizes,
  ...extra,
});

function reason(fn: () => unknown): [string, string[]] {
  try {
    fn();
  } catch (err) {
    const e = err as ApiError;
    return [e.reason, Object.keys(e.fields ?? {})];
  }
  throw new Error('did not throw');
}

describe('page sizes', () => {
  it('uses the default for 0 or absent, caps at the maximum, refuses negatives', () => {
    expect(pageSizeOf(new URLSearchParams(''), sizes)).toBe(2);
    expect(pageSizeOf(new URLSearchParams('pageSize=0'), sizes)).toBe(2);
    expect(pageSizeOf(new URLSearchParams('page_size=1'), sizes)).toBe(1);
    expect(pageSizeOf(new URLSearchParams('pageSize=99'), sizes)).toBe(3);
    expect(reason(() => pageSizeOf(new URLSearchParams('pageSize=-1'), sizes))).toEqual(['INVALID_ARGUMENT', ['pageSize']]);
    expect(reason(() => pageSizeOf(new URLSearchParams('pageSize=ten'), sizes))).toEqual(['INVALID_ARGUMENT', ['pageSize']]);
  });
});

describe('orderBy', () => {
  it('parses fields with directions and refuses unknown or unsortable ones', () => {
    expect(parseOrderBy('createTime desc, name', schema).map((o) => [o.path, o.desc])).toEqual([
      ['createTime', true],
      ['name', false],
    ]);
    expect(parseOrderBy('create_time ASC', schema)[0]).toMatchObject({ path: 'createTime', desc: false });
    expect(reason(() => parseOrderBy('colour', schema))).toEqual(['INVALID_ARGUMENT', ['orderBy']]);
    expect(reason(() => parseOrderBy('labels', schema))).toEqual(['INVALID_ARGUMENT', ['orderBy']]);
    expect(reason(() => parseOrderBy('name sideways', schema))).toEqual(['INVALID_ARGUMENT', ['orderBy']]);
  });
});

describe('list pages', () => {
  it('walks every item once, in order, with opaque tokens', () => {
    const all = [item(3, 30), item(1, 100), item(2, 20), item(4, 40), item(5, 5)];
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = listPage(all, request(`orderBy=size%20desc${token ? `&pageToken=${token}` : ''}`));
      seen.push(...page.items.map((i) => i.name));
      token = page.nextPageToken;
      if (token) expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    } while (token);
    expect(seen).toEqual(['things/t01', 'things/t04', 'things/t03', 'things/t02', 'things/t05']);
  });

  it('neither repeats nor skips items when the collection changes between pages', () => {
    const all = [item(1), item(2), item(3), item(4)];
    const first = listPage(all, request(''));
    expect(first.items.map((i) => i.name)).toEqual(['things/t01', 'things/t02']);
    // t01 deleted and t00 inserted before the cursor; t05 after it.
    const changed = [item(0), item(2), item(3), item(4), item(5)];
    const second = listPage(changed, request(`pageToken=${first.nextPageToken}`));
    expect(second.items.map((i) => i.name)).toEqual(['things/t03', 'things/t04']);
  });

  it('binds tokens to collection, filter and order, and refuses forged ones', () => {
    const all = [item(1), item(2), item(3)];
    const { nextPageToken } = listPage(all, request('filter=size%20%3E%200'));
    expect(nextPageToken).toBeTruthy();
    expect(listPage(all, request(`filter=size%20%3E%200&pageToken=${nextPageToken}`)).items).toHaveLength(1);
    expect(reason(() => listPage(all, request(`pageToken=${nextPageToken}`)))).toEqual(['INVALID_ARGUMENT', ['pageToken']]);
    expect(reason(() => listPage(all, request(`filter=size%20%3E%200&pageToken=${nextPageToken}`, { collection: 'parents/q' })))).toEqual([
      'INVALID_ARGUMENT',
      ['pageToken'],
    ]);
    expect(reason(() => listPage(all, request('pageToken=bm90LWpzb24')))).toEqual(['INVALID_ARGUMENT', ['pageToken']]);
    expect(reason(() => listPage(all, request('filter=size%20%3E', {})))).toEqual(['INVALID_ARGUMENT', ['filter']]);
    expect(reason(() => listPage(all, request('orderBy=name', { orderable: false })))).toEqual(['INVALID_ARGUMENT', ['orderBy']]);
  });
});
