/**
 * The state table's partition keys that many jobs share, as the code builds them, and what writes and
 * reads them. DynamoDB serves at most 1,000 write units and 3,000 read units a second on one partition
 * key (of the table or of an index), whatever the table's mode, so the hottest of these keys, not the
 * table, is what caps one tenant. Item keys (job#id, task#id) are each one job's and never hot.
 *
 * A key family of bench/calls-per-job.json's `state.byKey` is the part of an item's pk before its first
 * '#'. An index key is written whenever an item that carries it is written (every index projects ALL, so
 * any change to such an item writes the index too).
 */
import { parseConfig } from '../../lib/kernel/config.js';
import { RateLimiter } from '../../lib/access/auth/rate-limit.js';
import * as usageModule from '../../lib/file-api/account/usage.js';
import * as connectionsModule from '../../lib/file-api/events/connections.js';
import * as recordsModule from '../../lib/file-api/records/model.js';
import * as webhooksModule from '../../lib/file-api/webhooks/model.js';
import type { FunctionFacts } from './stack.js';

/** Which items carry which index's key (lib/file-api/tasks/service.ts, records/store.ts, webhooks/store.ts, signed-urls/store.ts). */
export const INDEXED_FAMILIES: Record<string, string[]> = {
  task: ['gsi1', 'gsi2'],
  job: ['gsi1'],
  webhook: ['gsi1'],
  'signed-url': ['gsi1'],
};

export interface Shards {
  count: number;
  /** Where the count comes from (a config setting and its value, or the code's constant). */
  source: string;
}

export interface SharedKey {
  /** The key as the code builds it. */
  key: string;
  /** `table`, or the index whose partition key it is. */
  where: string;
  /** Whose key: one user's, one API key's, or the whole stack's. */
  scope: 'user' | 'api key' | 'stack';
  /** byKey families whose writes (reads) land on this key. */
  writesFrom: string[];
  readsFrom: string[];
  /** How many partitions the code spreads the key over, read from the code (never a copy of its number). */
  shards: (config: Record<string, unknown>) => Shards;
}

/**
 * A count of shards the code declares: an exported constant of the module that builds the key, read by
 * name so that a key the code does not shard (no such export) counts as one partition.
 */
const codeShards =
  (module: Record<string, unknown>, name: string, file: string) =>
  (): Shards => {
    const value = module[name];
    if (typeof value === 'number' && value >= 1) return { count: value, source: `${name} (${file}) = ${value}` };
    return { count: 1, source: `1 (${file} has no ${name})` };
  };

/** The rate limiter's counters per API key, which it derives from the limit (RateLimiter.shardsFor). */
function rateLimitShards(config: Record<string, unknown>): Shards {
  const shardsFor = (RateLimiter as unknown as { shardsFor?: (limit: number, windowSeconds: number) => number }).shardsFor;
  const file = 'lib/access/auth/rate-limit.ts';
  if (!shardsFor) return { count: 1, source: `1 (${file} has no RateLimiter.shardsFor)` };
  const count = shardsFor(Number(config.RATE_LIMIT), Number(config.RATE_LIMIT_WINDOW_SECONDS));
  return { count, source: `RateLimiter.shardsFor(RATE_LIMIT, RATE_LIMIT_WINDOW_SECONDS) (${file}) = ${count}` };
}

const records = recordsModule as unknown as Record<string, unknown>;
const RECORDS = 'lib/file-api/records/model.ts';
const USAGE = 'lib/file-api/account/usage.ts';
const CONNECTIONS = 'lib/file-api/events/connections.ts';
const WEBHOOKS = 'lib/file-api/webhooks/model.ts';
const { ACTIVE_SHARDS } = recordsModule;

export const SHARED_KEYS: SharedKey[] = [
  { key: 'ratelimit#<api key>', where: 'table', scope: 'api key', writesFrom: ['ratelimit'], readsFrom: ['ratelimit'], shards: rateLimitShards },
  { key: 'usage#<user>', where: 'table', scope: 'user', writesFrom: ['usage'], readsFrom: ['usage'], shards: codeShards(usageModule as unknown as Record<string, unknown>, 'USAGE_SHARDS', USAGE) },
  {
    key: 'socket#subs#<user>',
    where: 'table',
    scope: 'user',
    writesFrom: [],
    readsFrom: ['socket'],
    shards: codeShards(connectionsModule as unknown as Record<string, unknown>, 'SUBSCRIPTION_SHARDS', CONNECTIONS),
  },
  { key: 'jobs#<user>', where: 'gsi1', scope: 'user', writesFrom: ['job'], readsFrom: ['jobs'], shards: codeShards(records, 'USER_JOB_SHARDS', RECORDS) },
  { key: 'tasks#<user>', where: 'gsi1', scope: 'user', writesFrom: ['task'], readsFrom: ['tasks'], shards: codeShards(records, 'USER_TASK_SHARDS', RECORDS) },
  {
    key: 'webhooks#<user>',
    where: 'gsi1',
    scope: 'user',
    writesFrom: [],
    readsFrom: ['webhooks'],
    shards: codeShards(webhooksModule as unknown as Record<string, unknown>, 'USER_WEBHOOK_SHARDS', WEBHOOKS),
  },
  {
    key: 'active#<hex>',
    where: 'gsi2',
    scope: 'stack',
    writesFrom: ['task'],
    readsFrom: [],
    shards: () => ({ count: ACTIVE_SHARDS.length, source: `ACTIVE_SHARDS (${RECORDS}) = ${ACTIVE_SHARDS.length}` }),
  },
];

/** Settings the schema requires that the template gives as expressions (a Ref), filled so that the rest parses. */
const PLACEHOLDERS = Object.fromEntries(
  ['STATE_TABLE', 'FILES_BUCKET', 'IMPORT_QUEUE', 'PROCESS_QUEUE', 'EXPORT_QUEUE', 'OPERATIONS_QUEUE', 'WEBHOOKS_QUEUE'].map((k) => [k, 'capacity-model']),
);

/** The configuration a function of the stack runs with: its environment's literals over the schema's defaults. */
export function configOf(fn: FunctionFacts): Record<string, unknown> {
  let config = parsed.get(fn);
  if (!config) parsed.set(fn, (config = parseConfig({ ...PLACEHOLDERS, ...fn.env }) as unknown as Record<string, unknown>));
  return config;
}

const parsed = new WeakMap<FunctionFacts, Record<string, unknown>>();
