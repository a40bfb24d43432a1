/**
 * The model's answer as Markdown: the same text on the terminal and between the docs' generated markers
 * (docs/operating/capacity.md), so that what CI compares is what a reader sees.
 */
import { ASSUMPTIONS } from './cost.js';
import { unplacedFamilies } from './keys.js';
import { capacity, limitsInOrder, type FirstLimit } from './limits.js';
import type { Mix } from './load.js';
import { QUOTAS, type CapacityAt, type ModelInput } from './model.js';
import { PRICES } from './prices.js';
import { fmt } from './format.js';

const money = (n: number) => `$${fmt(n)}`;
const pct = (use: number, capacity: number) => `${fmt((100 * use) / capacity)} %`;

function functionTable(at: CapacityAt): string[] {
  const rows = at.functions.map(
    (l) => `| ${l.name} | ${fmt(l.perJob)} | ${fmt(l.seconds)} | ${fmt(l.demand)} | ${l.cap ? `${fmt(l.cap.value)} (${l.cap.by})` : '–'} |`,
  );
  return [
    '| function | invocations/job | s each | concurrency | cap |',
    '| --- | ---: | ---: | ---: | --- |',
    ...rows,
    `| **all**, each within its cap | | | **${fmt(at.concurrency)}** | 1,000 (account) |`,
  ];
}

/** The shared keys once: they do not change with the rate, only their load does (in proportion). */
function keyTable(input: ModelInput): string[] {
  const keys = capacity(input, 1).keys.filter((k) => k.writesPerSecond > 0 || k.readsPerSecond > 0);
  const unplaced = unplacedFamilies(Object.keys(input.job.byKey));
  const most = (perJob: number, limit: number) => (perJob > 0 ? fmt(limit / perJob) : '–');
  return [
    `| shared key | where | shards | writes/job on its hottest partition | reads/job on it | jobs/s to ${fmt(QUOTAS.partitionWriteUnits)} writes/s | jobs/s to ${fmt(QUOTAS.partitionReadUnits)} reads/s |`,
    '| --- | --- | --- | ---: | ---: | ---: | ---: |',
    ...keys.map(
      (k) =>
        `| ${k.key} | ${k.where}${k.scope === 'stack' ? ', every tenant' : ''} | ${k.shards} | ${fmt(k.writesPerSecond)} | ${fmt(k.readsPerSecond)} | ${most(k.writesPerSecond, QUOTAS.partitionWriteUnits)} | ${most(k.readsPerSecond, QUOTAS.partitionReadUnits)} |`,
    ),
    '',
    ...(unplaced.length ? [`Key families of the calls file the model does not place (not counted above): ${unplaced.join(', ')}.`, ''] : []),
  ];
}

function limitTable(at: CapacityAt): string[] {
  const rows = [...at.limits]
    .sort((a, b) => b.use / b.capacity - a.use / a.capacity)
    .filter((l, i) => i < 6 || l.use >= l.capacity)
    .map((l) => `| ${l.what} | ${fmt(l.use)} | ${fmt(l.capacity)} | ${pct(l.use, l.capacity)}${l.use > l.capacity ? ' **over**' : ''} | ${l.setting} |`);
  return ['| limit (the six nearest, and every one over) | use | capacity | used | setting |', '| --- | ---: | ---: | ---: | --- |', ...rows];
}

/** The shared key whose hottest partition is nearest its limit, for writes and for reads. */
function hottest(at: CapacityAt): string {
  const top = (kind: 'writesPerSecond' | 'readsPerSecond', limit: number, what: string) => {
    const key = [...at.keys].sort((a, b) => b[kind] - a[kind])[0];
    return key && key[kind] > 0 ? `hottest key for ${what}: ${key.key} (${key.where}), ${fmt(key[kind])}/s of ${fmt(limit)}` : `no shared key ${what}`;
  };
  return `${top('writesPerSecond', QUOTAS.partitionWriteUnits, 'writes')}, ${top('readsPerSecond', QUOTAS.partitionReadUnits, 'reads')}`;
}

function rateSection(at: CapacityAt): string[] {
  const c = at.cost.perJob;
  const byService = (['lambda', 'dynamodb', 'apiGateway', 'sqs', 's3', 'logs', 'xray'] as const).map((k) => `${k} ${money(c[k] * 1000)}`).join(', ');
  return [
    `### ${fmt(at.rate)} jobs/s${at.backlog ? ' (a queue consumer is at its cap: its queue grows and the waits hold for their whole time)' : ''}`,
    '',
    ...functionTable(at),
    '',
    `DynamoDB: ${fmt(at.state.readsPerSecond)} reads/s and ${fmt(at.state.writesPerSecond)} writes/s on the table, ${fmt(at.state.indexWritesPerSecond)} writes/s on its indexes (request units, one per call); ${hottest(at)}.`,
    '',
    `SQS: ${fmt(at.sqsPerSecond)} requests/s. HTTP API: ${fmt(at.httpPerSecond)} requests/s.`,
    '',
    `Cost: ${money(at.cost.perHour)} an hour (${money(at.cost.fixedPerHour)} of it idle); the jobs' own ${money(c.total * 1000)} per 1,000 jobs (${byService}).`,
    '',
    ...limitTable(at),
    '',
  ];
}

function limitOrder(input: ModelInput): string[] {
  const order = limitsInOrder(input);
  const stackWide = limitsInOrder({ ...input, tenants: Infinity })[0];
  const first = (what: string, o: FirstLimit | undefined) =>
    o ? `**First limit met ${what}: ${o.limit.what}, at ${fmt(o.jobsPerSecond)} jobs/s** (${o.limit.effect}; setting: ${o.limit.setting}).` : `No limit is met ${what}.`;
  return [
    first(input.tenants === 1 ? 'by one tenant' : `by ${fmt(input.tenants)} tenants alike`, order[0]),
    first('by the stack (many tenants, each under its own limits)', stackWide),
    '',
    '| limits in the order a growing rate meets them | at jobs/s | past it | setting |',
    '| --- | ---: | --- | --- |',
    ...order.slice(0, 10).map((o) => `| ${o.limit.what} | ${fmt(o.jobsPerSecond)} | ${o.limit.effect} | ${o.limit.setting} |`),
    '',
  ];
}

export function report(input: ModelInput, rates: number[], mix: Mix, calls: { file: string; source: string }): string {
  const shares = Object.entries(mix)
    .map(([name, share]) => `${name} ${fmt(share * 100)} %`)
    .join(', ');
  const tenants = input.tenants === 1 ? 'one tenant (one user, one API key) making every job' : `${fmt(input.tenants)} tenants alike`;
  const lines = [
    `Mix: ${shares}; ${tenants}. Calls per job: ${calls.file} (${calls.source}).`,
    `Prices: ${PRICES.region}, ${PRICES.asOf}. Assumed: ${ASSUMPTIONS.logBytesPerInvocation} log bytes an invocation, ${fmt(ASSUMPTIONS.tracedShare * 100)} % of invocations traced, ${ASSUMPTIONS.idlePollersPerMapping} long polls open per queue consumer.`,
    '',
    ...limitOrder(input),
    input.tenants === 1 ? 'The keys many jobs share, for one tenant:' : `The keys many jobs share, for each of ${fmt(input.tenants)} tenants:`,
    '',
    ...keyTable(input),
    ...rates.flatMap((rate) => rateSection(capacity(input, rate))),
  ];
  return lines.join('\n').trimEnd() + '\n';
}
