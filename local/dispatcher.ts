/**
 * Local emulation of Lambda's SQS event source mapping: polls queues and invokes functions with SQSEvent batches,
 * deleting what the function handled, as the Lambda service does.
 *
 * What Lambda does, and what we do:
 * - Lambda long-polls with several pollers per mapping; we run `concurrency` pollers (default 1) per mapping, each
 *   finishing one batch (invoke + delete) before it receives the next one. Mappings run concurrently.
 * - A batch is up to `batchSize` messages. With `maximumBatchingWindowSeconds` Lambda keeps gathering until the batch
 *   is full or the window is over; we do the same, the window starting when the first message arrives.
 * - The function fails (error, throw, timeout): nothing is deleted, the messages come back after their visibility
 *   timeout and the queue's redrive policy eventually moves them to the DLQ.
 * - Success with ReportBatchItemFailures: every message not listed in `batchItemFailures` is deleted. An invalid
 *   response (not an object, an entry without a known `itemIdentifier`) fails the whole batch. An empty or null
 *   list, or no response at all, is complete success.
 * - Success otherwise: the whole batch is deleted.
 */
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import type { SQSEvent, SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import { setMaxListeners } from 'node:events';

export interface EventSourceMapping {
  queueName: string;
  functionName: string;
  /** 1–10000 as in Lambda; more than 10 needs several receives, hence a batching window. */
  batchSize: number;
  /** 0–300; default 0 (invoke with what one receive returned). */
  maximumBatchingWindowSeconds?: number;
  /** FunctionResponseTypes: ['ReportBatchItemFailures']. */
  reportBatchItemFailures: boolean;
  /** Pollers for this mapping, i.e. batches in progress at once; default 1. */
  concurrency?: number;
}

export type InvokeResult = { ok: true; payload: unknown } | { ok: false; error: string };

/** Calls a function synchronously. A rejected promise counts as a function error. */
export type Invoke = (functionName: string, event: SQSEvent) => Promise<InvokeResult>;

export interface DispatcherLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface DispatcherOptions {
  sqs: SQSClient;
  mappings: EventSourceMapping[];
  invoke: Invoke;
  /** `awsRegion` of the records; default: the region in the queue's ARN. */
  region?: string;
  /** Default: console. */
  log?: DispatcherLog;
  /** Long-poll wait per receive, 1–20 s; default 5 (stop() does not wait for it: polls are aborted). */
  waitTimeSeconds?: number;
}

export interface Dispatcher {
  /** Stops polling; resolves once the batches in progress have been invoked and settled. */
  stop(): Promise<void>;
}

const MIN_BACKOFF_MS = 200;
const MAX_BACKOFF_MS = 5000;

/** The pollers' shared part: the clients, the log, and the signal that stop() raises. */
class Delivery {
  readonly signal: AbortSignal;

  constructor(
    readonly sqs: SQSClient,
    readonly invoke: Invoke,
    readonly log: DispatcherLog,
    readonly waitTimeSeconds: number,
    readonly region: string | undefined,
    stopping: AbortController,
  ) {
    this.signal = stopping.signal;
  }

  /** Sleeps, but wakes up at once on stop(). */
  pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.signal.addEventListener('abort', done);
    });
  }

  async resolveQueue(mapping: EventSourceMapping): Promise<{ url: string; arn: string; region: string } | undefined> {
    let backoff = MIN_BACKOFF_MS;
    let warned = false;
    while (!this.signal.aborted) {
      try {
        const { QueueUrl: url } = await this.sqs.send(new GetQueueUrlCommand({ QueueName: mapping.queueName }), { abortSignal: this.signal });
        const { Attributes } = await this.sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }), { abortSignal: this.signal });
        const arn = Attributes?.QueueArn;
        if (!url || !arn) throw new Error('the queue has no URL or ARN');
        return { url, arn, region: this.region ?? arn.split(':')[3] ?? 'us-east-1' };
      } catch (err) {
        if (this.signal.aborted) break;
        // The queue may not exist yet (whoever creates it may start after us): keep trying, say so once.
        if (!warned) this.log.warn(`[sqs→λ] ${mapping.queueName}: cannot resolve the queue yet (${describe(err)}); retrying`);
        warned = true;
        await this.pause(backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
    return undefined;
  }

  /** Receives one batch: up to batchSize messages, gathering during the batching window if there is one. */
  async receiveBatch(mapping: EventSourceMapping, url: string): Promise<Message[]> {
    const receive = async (max: number, wait: number) => {
      const { Messages } = await this.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          MaxNumberOfMessages: Math.min(max, 10),
          WaitTimeSeconds: wait,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
        { abortSignal: this.signal },
      );
      return Messages ?? [];
    };
    const batch = await receive(mapping.batchSize, this.waitTimeSeconds);
    const windowMs = (mapping.maximumBatchingWindowSeconds ?? 0) * 1000;
    if (batch.length === 0 || windowMs <= 0) return batch;
    const deadline = Date.now() + windowMs;
    while (batch.length < mapping.batchSize && !this.signal.aborted) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      const wait = Math.min(Math.floor(left / 1000), 20);
      let more: Message[];
      try {
        more = await receive(mapping.batchSize - batch.length, wait);
      } catch (err) {
        // Keep what we have rather than dropping it: those messages are already in flight.
        if (!this.signal.aborted) this.log.warn(`[sqs→λ] ${mapping.queueName}: receive failed while batching (${describe(err)})`);
        break;
      }
      batch.push(...more);
      if (more.length === 0 && wait === 0) await this.pause(Math.min(left, 100));
    }
    return batch;
  }

  async settle(mapping: EventSourceMapping, url: string, messages: Message[], result: InvokeResult): Promise<void> {
    const label = `${mapping.queueName} → ${mapping.functionName}`;
    if (!result.ok) {
      this.log.warn(`[sqs→λ] ${label}: function failed for ${messages.length} message(s), they will be retried: ${result.error}`);
      return;
    }
    const outcome = mapping.reportBatchItemFailures ? readBatchItemFailures(result.payload, messages) : { failed: new Set<string>() };
    if ('invalid' in outcome) {
      this.log.warn(`[sqs→λ] ${label}: invalid batch item failures response (${outcome.invalid}); the whole batch will be retried`);
      return;
    }
    const done = messages.filter((m) => !outcome.failed.has(m.MessageId ?? ''));
    if (outcome.failed.size > 0) this.log.warn(`[sqs→λ] ${label}: ${outcome.failed.size} of ${messages.length} message(s) reported failed, they will be retried`);
    else this.log.info(`[sqs→λ] ${label}: ${messages.length} message(s) processed`);
    for (let i = 0; i < done.length; i += 10) {
      const chunk = done.slice(i, i + 10);
      try {
        const { Failed } = await this.sqs.send(
          new DeleteMessageBatchCommand({ QueueUrl: url, Entries: chunk.map((m, n) => ({ Id: String(n), ReceiptHandle: m.ReceiptHandle })) }),
        );
        for (const f of Failed ?? []) this.log.warn(`[sqs→λ] ${label}: could not delete a message (${f.Code ?? ''}: ${f.Message ?? ''}); it will be delivered again`);
      } catch (err) {
        this.log.warn(`[sqs→λ] ${label}: could not delete ${chunk.length} message(s) (${describe(err)}); they will be delivered again`);
      }
    }
  }

  async poller(mapping: EventSourceMapping): Promise<void> {
    let queue = await this.resolveQueue(mapping);
    let backoff = MIN_BACKOFF_MS;
    while (queue && !this.signal.aborted) {
      let messages: Message[];
      try {
        messages = await this.receiveBatch(mapping, queue.url);
        backoff = MIN_BACKOFF_MS;
      } catch (err) {
        if (this.signal.aborted) break;
        this.log.warn(`[sqs→λ] ${mapping.queueName}: receive failed (${describe(err)}); retrying in ${backoff} ms`);
        await this.pause(backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
        // The queue may have been deleted and created again (new URL), or the server restarted elsewhere.
        if ((err as { name?: string }).name === 'QueueDoesNotExist') queue = await this.resolveQueue(mapping);
        continue;
      }
      if (messages.length === 0) continue;
      // From here on the batch is finished even if stop() is called: invoke, then delete what succeeded.
      const event: SQSEvent = { Records: messages.map((m) => toRecord(m, queue!.arn, queue!.region)) };
      let result: InvokeResult;
      try {
        const { invoke } = this;
        result = await invoke(mapping.functionName, event);
      } catch (err) {
        result = { ok: false, error: describe(err) };
      }
      await this.settle(mapping, queue.url, messages, result);
    }
  }
}

