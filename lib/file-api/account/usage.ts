/**
 * The usage ledger: for each user, UTC day and operation, the credits charged and the tasks that
 * ended (and how many of them failed), added to atomically when a task is settled. One item per user,
 * day, operation and shard (`usage#<user>[#s<n>]` / `<day>#<operation>`): each settle adds to a shard
 * picked at random, as every task of a job settles once and a busy user's adds on one key would cap
 * them near 500 jobs/s; a range is one query per shard, in day order, the shards' counts summed. Shard
 * 0 is the key of before. The items outlive the tasks (24 hours) by USAGE_RETENTION_DAYS.
 */
import { ApiError } from '../../kernel/errors.js';
import type { Item, StateStore } from '../../adapters/state/port.js';
import { anyShard, shardKey, shardKeys } from '../../kernel/shards.js';

export interface UsageCounts {
  credits: number;
  tasks: number;
  failed: number;
}

export interface UsageDay extends UsageCounts {
  /** `YYYY-MM-DD`, UTC. */
  date: string;
  /** The operations that had tasks that day. */
  operations: Record<string, UsageCounts>;
}

/** What `GET /v2/users/me/usage` answers: every day of the range, oldest first, and the totals. */
export interface UsageReport {
  from: string;
  to: string;
  days: UsageDay[];
  totals: UsageCounts & { operations: Record<string, UsageCounts> };
}

interface UsageItem extends Item, UsageCounts {
  date: string;
  operation: string;
}

/** The longest range one report covers, in days. */
export const MAX_USAGE_DAYS = 366;
/** The range when none is asked for: the last 30 days, today included. */
export const DEFAULT_USAGE_DAYS = 30;

const DAY_MS = 24 * 60 * 60 * 1000;
/** Two adds per two-task job: 4 shards keep one user's ledger within 1,000 writes/s per key up to ~2,000 jobs/s. */
export const USAGE_SHARDS = 4;
/** Every shard's partition key of the user's ledger, shard 0 first. */
export const usageShards = (userId: number) => shardKeys(`usage#${userId}`, USAGE_SHARDS);

/** The UTC day of a time, `YYYY-MM-DD`. */
export const dayOf = (time: Date | string): string => new Date(time).toISOString().slice(0, 10);
const addDays = (day: string, n: number) => dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS));
const daysBetween = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);

/** Whether `text` is a calendar date written `YYYY-MM-DD` (2025-02-30 is not). */
function isDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const time = Date.parse(`${text}T00:00:00Z`);
  return !Number.isNaN(time) && dayOf(new Date(time)) === text;
}

/**
 * The range a request asks for: `to` defaults to today (UTC), `from` to 29 days before `to`. A date
 * that is not `YYYY-MM-DD`, a `from` after `to`, or a range of more than MAX_USAGE_DAYS days is a 422
 * naming the field.
 */
export function usageRange(query: { from?: string; to?: string }, now = new Date()): { from: string; to: string } {
  const fields: Record<string, string[]> = {};
  for (const field of ['from', 'to'] as const) {
    const value = query[field];
    if (value !== undefined && !isDate(value)) fields[field] = ['must be a date written YYYY-MM-DD.'];
  }
  if (Object.keys(fields).length) throw new ApiError('INVALID_ARGUMENT', 'The given data was invalid.', { fields });
  const to = query.to ?? dayOf(now);
  const from = query.from ?? addDays(to, 1 - DEFAULT_USAGE_DAYS);
  if (from > to) throw new ApiError('INVALID_ARGUMENT', 'The given data was invalid.', { fields: { from: [`must not be after to (${to}).`] } });
  const days = daysBetween(from, to) + 1;
  if (days > MAX_USAGE_DAYS) {
    throw new ApiError('INVALID_ARGUMENT', 'The given data was invalid.', {
      fields: { from: [`The range ${from} to ${to} covers ${days} days; at most ${MAX_USAGE_DAYS} are answered at once.`] },
    });
  }
  return { from, to };
}

const zero = (): UsageCounts => ({ credits: 0, tasks: 0, failed: 0 });
function addTo(sum: UsageCounts, counts: UsageCounts): void {
  sum.credits += counts.credits;
  sum.tasks += counts.tasks;
  sum.failed += counts.failed;
}

/** The report of a range from the ledger's items (any order; those outside the range are left out). */
export function usageReport(from: string, to: string, items: ReadonlyArray<UsageCounts & { date: string; operation: string }>): UsageReport {
  const days = new Map<string, UsageDay>();
  for (let day = from; day <= to; day = addDays(day, 1)) days.set(day, { date: day, ...zero(), operations: {} });
  const totals: UsageReport['totals'] = { ...zero(), operations: {} };
  for (const item of items) {
    const day = days.get(item.date);
    if (!day) continue;
    const counts = { credits: item.credits ?? 0, tasks: item.tasks ?? 0, failed: item.failed ?? 0 };
    addTo(day, counts);
    addTo((day.operations[item.operation] ??= zero()), counts);
    addTo(totals, counts);
    addTo((totals.operations[item.operation] ??= zero()), counts);
  }
  return { from, to, days: [...days.values()], totals };
}

export class Usage {
  constructor(
    private readonly state: StateStore,
    /** Days an item is kept after its day. */
    private readonly retentionDays: number,
    /** The shard an add goes to (tests fix it). */
    private readonly pick: (shards: number) => number = anyShard,
  ) {}

  /** Adds a settled task's counts to its user's day and operation. */
  async add(userId: number, date: string, operation: string, counts: UsageCounts): Promise<void> {
    const expiresAt = Math.floor(Date.parse(`${addDays(date, 1 + this.retentionDays)}T00:00:00Z`) / 1000);
    await this.state.update(
      { pk: shardKey(`usage#${userId}`, this.pick(USAGE_SHARDS)), sk: `${date}#${operation}` },
      { add: { credits: counts.credits, tasks: counts.tasks, failed: counts.failed }, set: { date, operation, expiresAt } },
    );
  }

  /** The user's usage from `from` to `to` (days, inclusive). */
  async report(userId: number, from: string, to: string): Promise<UsageReport> {
    const shards = await Promise.all(usageShards(userId).map((pk) => this.#range(pk, from, to)));
    return usageReport(from, to, shards.flat());
  }

  /** One shard's items from `from` to `to`: newest first from the day after `to`, until a day before `from`. */
  async #range(pk: string, from: string, to: string): Promise<UsageItem[]> {
    const items: UsageItem[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.state.query<UsageItem>(pk, { below: addDays(to, 1), descending: true, cursor });
      for (const item of page.items) {
        if (item.date < from) return items;
        items.push(item);
      }
      cursor = page.cursor;
    } while (cursor);
    return items;
  }
}
