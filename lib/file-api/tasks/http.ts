/** Shared pieces of the job and task endpoints: loading what the caller owns, pages, includes. */
import * as z from 'zod';
import { notFound } from '../../kernel/errors.js';
import type { HttpRequest, Principal } from '../../http/types.js';
import type { Page } from '../../adapters/state/port.js';
import { isSandbox, type JobRecord, type TaskRecord } from '../records/model.js';
import type { TaskStore } from '../records/store.js';

export const idParams = z.object({ id: z.string().uuid('must be a task or job id') });

/** Whether the caller may see the record: the caller's own, and of the caller's kind (sandbox or live). */
export const owns = (principal: Principal, record: { userId: number; sandbox?: unknown }) =>
  record.userId === principal.userId && isSandbox(record) === principal.sandbox;

export async function ownedTask(store: TaskStore, id: string, principal: Principal): Promise<TaskRecord> {
  const task = await store.getTask(id);
  if (!task || !owns(principal, task)) throw notFound(`No task with id ${id}.`);
  return task;
}

export async function ownedJob(store: TaskStore, id: string, principal: Principal): Promise<JobRecord> {
  const job = await store.getJob(id);
  if (!job || !owns(principal, job)) throw notFound(`No job with id ${id}.`);
  return job;
}

export const pageQuery = z.looseObject({
  page: z.coerce.number().int().min(1, 'must be 1 or more').default(1),
  per_page: z.coerce.number().int().min(1, 'must be 1 or more').max(1000, 'must be at most 1000').default(100),
  include: z.string().optional(),
});

/**
 * One page of a newest-first listing, `page` and `per_page` as the file API counts them, with a
 * filter applied while reading the store's pages.
 */
export async function collectPage<T>(
  read: (cursor: string | undefined) => Promise<Page<T>>,
  keep: (item: T) => boolean,
  page: number,
  perPage: number,
): Promise<{ items: T[]; hasMore: boolean }> {
  const skip = (page - 1) * perPage;
  const wanted: T[] = [];
  let seen = 0;
  let cursor: string | undefined;
  do {
    const batch = await read(cursor);
    for (const item of batch.items) {
      if (!keep(item)) continue;
      if (seen++ < skip) continue;
      wanted.push(item);
      if (wanted.length > perPage) return { items: wanted.slice(0, perPage), hasMore: true };
    }
    cursor = batch.cursor;
  } while (cursor);
  return { items: wanted, hasMore: false };
}

/** The list envelope: `data`, `links` and `meta` of the simple paginator. */
export function listBody(req: HttpRequest<unknown, unknown>, data: unknown[], page: number, perPage: number, hasMore: boolean) {
  const path = `${req.baseUrl}${req.path}`;
  const at = (n: number) => {
    const q = new URLSearchParams(req.searchParams);
    q.set('page', String(n));
    return `${path}?${q.toString()}`;
  };
  const from = data.length ? (page - 1) * perPage + 1 : null;
  return {
    data,
    links: { first: at(1), last: null, prev: page > 1 ? at(page - 1) : null, next: hasMore ? at(page + 1) : null },
    meta: { current_page: page, from, path, per_page: perPage, to: from === null ? null : from + data.length - 1 },
  };
}