export function startDispatcher(opts: DispatcherOptions): Dispatcher {
  const log = opts.log ?? console;
  const waitTimeSeconds = Math.min(Math.max(Math.round(opts.waitTimeSeconds ?? 5), 1), 20);
  const stopping = new AbortController();
  // Every poller's long poll listens to this one signal: many listeners are expected, not a leak.
  setMaxListeners(0, stopping.signal);

  for (const m of opts.mappings) {
    if (!Number.isInteger(m.batchSize) || m.batchSize < 1 || m.batchSize > 10_000) {
      throw new Error(`event source mapping ${m.queueName} → ${m.functionName}: batchSize must be an integer from 1 to 10000`);
    }
  }
  const delivery = new Delivery(opts.sqs, opts.invoke, log, waitTimeSeconds, opts.region, stopping);

  const running = opts.mappings.flatMap((mapping) =>
    Array.from({ length: Math.max(1, mapping.concurrency ?? 1) }, () =>
      delivery.poller(mapping).catch((err: unknown) => {
        // Not expected (every step catches its own errors), but a poller must never take the process down.
        log.error(`[sqs→λ] ${mapping.queueName}: poller stopped: ${describe(err)}`);
      }),
    ),
  );

  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        stopping.abort();
        await Promise.all(running);
      })();
      return stopped;
    },
  };
}

