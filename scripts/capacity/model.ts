/**
 * The capacity model: for an average job of a mix arriving at a rate (jobs a second), what the packaged
 * stack needs (concurrency per function, DynamoDB units in total and on the hottest shared key, SQS and
 * API Gateway requests), what it costs, and which limit it meets first. Concurrency is Little's law:
 * rate × invocations per job × seconds per invocation. A queue consumer held at its cap lets its queue
 * grow without end; the waits then hold for their whole time (a backlog), which is what the model
 * assumes for every wait once any consumer is over its cap.
 */
import { configOf, SHARED_KEYS } from './keys.js';
import type { AverageJob } from './load.js';
import { costPerJob, fixedCostPerHour, type Cost } from './cost.js';
import type { SettingNames } from './settings.js';
import type { FunctionFacts, StackFacts } from './stack.js';

/** AWS quotas the model checks (defaults of a new account; each can be raised where the setting says). */
export const QUOTAS = {
  accountConcurrency: 1000,
  partitionWriteUnits: 1000,
  partitionReadUnits: 3000,
  tableUnits: 40000,
  apiGatewayRequests: 10000,
};

/** The functions that hold a request until a job or task ends, and the setting that bounds the hold (lib/wiring/job-response.ts waitFor's callers). */
export const WAITS: Record<string, string> = {
  jobsWait: 'SYNC_MAX_WAIT_SECONDS',
  tasksWait: 'SYNC_MAX_WAIT_SECONDS',
  jobsSyncCreate: 'SYNC_MAX_WAIT_SECONDS',
  signedUrlsRun: 'SIGNED_URL_WAIT_SECONDS',
};

export interface FunctionLoad {
  name: string;
  perJob: number;
  /** Seconds one invocation runs at this rate (a wait in a backlog holds for its whole time). */
  seconds: number;
  /** Concurrent executions the rate asks for, and what runs once the cap below holds it. */
  demand: number;
  running: number;
  cap?: Cap;
}

/** What holds a function's concurrency: its queues' MaximumConcurrency, its reservation, or the waits' budget. */
export interface Cap {
  value: number;
  by: string;
  kind: 'queue' | 'reserved' | 'wait';
}

export interface KeyLoad {
  key: string;
  where: string;
  scope: string;
  shards: string;
  /** Units a second on the hottest partition of the key. */
  writesPerSecond: number;
  readsPerSecond: number;
}

export interface Limit {
  what: string;
  use: number;
  capacity: number;
  setting: string;
  /** What happens past it. */
  effect: string;
}

export interface CapacityAt {
  rate: number;
  backlog: boolean;
  functions: FunctionLoad[];
  concurrency: number;
  state: { readsPerSecond: number; writesPerSecond: number; indexWritesPerSecond: number };
  keys: KeyLoad[];
  sqsPerSecond: number;
  httpPerSecond: number;
  cost: { perJob: Cost; perHour: number; fixedPerHour: number };
  limits: Limit[];
}

export interface ModelInput {
  stack: StackFacts;
  job: AverageJob;
  /** Users (each with one API key) the rate is spread over: 1 is one tenant making every job. */
  tenants: number;
  /** Where each setting is made (serverless.yml), for the limits' setting column. */
  settings: SettingNames;
}

const num = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : undefined);

/** The cap on what runs of a function: its queues' MaximumConcurrency, its reserved concurrency, a wait budget. */
function capOf(fn: FunctionFacts): Cap | undefined {
  const caps: Cap[] = [];
  if (fn.consumers.length && fn.consumers.every((c) => c.maxConcurrency !== undefined)) {
    const value = fn.consumers.reduce((n, c) => n + c.maxConcurrency!, 0);
    caps.push({ value, by: `MaximumConcurrency of ${fn.consumers.map((c) => c.queue).join(', ')}`, kind: 'queue' });
  }
  if (fn.reservedConcurrency !== undefined) caps.push({ value: fn.reservedConcurrency, by: 'reserved concurrency', kind: 'reserved' });
  // The budget is the stage's, shared by every wait function; the bench's jobs each use one of them, so
  // the model gives that one the whole budget.
  const budget = WAITS[fn.name] ? num(configOf(fn).WAIT_BUDGET ?? fn.env.WAIT_BUDGET) : undefined;
  if (budget !== undefined) caps.push({ value: budget, by: 'WAIT_BUDGET (later waits answer at once)', kind: 'wait' });
  return caps.sort((a, b) => a.value - b.value)[0];
}

