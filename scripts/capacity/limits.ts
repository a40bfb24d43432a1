/**
 * The limits a rate of jobs meets, each with its use, its capacity, the setting (a stage parameter,
 * a configuration setting or an AWS quota) that moves it, and what happens past it.
 */
import { configOf } from './keys.js';
import { fmt } from './format.js';
import { capacityAt, QUOTAS, type CapacityAt, type Limit, type ModelInput } from './model.js';

const CAP_EFFECTS = {
  queue: 'the queue grows; jobs wait',
  reserved: 'its requests are throttled (429)',
  wait: 'waits answer at once with the current state',
};

function functionLimits(input: ModelInput, at: Omit<CapacityAt, 'limits'>): Limit[] {
  const { settings } = input;
  return at.functions
    .filter((l) => l.cap)
    .map((l) => {
      const cap = l.cap!;
      const setting = { queue: () => settings.queueCap(l.name), reserved: () => settings.reservedConcurrency(l.name), wait: () => settings.environment('WAIT_BUDGET', l.name) }[cap.kind]();
      return { what: `${l.name}: ${cap.by}`, use: l.demand, capacity: cap.value, setting, effect: CAP_EFFECTS[cap.kind] };
    });
}

function keyLimits(at: Omit<CapacityAt, 'limits'>): Limit[] {
  const limits: Limit[] = [];
  for (const k of at.keys) {
    const setting = k.shards.startsWith('1 (') ? 'none: the key is not sharded' : `its shards: ${k.shards.replace(/ \(.*\)/, '')}`;
    const where = k.where === 'table' ? k.key : `${k.key} (${k.where})`;
    if (k.writesPerSecond > 0) limits.push({ what: `writes to ${where}`, use: k.writesPerSecond, capacity: QUOTAS.partitionWriteUnits, setting, effect: 'that key is throttled' });
    if (k.readsPerSecond > 0) limits.push({ what: `reads of ${where}`, use: k.readsPerSecond, capacity: QUOTAS.partitionReadUnits, setting, effect: 'that key is throttled' });
  }
  return limits;
}

/**
 * The account's concurrent executions, less what functions reserve for themselves: the functions without
 * a reservation share the rest (Lambda keeps at least 100 of it unreserved).
 */
function accountLimit(input: ModelInput, at: Omit<CapacityAt, 'limits'>): Limit {
  const reserving = Object.values(input.stack.functions).filter((f) => f.reservedConcurrency !== undefined);
  const reserved = reserving.reduce((n, f) => n + f.reservedConcurrency!, 0);
  const shared = at.functions.filter((l) => input.stack.functions[l.name]!.reservedConcurrency === undefined);
  return {
    what: reserved ? `Lambda concurrent executions (account, less ${fmt(reserved)} reserved)` : 'Lambda concurrent executions (account)',
    use: shared.reduce((n, l) => n + l.running, 0),
    capacity: QUOTAS.accountConcurrency - reserved,
    setting: 'quota L-B99A9384 (Service Quotas)',
    effect: 'functions without reserved concurrency are throttled',
  };
}

export function limitsOf(input: ModelInput, at: Omit<CapacityAt, 'limits'>): Limit[] {
  const create = input.stack.functions.jobsCreate;
  const limits = [...functionLimits(input, at), ...keyLimits(at)];
  if (create) {
    const config = configOf(create);
    const perSecond = Number(config.RATE_LIMIT) / Number(config.RATE_LIMIT_WINDOW_SECONDS);
    limits.push({
      what: 'job creations per API key (rate limit)',
      use: at.rate / input.tenants,
      capacity: perSecond,
      setting: `${input.settings.environment('RATE_LIMIT', 'jobsCreate')}: ${String(config.RATE_LIMIT)} a ${String(config.RATE_LIMIT_WINDOW_SECONDS)} s window`,
      effect: 'that key gets 429',
    });
  }
  limits.push(
    accountLimit(input, at),
    { what: 'DynamoDB table reads', use: at.state.readsPerSecond, capacity: QUOTAS.tableUnits, setting: 'table-level read throughput quota (Service Quotas)', effect: 'reads throttled' },
    { what: 'DynamoDB table writes', use: at.state.writesPerSecond, capacity: QUOTAS.tableUnits, setting: 'table-level write throughput quota (Service Quotas)', effect: 'writes throttled' },
    { what: 'API Gateway requests (account, region)', use: at.httpPerSecond, capacity: QUOTAS.apiGatewayRequests, setting: 'API Gateway throttle quota (Service Quotas)', effect: 'requests get 429' },
  );
  return limits;
}

export const capacity = (input: ModelInput, rate: number): CapacityAt => capacityAt(input, rate, limitsOf);

export interface FirstLimit {
  limit: Limit;
  /** The rate (jobs a second) at which it is met. */
  jobsPerSecond: number;
}

/** The lowest rate at which `what` is met: its use only grows with the rate, so halving the bracket finds it. */
function rateMeeting(input: ModelInput, what: string): number | undefined {
  const over = (rate: number) => {
    const limit = capacity(input, rate).limits.find((l) => l.what === what)!;
    return limit.use >= limit.capacity;
  };
  let high = 1;
  while (!over(high)) {
    high *= 4;
    if (high > 1e9) return undefined;
  }
  let low = 0;
  while (high - low > high * 1e-5) {
    const mid = (low + high) / 2;
    if (over(mid)) high = mid;
    else low = mid;
  }
  return high;
}

/**
 * The limits in the order a growing rate meets them, each at the rate where it is met. Not read off one
 * rate in proportion: once a queue consumer is at its cap the waits hold for their whole time, and the
 * concurrency the stack needs jumps.
 */
export function limitsInOrder(input: ModelInput): FirstLimit[] {
  const order: FirstLimit[] = [];
  for (const limit of capacity(input, 1).limits) {
    if (limit.use <= 0) continue;
    const jobsPerSecond = rateMeeting(input, limit.what);
    if (jobsPerSecond !== undefined) order.push({ limit, jobsPerSecond });
  }
  return order.sort((a, b) => a.jobsPerSecond - b.jobsPerSecond);
}
