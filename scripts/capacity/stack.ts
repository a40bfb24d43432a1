/**
 * What the capacity model needs of the packaged stack, read from its merged template
 * (scripts/ci/stack-templates.ts), never typed by hand: each function's memory, architecture, timeout,
 * reserved concurrency, environment and the API or queues in front of it; each queue consumer's
 * concurrency cap; the table's indexes; the alarms' metrics.
 */
import type { Resource, Template } from '../ci/stack-templates.js';

export interface QueueConsumer {
  /** The queue's logical id. */
  queue: string;
  batchSize: number;
  /** The event source mapping's ScalingConfig.MaximumConcurrency, when set. */
  maxConcurrency?: number;
}

export interface FunctionFacts {
  /** The serverless function name (jobsCreate), as bench/calls-per-job.json names it. */
  name: string;
  logicalId: string;
  /** The handler's file, camel-cased (functions/tasks/process-image-step.handler → processImageStep). */
  handlerName: string;
  memoryMb: number;
  architecture: string;
  timeoutSeconds: number;
  reservedConcurrency?: number;
  /** The environment's literal values (an expression such as a Ref is left out). */
  env: Record<string, string>;
  /** The API whose routes invoke the function, if any. */
  api?: 'HTTP' | 'WEBSOCKET';
  consumers: QueueConsumer[];
  traced: boolean;
}

export interface TableIndex {
  name: string;
  /** The attribute that holds the index's partition key (gsi1pk). */
  hashKey: string;
}

export interface StackFacts {
  functions: Record<string, FunctionFacts>;
  table: { logicalId: string; billingMode: string; indexes: TableIndex[] };
  /** Metrics the alarms evaluate (CloudWatch bills an alarm per metric). */
  alarmMetrics: number;
  queues: number;
  eventSourceMappings: number;
}

const LAMBDA_SUFFIX = 'LambdaFunction';

/** serverless names a function's resource `<Name>LambdaFunction`: the name is that with its first letter lowered. */
export const functionName = (logicalId: string) => logicalId.charAt(0).toLowerCase() + logicalId.slice(1, -LAMBDA_SUFFIX.length);

const handlerName = (handler: string) =>
  (handler.split('/').pop() ?? '')
    .replace(/\.[^.]*$/, '')
    .replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/**
 * The function a calls-per-job file means by `name`: the serverless function of that name, else the one
 * whose handler file is named so (processImageStep: functions/tasks/process-image-step.ts); undefined if
 * none or several.
 */
export function resolveFunction(stack: StackFacts, name: string): FunctionFacts | undefined {
  if (stack.functions[name]) return stack.functions[name];
  const byHandler = Object.values(stack.functions).filter((f) => f.handlerName === name);
  return byHandler.length === 1 ? byHandler[0] : undefined;
}

/** The logical id a `{ Fn::GetAtt: [id, 'Arn'] }` (or a Ref) names, if the value is one. */
function referenced(value: unknown): string | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (Array.isArray(v['Fn::GetAtt'])) return String(v['Fn::GetAtt'][0]);
  if (typeof v.Ref === 'string') return v.Ref;
  return undefined;
}

/** Every logical id referenced anywhere inside `value` (an integration's URI is a Join around one). */
function referencesIn(value: unknown, out = new Set<string>()): Set<string> {
  const id = referenced(value);
  if (id) out.add(id);
  if (value && typeof value === 'object') for (const v of Object.values(value)) referencesIn(v, out);
  return out;
}

const literalEnv = (variables: Record<string, unknown> | undefined) =>
  Object.fromEntries(
    Object.entries(variables ?? {})
      .filter(([, v]) => typeof v === 'string' || typeof v === 'number')
      .map(([k, v]) => [k, String(v)]),
  );

function alarmMetricsOf(alarm: Resource): number {
  const metrics = alarm.Properties?.Metrics as { MetricStat?: unknown }[] | undefined;
  return metrics ? metrics.filter((m) => m.MetricStat).length : 1;
}

