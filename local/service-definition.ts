/**
 * Reads what the local platform needs from serverless.yml, so that queues, dead-letter queues and
 * event-source mappings are declared once: the queues (from `AWS::SQS::Queue` resources with their
 * visibility timeout and redrive policy) and which function consumes which queue (from `sqs` events).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export interface QueueDefinition {
  logicalId: string;
  /** The name the queue gets locally, e.g. `ImportQueue` → `import`, `ImportDeadLetterQueue` → `import-dlq`. */
  localName: string;
  /** The environment variable that tells functions the queue's name (e.g. `IMPORT_QUEUE`), if any. */
  envVar?: string;
  visibilityTimeout: number;
  redrive?: { deadLetterLogicalId: string; maxReceiveCount: number };
}

export interface MappingDefinition {
  functionKey: string;
  queueLogicalId: string;
  batchSize: number;
  maximumBatchingWindow: number;
  reportBatchItemFailures: boolean;
  /** `maximumConcurrency` of the event source mapping, when set. */
  maximumConcurrency?: number;
}

export interface ServiceDefinition {
  service: string;
  queues: QueueDefinition[];
  mappings: MappingDefinition[];
  /** HTTP routes as `[METHOD, path]`. */
  routes: Array<[string, string]>;
  /** Functions triggered by EventBridge rules on AWS events (e.g. S3 "Object Created"). */
  eventBridgeTargets: Array<{ functionKey: string; source: string; keyPrefix?: string }>;
}

type Yaml = Record<string, any>;

export function localQueueName(logicalId: string): string {
  return logicalId
    .replace(/DeadLetterQueue$/, 'Dlq')
    .replace(/Queue$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase();
}

const envVarOf = (logicalId: string) =>
  logicalId.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

function getAttLogicalId(arn: unknown): string | undefined {
  const att = (arn as Yaml | undefined)?.['Fn::GetAtt'];
  return Array.isArray(att) ? String(att[0]) : undefined;
}

export function readServiceDefinition(file = 'serverless.yml'): ServiceDefinition {
  const doc = parse(readFileSync(file, 'utf8')) as Yaml;
  // A setting given as a stage parameter (`'${param:imageConcurrency}'`) takes the parameter's default locally.
  const setting = (value: unknown) => {
    const param = typeof value === 'string' ? /^\$\{param:([A-Za-z0-9]+)\}$/.exec(value)?.[1] : undefined;
    return param ? doc.params?.default?.[param] : value;
  };
  const resources: Yaml = doc.resources?.Resources ?? {};
  const env: Yaml = doc.provider?.environment ?? {};

  const queues: QueueDefinition[] = Object.entries(resources)
    .filter(([, r]) => r?.Type === 'AWS::SQS::Queue')
    .map(([logicalId, r]) => {
      const props: Yaml = r.Properties ?? {};
      const envVar = envVarOf(logicalId);
      const dlq = getAttLogicalId(props.RedrivePolicy?.deadLetterTargetArn);
      return {
        logicalId,
        localName: localQueueName(logicalId),
        envVar: envVar in env ? envVar : undefined,
        visibilityTimeout: Number(props.VisibilityTimeout ?? 30),
        redrive: dlq ? { deadLetterLogicalId: dlq, maxReceiveCount: Number(props.RedrivePolicy.maxReceiveCount) } : undefined,
      };
    });

  const mappings: MappingDefinition[] = [];
  const routes: Array<[string, string]> = [];
  const eventBridgeTargets: ServiceDefinition['eventBridgeTargets'] = [];
  for (const [functionKey, fn] of Object.entries<Yaml>(doc.functions ?? {})) {
    for (const event of fn.events ?? []) {
      if (event.sqs) {
        const queueLogicalId = getAttLogicalId(event.sqs.arn);
        if (!queueLogicalId) throw new Error(`function ${functionKey}: sqs event without Fn::GetAtt arn`);
        mappings.push({
          functionKey,
          queueLogicalId,
          batchSize: Number(event.sqs.batchSize ?? 10),
          maximumBatchingWindow: Number(event.sqs.maximumBatchingWindow ?? 0),
          reportBatchItemFailures: event.sqs.functionResponseType === 'ReportBatchItemFailures',
          maximumConcurrency: event.sqs.maximumConcurrency ? Number(setting(event.sqs.maximumConcurrency)) : undefined,
        });
      }
      const pattern = event.eventBridge?.pattern;
      if (pattern?.source?.[0]) {
        const prefix = pattern.detail?.object?.key?.[0]?.prefix;
        eventBridgeTargets.push({ functionKey, source: String(pattern.source[0]), keyPrefix: prefix ? String(prefix) : undefined });
      }
      if (event.httpApi) routes.push([String(event.httpApi.method).toUpperCase(), String(event.httpApi.path)]);
    }
  }
  return { service: String(doc.service), queues, mappings, routes, eventBridgeTargets };
}
