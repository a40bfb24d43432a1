/**
 * How many partitions the code spreads each shared key over, read from the code that builds the key
 * (an exported constant, or the class that derives the count from the configuration), never a copy of
 * its number. A key the code does not shard counts as one partition. Modules that only some versions
 * of the tree have (the waits' budget, the per-user listeners mark) are loaded if present, and named
 * by what they lack otherwise.
 */
import { RateLimiter } from '../../lib/access/auth/rate-limit.js';
import * as usageModule from '../../lib/file-api/account/usage.js';
import * as connectionsModule from '../../lib/file-api/events/connections.js';
import * as recordsModule from '../../lib/file-api/records/model.js';
import * as webhooksModule from '../../lib/file-api/webhooks/model.js';

export interface Shards {
  count: number;
  /** Where the count comes from (the code's constant or class, and the value). */
  source: string;
}

export type ShardSource = (config: Record<string, unknown>) => Shards;

const asRecord = (module: object) => module as unknown as Record<string, unknown>;

/** A module of the tree if this tree has it (`rel` from lib/), else nothing. */
const optional = (rel: string): Promise<Record<string, unknown> | undefined> =>
  import(new URL(`../../lib/${rel}`, import.meta.url).href).then(asRecord, () => undefined);

const [waitBudgetModule, listenersModule] = await Promise.all([optional('file-api/tasks/wait-budget.js'), optional('file-api/records/listeners.js')]);

/** An exported count of the module that builds the key. */
const constant =
  (module: Record<string, unknown> | undefined, name: string, file: string): ShardSource =>
  () => {
    const value = module?.[name];
    if (typeof value === 'number' && value >= 1) return { count: value, source: `${name} (${file}) = ${value}` };
    return { count: 1, source: module ? `1 (${file} has no ${name})` : `1 (no ${name} in the code)` };
  };

/** The rate limiter's counters per API key, which it derives from the limit (RateLimiter.shardsFor). */
const rateLimit: ShardSource = (config) => {
  const shardsFor = (RateLimiter as unknown as { shardsFor?: (limit: number, windowSeconds: number) => number }).shardsFor;
  const file = 'lib/access/auth/rate-limit.ts';
  if (!shardsFor) return { count: 1, source: `1 (${file} has no RateLimiter.shardsFor)` };
  const count = shardsFor(Number(config.RATE_LIMIT), Number(config.RATE_LIMIT_WINDOW_SECONDS));
  return { count, source: `RateLimiter.shardsFor(RATE_LIMIT, RATE_LIMIT_WINDOW_SECONDS) (${file}) = ${count}` };
};

/** The waits' budget counters, which the budget spreads over its keys (WaitBudget.keys(), no I/O). */
const waitBudget: ShardSource = (config) => {
  type Budget = new (state: unknown, opts: { budget: number; windowSeconds: number }) => { keys(): string[] };
  const WaitBudget = waitBudgetModule?.WaitBudget as Budget | undefined;
  if (!WaitBudget || config.WAIT_BUDGET === undefined) return { count: 1, source: '1 (no WaitBudget in the code)' };
  const count = new WaitBudget(undefined, { budget: Number(config.WAIT_BUDGET), windowSeconds: Number(config.SYNC_MAX_WAIT_SECONDS) }).keys().length;
  return { count, source: `WaitBudget(WAIT_BUDGET).keys() (lib/file-api/tasks/wait-budget.ts) = ${count}` };
};

const RECORDS = 'lib/file-api/records/model.ts';
const { ACTIVE_SHARDS } = recordsModule;

export const SHARDS = {
  rateLimit,
  waitBudget,
  usage: constant(asRecord(usageModule), 'USAGE_SHARDS', 'lib/file-api/account/usage.ts'),
  subscriptions: constant(asRecord(connectionsModule), 'SUBSCRIPTION_SHARDS', 'lib/file-api/events/connections.ts'),
  listeners: constant(listenersModule, 'LISTENER_SHARDS', 'lib/file-api/records/listeners.ts'),
  userJobs: constant(asRecord(recordsModule), 'USER_JOB_SHARDS', RECORDS),
  userTasks: constant(asRecord(recordsModule), 'USER_TASK_SHARDS', RECORDS),
  userWebhooks: constant(asRecord(webhooksModule), 'USER_WEBHOOK_SHARDS', 'lib/file-api/webhooks/model.ts'),
  active: (() => ({ count: ACTIVE_SHARDS.length, source: `ACTIVE_SHARDS (${RECORDS}) = ${ACTIVE_SHARDS.length}` })) as ShardSource,
  /** One item: an item cannot be spread. */
  item: (() => ({ count: 1, source: '1 (one item)' })) as ShardSource,
};