function apisOf(resources: Record<string, Resource>): Map<string, 'HTTP' | 'WEBSOCKET'> {
  const byFunction = new Map<string, 'HTTP' | 'WEBSOCKET'>();
  for (const r of Object.values(resources)) {
    if (r.Type !== 'AWS::ApiGatewayV2::Integration') continue;
    const api = resources[referenced(r.Properties?.ApiId) ?? '']?.Properties?.ProtocolType;
    for (const id of referencesIn(r.Properties?.IntegrationUri)) {
      if (resources[id]?.Type === 'AWS::Lambda::Function') byFunction.set(id, api === 'WEBSOCKET' ? 'WEBSOCKET' : 'HTTP');
    }
  }
  return byFunction;
}

function consumersOf(resources: Record<string, Resource>): Map<string, QueueConsumer[]> {
  const byFunction = new Map<string, QueueConsumer[]>();
  for (const r of Object.values(resources)) {
    if (r.Type !== 'AWS::Lambda::EventSourceMapping') continue;
    const p = r.Properties ?? {};
    const fn = referenced(p.FunctionName);
    const queue = referenced(p.EventSourceArn);
    if (!fn || !queue || resources[queue]?.Type !== 'AWS::SQS::Queue') continue;
    const consumer: QueueConsumer = { queue, batchSize: Number(p.BatchSize ?? 10) };
    if (p.ScalingConfig?.MaximumConcurrency !== undefined) consumer.maxConcurrency = Number(p.ScalingConfig.MaximumConcurrency);
    byFunction.set(fn, [...(byFunction.get(fn) ?? []), consumer]);
  }
  return byFunction;
}

function tableOf(resources: Record<string, Resource>): StackFacts['table'] {
  const tables = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::DynamoDB::Table');
  if (tables.length !== 1) throw new Error(`the capacity model expects one DynamoDB table, the template has ${tables.length}`);
  const [logicalId, table] = tables[0]!;
  const indexes = ((table.Properties?.GlobalSecondaryIndexes ?? []) as any[]).map((i) => ({
    name: String(i.IndexName),
    hashKey: String(i.KeySchema.find((k: any) => k.KeyType === 'HASH').AttributeName),
  }));
  return { logicalId, billingMode: String(table.Properties?.BillingMode ?? 'PROVISIONED'), indexes };
}

export function stackFacts(template: Template): StackFacts {
  const resources = template.Resources;
  const apis = apisOf(resources);
  const consumers = consumersOf(resources);
  const functions: Record<string, FunctionFacts> = {};
  for (const [logicalId, r] of Object.entries(resources)) {
    if (r.Type !== 'AWS::Lambda::Function' || !logicalId.endsWith(LAMBDA_SUFFIX)) continue;
    const p = r.Properties ?? {};
    const name = functionName(logicalId);
    functions[name] = {
      name,
      logicalId,
      handlerName: handlerName(String(p.Handler ?? '')),
      memoryMb: Number(p.MemorySize ?? 1024),
      architecture: String(p.Architectures?.[0] ?? 'x86_64'),
      timeoutSeconds: Number(p.Timeout ?? 6),
      ...(p.ReservedConcurrentExecutions !== undefined ? { reservedConcurrency: Number(p.ReservedConcurrentExecutions) } : {}),
      env: literalEnv(p.Environment?.Variables),
      ...(apis.has(logicalId) ? { api: apis.get(logicalId) } : {}),
      consumers: consumers.get(logicalId) ?? [],
      traced: p.TracingConfig?.Mode === 'Active',
    };
  }
  const all = Object.values(resources);
  return {
    functions,
    table: tableOf(resources),
    alarmMetrics: all.filter((r) => r.Type === 'AWS::CloudWatch::Alarm').reduce((n, r) => n + alarmMetricsOf(r), 0),
    queues: all.filter((r) => r.Type === 'AWS::SQS::Queue').length,
    eventSourceMappings: all.filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping').length,
  };
}