function functionLoads(input: ModelInput, rate: number): { loads: FunctionLoad[]; backlog: boolean } {
  const { stack, job } = input;
  const load = (name: string, seconds: number): FunctionLoad => {
    const fn = stack.functions[name]!;
    const demand = rate * job.invocations[name]! * seconds;
    const cap = capOf(fn);
    return { name, perJob: job.invocations[name]!, seconds, demand, running: cap ? Math.min(demand, cap.value) : demand, ...(cap ? { cap } : {}) };
  };
  const others = Object.keys(job.invocations).filter((n) => !WAITS[n]).map((n) => load(n, job.durationMs[n]! / 1000));
  const backlog = others.some((l) => l.cap && l.demand > l.cap.value);
  const waits = Object.keys(job.invocations)
    .filter((n) => WAITS[n])
    .map((n) => {
      const fn = stack.functions[n]!;
      const hold = Math.min(fn.timeoutSeconds, num(configOf(fn)[WAITS[n]!]) ?? fn.timeoutSeconds);
      return load(n, backlog ? hold : job.durationMs[n]! / 1000);
    });
  return { loads: [...others, ...waits].sort((a, b) => b.demand - a.demand), backlog };
}

function keyLoads(input: ModelInput, rate: number): KeyLoad[] {
  const { functions } = input.stack;
  const sum = (families: string[], kind: 'reads' | 'writes') => families.reduce((n, f) => n + (input.job.byKey[f]?.[kind] ?? 0), 0);
  return SHARED_KEYS.map((k) => {
    const shards = k.shards(configOf(functions[k.configOf ?? 'jobsCreate'] ?? functions.jobsCreate ?? Object.values(functions)[0]!));
    const perOwner = k.scope === 'stack' ? rate : rate / input.tenants;
    return {
      key: k.key,
      where: k.where,
      scope: k.scope,
      shards: shards.source,
      writesPerSecond: (perOwner * sum(k.writesFrom, 'writes')) / shards.count,
      readsPerSecond: (perOwner * sum(k.readsFrom, 'reads')) / shards.count,
    };
  });
}

export function capacityAt(input: ModelInput, rate: number, limitsOf: (input: ModelInput, at: Omit<CapacityAt, 'limits'>) => Limit[]): CapacityAt {
  const { stack, job } = input;
  const { loads, backlog } = functionLoads(input, rate);
  const perJob = costPerJob(input, loads);
  const fixedPerHour = fixedCostPerHour(stack);
  const consumerInvocations = Object.entries(job.invocations).filter(([n]) => stack.functions[n]!.consumers.length).reduce((s, [, v]) => s + v, 0);
  const httpPerJob = Object.entries(job.invocations).filter(([n]) => stack.functions[n]!.api === 'HTTP').reduce((s, [, v]) => s + v, 0);
  const at: Omit<CapacityAt, 'limits'> = {
    rate,
    backlog,
    functions: loads,
    concurrency: loads.reduce((n, l) => n + l.running, 0),
    state: { readsPerSecond: rate * job.reads, writesPerSecond: rate * job.writes, indexWritesPerSecond: rate * perJob.units.indexWrites },
    keys: keyLoads(input, rate),
    // Each message a consumer takes costs a receive and a delete besides the send.
    sqsPerSecond: rate * (job.queueSends + 2 * consumerInvocations),
    httpPerSecond: rate * httpPerJob,
    cost: { perJob, perHour: rate * 3600 * perJob.total + fixedPerHour, fixedPerHour },
  };
  return { ...at, limits: limitsOf(input, at) };
}
