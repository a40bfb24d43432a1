/**
 * List methods (AIP-132, AIP-158, AIP-160): filter, order, and page a resource collection.
 *
 * Pages are keyset pages: the page token holds the sort key of the last resource served, so that
 * resources created or deleted between two calls neither repeat nor shift the following pages. The
 * token is opaque to clients (base64url JSON) and bound to the collection, the filter and the
 * order: reusing it with another one is INVALID_ARGUMENT, as AIP-158 asks.
 */
import { createHash } from 'node:crypto';
import { ApiError } from '../kernel/errors.js';
import { checkFilterLimits, compileFilter, FilterError, parseFilter, resolveField, valueAt, type FieldSchema, type FieldType } from './filter.js';
import { param } from './wire.js';

export interface OrderTerm {
  path: string;
  type: FieldType;
  desc: boolean;
}

const invalid = (field: string, message: string) => new ApiError('INVALID_ARGUMENT', message, { fields: { [field]: [message] } });

/** Parses an AIP-132 `orderBy`: comma-separated field paths, each optionally followed by `asc` or `desc`. */
export function parseOrderBy(text: string | undefined, schema: FieldSchema): OrderTerm[] {
  if (!text || !text.trim()) return [];
  return text.split(',').map((part) => {
    const words = part.trim().split(/\s+/);
    const [field, direction, ...rest] = words;
    if (!field || rest.length || (direction !== undefined && !/^(asc|desc)$/i.test(direction))) {
      throw invalid('orderBy', `Invalid orderBy term "${part.trim()}"; write a field name optionally followed by asc or desc, e.g. "createTime desc, displayName".`);
    }
    const resolved = resolveField(schema, field.split('.'));
    if (!resolved || resolved.type.type === 'map' || resolved.mapKey !== undefined) {
      const sortable = Object.entries(schema).filter(([, t]) => t.type !== 'map').map(([k]) => k);
      throw invalid('orderBy', `Cannot order by "${field}"; sortable fields: ${sortable.join(', ')}.`);
    }
    return { path: resolved.path, type: resolved.type, desc: direction?.toLowerCase() === 'desc' };
  });
}

/** A JSON-safe sort key component. */
type KeyPart = string | number | null;

function keyPart(value: unknown, type: FieldType): KeyPart {
  switch (type.type) {
    case 'enum':
      return type.enum.numberOf(type.enum.parse(value) ?? type.enum.unspecified);
    case 'int':
      return typeof value === 'number' || typeof value === 'string' ? String(value) : '0';
    case 'bool':
      return value === true ? 1 : 0;
    case 'timestamp':
    case 'string':
      return typeof value === 'string' ? value : '';
    default:
      return null;
  }
}

const INTEGER = /^-?\d{1,30}$/;

function comparePart(a: KeyPart, b: KeyPart, type: FieldType): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  // Page tokens come back from clients: a sort key that is no integer compares as text, never throws.
  if (type.type === 'int' && INTEGER.test(String(a)) && INTEGER.test(String(b))) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (type.type === 'timestamp') {
    // Our own timestamps all share one format, so their strings sort in time order; ms precision.
    const x = Date.parse(String(a));
    const y = Date.parse(String(b));
    if (x !== y) return x < y ? -1 : 1;
  }
  return a < b ? -1 : 1;
}

export interface ListRequest {
  /** The collection: a parent name. */
  collection: string;
  params: URLSearchParams;
  schema: FieldSchema;
  /** Order when `orderBy` is absent; the resource name always breaks ties. */
  defaultOrder?: string;
  /** Whether `orderBy` may be given at all (ListOperations and ListLocations have none). */
  orderable?: boolean;
  pageSizes: { default: number; max: number };
}

export interface ListPage<T> {
  items: T[];
  nextPageToken?: string;
}

interface TokenBody {
  v: 1;
  /** Hash of collection, filter and order. */
  h: string;
  /** Sort key of the last item served, resource name last. */
  k: KeyPart[];
}