/**
 * Reads a ReportBatchItemFailures response. Returns the ids of the failed messages, or `invalid` when Lambda would
 * treat the whole batch as failed.
 */
function readBatchItemFailures(payload: unknown, messages: Message[]): { failed: Set<string> } | { invalid: string } {
  if (payload === null || payload === undefined) return { failed: new Set() };
  if (typeof payload !== 'object' || Array.isArray(payload)) return { invalid: 'the response is not a JSON object' };
  const list = (payload as { batchItemFailures?: unknown }).batchItemFailures;
  if (list === null || list === undefined) return { failed: new Set() };
  if (!Array.isArray(list)) return { invalid: 'batchItemFailures is not a list' };
  const ids = new Set(messages.map((m) => m.MessageId));
  const failed = new Set<string>();
  for (const item of list) {
    const id = (item as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || id === '') return { invalid: 'an entry has no itemIdentifier' };
    if (!ids.has(id)) return { invalid: `itemIdentifier ${id} is not a message of this batch` };
    failed.add(id);
  }
  return { failed };
}

/** An SQS message as Lambda puts it in an SQSEvent record. */
function toRecord(message: Message, queueArn: string, region: string): SQSRecord {
  const system = message.Attributes ?? {};
  const attributes: SQSRecordAttributes = {
    ApproximateReceiveCount: system.ApproximateReceiveCount ?? '1',
    SentTimestamp: system.SentTimestamp ?? '',
    SenderId: system.SenderId ?? '',
    ApproximateFirstReceiveTimestamp: system.ApproximateFirstReceiveTimestamp ?? '',
  };
  for (const [name, value] of Object.entries(system)) {
    if (value !== undefined) (attributes as unknown as Record<string, string>)[name] = value;
  }
  const messageAttributes: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    // Lambda's shape: camelCase, binary values base64-encoded, the reserved list fields always present and empty.
    messageAttributes[name] = {
      ...(value.StringValue !== undefined && { stringValue: value.StringValue }),
      ...(value.BinaryValue !== undefined && { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }),
      stringListValues: [],
      binaryListValues: [],
      dataType: value.DataType ?? 'String',
    };
  }
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes,
    messageAttributes,
    md5OfBody: message.MD5OfBody ?? '',
    ...(message.MD5OfMessageAttributes !== undefined && { md5OfMessageAttributes: message.MD5OfMessageAttributes }),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
}

/**
 * `invoke` through the Lambda Invoke API (RequestResponse), e.g. against serverless-offline's Lambda endpoint
 * (`new LambdaClient({ endpoint: 'http://localhost:3002', … })`). A function error (`FunctionError` set, as
 * serverless-offline does for a thrown error) or a failed call is `{ ok: false }`; otherwise the payload is parsed
 * as JSON (an empty payload is null; a payload that is not JSON is passed on as a string, which
 * ReportBatchItemFailures treats as an invalid response, as Lambda does).
 */
export function lambdaInvoker(client: LambdaClient): Invoke {
  return async (functionName, event) => {
    try {
      const response = await client.send(
        new InvokeCommand({
          FunctionName: functionName,
          InvocationType: 'RequestResponse',
          Payload: Buffer.from(JSON.stringify(event), 'utf8'),
        }),
      );
      const text = response.Payload ? Buffer.from(response.Payload).toString('utf8') : '';
      if (response.FunctionError) return { ok: false, error: `${response.FunctionError}: ${text || '(no details)'}` };
      if (text.trim() === '') return { ok: true, payload: null };
      try {
        return { ok: true, payload: JSON.parse(text) as unknown };
      } catch {
        return { ok: true, payload: text };
      }
    } catch (err) {
      return { ok: false, error: describe(err) };
    }
  };
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.name && err.name !== 'Error' ? `${err.name}: ${err.message}` : err.message;
  return String(err);
}
