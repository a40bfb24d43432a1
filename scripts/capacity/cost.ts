/**
 * What a job costs at list prices (scripts/capacity/prices.ts), by service, and what the stack costs an
 * hour doing nothing that the model can see in the template (alarm metrics, the queue consumers' long
 * polls). One request unit per DynamoDB call: the state's items are under 1 KB written and 4 KB read, and
 * a batch call is counted once, so a batch of many items errs low.
 */
import { INDEXED_FAMILIES } from './keys.js';
import type { AverageJob } from './load.js';
import type { FunctionLoad, ModelInput } from './model.js';
import { HOURS_PER_MONTH, PRICES } from './prices.js';
import type { StackFacts } from './stack.js';

/** What the model assumes where neither the template nor the bench says. */
export const ASSUMPTIONS = {
  /** CloudWatch Logs bytes an invocation writes (the platform's START/END/REPORT lines and ours). */
  logBytesPerInvocation: 1024,
  /** One HTTP API access-log line. */
  accessLogBytesPerRequest: 300,
  /** X-Ray's default sampling beyond its one request a second. */
  tracedShare: 0.05,
  /** Long-poll connections Lambda keeps open per SQS event source mapping, each a 20 s ReceiveMessage. */
  idlePollersPerMapping: 5,
  longPollSeconds: 20,
};

export interface Cost {
  lambda: number;
  apiGateway: number;
  dynamodb: number;
  sqs: number;
  s3: number;
  logs: number;
  xray: number;
  total: number;
  units: { reads: number; writes: number; indexWrites: number };
}

/** Index writes per job: each write of an item that carries an index's key writes that index too. */
export function indexWritesPerJob(job: AverageJob, stack: StackFacts): number {
  const indexes = new Set(stack.table.indexes.map((i) => i.name));
  let writes = 0;
  for (const [family, names] of Object.entries(INDEXED_FAMILIES)) {
    for (const index of names) {
      if (!indexes.has(index)) throw new Error(`the model has ${family} items write index ${index}, which the packaged table does not have`);
      writes += job.byKey[family]?.writes ?? 0;
    }
  }
  return writes;
}

const perMillion = (count: number, price: number) => (count * price) / 1e6;

function lambdaCost(input: ModelInput, loads: FunctionLoad[]): { cost: number; invocations: number; traced: number } {
  let cost = 0;
  let invocations = 0;
  let traced = 0;
  for (const l of loads) {
    const fn = input.stack.functions[l.name]!;
    const gbSecond = PRICES.lambda.gbSecond[fn.architecture];
    if (gbSecond === undefined) throw new Error(`no Lambda price for architecture ${fn.architecture}`);
    cost += l.perJob * (l.seconds * (fn.memoryMb / 1024) * gbSecond + PRICES.lambda.perMillionRequests / 1e6);
    invocations += l.perJob;
    if (fn.traced) traced += l.perJob;
  }
  return { cost, invocations, traced };
}

export function costPerJob(input: ModelInput, loads: FunctionLoad[]): Cost {
  const { job, stack } = input;
  const lambda = lambdaCost(input, loads);
  const http = loads.filter((l) => stack.functions[l.name]!.api === 'HTTP').reduce((n, l) => n + l.perJob, 0);
  const consumed = loads.filter((l) => stack.functions[l.name]!.consumers.length).reduce((n, l) => n + l.perJob, 0);
  const indexWrites = indexWritesPerJob(job, stack);
  const logBytes = lambda.invocations * ASSUMPTIONS.logBytesPerInvocation + http * ASSUMPTIONS.accessLogBytesPerRequest;
  const parts = {
    lambda: lambda.cost,
    apiGateway: perMillion(http, PRICES.apiGateway.httpPerMillion),
    dynamodb: perMillion(job.writes + indexWrites, PRICES.dynamodb.writeRequestUnitsPerMillion) + perMillion(job.reads, PRICES.dynamodb.readRequestUnitsPerMillion),
    sqs: perMillion(job.queueSends + 2 * consumed, PRICES.sqs.standardPerMillion),
    s3: (job.storage.puts * PRICES.s3.putCopyPostListPerThousand + (job.storage.gets + job.storage.other) * PRICES.s3.getSelectOtherPerThousand) / 1000,
    logs: (logBytes / 1024 ** 3) * PRICES.cloudwatch.logsIngestedPerGb,
    xray: perMillion(lambda.traced * ASSUMPTIONS.tracedShare, PRICES.xray.tracesRecordedPerMillion),
  };
  const total = Object.values(parts).reduce((n, v) => n + v, 0);
  return { ...parts, total, units: { reads: job.reads, writes: job.writes, indexWrites } };
}

/** An idle hour: the alarms' metrics and the queue consumers' empty long polls. */
export function fixedCostPerHour(stack: StackFacts): number {
  const alarms = (stack.alarmMetrics * PRICES.cloudwatch.alarmMetricPerMonth) / HOURS_PER_MONTH;
  const polls = stack.eventSourceMappings * ASSUMPTIONS.idlePollersPerMapping * (3600 / ASSUMPTIONS.longPollSeconds);
  return alarms + perMillion(polls, PRICES.sqs.standardPerMillion);
}