/** Reads pageSize: absent or 0 → the default; negative or not an integer → INVALID_ARGUMENT; above the maximum → the maximum. */
export function pageSizeOf(params: URLSearchParams, sizes: { default: number; max: number }): number {
  const raw = param(params, 'pageSize');
  if (raw === undefined || raw === '') return Math.min(sizes.default, sizes.max);
  if (!/^-?\d+$/.test(raw) || Number(raw) < 0 || Number(raw) > 2 ** 31 - 1) {
    throw invalid('pageSize', `pageSize must be a non-negative integer, not "${raw}".`);
  }
  const n = Number(raw);
  return Math.min(n === 0 ? sizes.default : n, sizes.max);
}

/**
 * Applies filter, order and paging of a list request to every resource of the collection.
 * `items` are the resources' JSON views (enums as names), each with its `name`.
 */
export function listPage<T extends { name?: string }>(all: readonly T[], req: ListRequest): ListPage<T> {
  const filterText = param(req.params, 'filter') ?? '';
  let predicate;
  try {
    checkFilterLimits(filterText);
  } catch (err) {
    // Not echoed: the filter is what is too long.
    if (err instanceof FilterError) throw invalid('filter', `Invalid filter: ${err.message}.`);
    throw err;
  }
  try {
    predicate = compileFilter(parseFilter(filterText), req.schema);
  } catch (err) {
    if (err instanceof FilterError) throw invalid('filter', `Invalid filter "${filterText}": ${err.message}.`);
    throw err;
  }
  const orderText = param(req.params, 'orderBy');
  if (orderText && req.orderable === false) throw invalid('orderBy', 'This list method does not support orderBy.');
  const order = parseOrderBy(orderText || req.defaultOrder, req.schema);
  const pageSize = pageSizeOf(req.params, req.pageSizes);

  const keyOf = (item: T): KeyPart[] => [
    ...order.map((o) => keyPart(valueAt(item, o.path), o.type)),
    item.name ?? '',
  ];
  const compareKeys = (a: KeyPart[], b: KeyPart[]): number => {
    for (let i = 0; i < order.length; i++) {
      const o = order[i]!;
      const c = comparePart(a[i] ?? null, b[i] ?? null, o.type);
      if (c !== 0) return o.desc ? -c : c;
    }
    const x = String(a[order.length] ?? '');
    const y = String(b[order.length] ?? '');
    return x < y ? -1 : x > y ? 1 : 0;
  };

  const hash = createHash('sha256')
    .update(JSON.stringify([req.collection, filterText.trim(), order.map((o) => [o.path, o.desc])]))
    .digest('base64url')
    .slice(0, 16);

  const tokenText = param(req.params, 'pageToken');
  let after: KeyPart[] | undefined;
  if (tokenText) {
    let body: TokenBody | undefined;
    try {
      body = JSON.parse(Buffer.from(tokenText, 'base64url').toString('utf8')) as TokenBody;
    } catch {
      body = undefined;
    }
    const isKeyPart = (p: unknown) => p === null || typeof p === 'string' || (typeof p === 'number' && Number.isFinite(p));
    if (!body || body.v !== 1 || !Array.isArray(body.k) || body.k.length !== order.length + 1 || typeof body.h !== 'string' || !body.k.every(isKeyPart)) {
      throw invalid('pageToken', 'Invalid pageToken; pass the nextPageToken of the previous page unchanged.');
    }
    if (body.h !== hash) {
      throw invalid('pageToken', 'The pageToken belongs to a list call with another parent, filter or orderBy; repeat those unchanged while paging.');
    }
    after = body.k;
  }

  const keyed = all.filter((item) => predicate(item as Record<string, unknown>)).map((item) => ({ item, key: keyOf(item) }));
  keyed.sort((a, b) => compareKeys(a.key, b.key));
  const start = after ? keyed.findIndex((e) => compareKeys(e.key, after) > 0) : 0;
  const rest = start < 0 ? [] : keyed.slice(start);
  const page = rest.slice(0, pageSize);
  const last = page[page.length - 1];
  const more = rest.length > pageSize && last;
  return {
    items: page.map((e) => e.item),
    nextPageToken: more ? Buffer.from(JSON.stringify({ v: 1, h: hash, k: last.key } satisfies TokenBody)).toString('base64url') : undefined,
  };
}
