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
import { SHARDS, type ShardSource } from './shard-sources.js';
import type { FunctionFacts } from './stack.js';

/** Which items carry which index's key (lib/file-api/tasks/service.ts, records/store.ts, webhooks/store.ts, signed-urls/store.ts). */
export const INDEXED_FAMILIES: Record<string, string[]> = {
  task: ['gsi1', 'gsi2'],
  job: ['gsi1'],
  webhook: ['gsi1'],
  'signed-url': ['gsi1'],
};

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
  /** How many partitions the code spreads the key over (scripts/capacity/shard-sources.ts). */
  shards: ShardSource;
  /** The function whose configuration sets the count, where one does (the one that writes the key). */
  configOf?: string;
}

const key = (key: string, where: string, scope: SharedKey['scope'], writesFrom: string[], readsFrom: string[], shards: ShardSource, configOf = 'jobsCreate'): SharedKey => ({
  key,
  where,
  scope,
  writesFrom,
  readsFrom,
  shards,
  configOf,
});

export const SHARED_KEYS: SharedKey[] = [
  key('apikey#<hash>', 'table', 'api key', [], ['apikey'], SHARDS.item),
  key('user#<id>', 'table', 'user', [], ['user'], SHARDS.item),
  key('ratelimit#<api key>', 'table', 'api key', ['ratelimit'], ['ratelimit'], SHARDS.rateLimit),
  key('usage#<user>', 'table', 'user', ['usage'], ['usage'], SHARDS.usage),
  key('socket#subs#<user>', 'table', 'user', [], ['socket'], SHARDS.subscriptions),
  key('listeners#<user>', 'table', 'user', ['listeners'], ['listeners'], SHARDS.listeners),
  key('waits', 'table', 'stack', ['waits'], ['waits'], SHARDS.waitBudget, 'jobsWait'),
  key('jobs#<user>', 'gsi1', 'user', ['job'], ['jobs'], SHARDS.userJobs),
  key('tasks#<user>', 'gsi1', 'user', ['task'], ['tasks'], SHARDS.userTasks),
  key('webhooks#<user>', 'gsi1', 'user', [], ['webhooks'], SHARDS.userWebhooks),
  key('active#<hex>', 'gsi2', 'stack', ['task'], [], SHARDS.active),
];

/** Families whose items are one job's or one record's own (their keys are never shared by many jobs). */
export const ITEM_FAMILIES = new Set(['job', 'task', 'webhook', 'signed-url', 'file', 'run']);

/** The calls file's key families the model does not place: shown in the report, so none is dropped unseen. */
export function unplacedFamilies(families: string[]): string[] {
  const placed = new Set(SHARED_KEYS.flatMap((k) => [...k.writesFrom, ...k.readsFrom]));
  return families.filter((f) => !placed.has(f) && !ITEM_FAMILIES.has(f)).sort();
}

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
