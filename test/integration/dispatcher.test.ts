/**
 * The SQS → Lambda dispatcher against the local SQS server, with the "function" as a plain async function.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { LambdaClient } from '@aws-sdk/client-lambda';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lambdaInvoker, startDispatcher, type Dispatcher, type EventSourceMapping, type Invoke } from '../../local/dispatcher.js';
import { startSqsServer, type SqsServer } from '../../local/sqs/server.js';
import { createLogger } from '#lib/kernel/log.js';
import { sqsConsumer } from '#lib/adapters/queue/consumer.js';
import { SqsQueue } from '#lib/adapters/queue/sqs.js';
import * as z from 'zod';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the condition');
    await sleep(25);
  }
}

const quietLog = { lines: [] as string[], info(m: string) { this.lines.push(m); }, warn(m: string) { this.lines.push(m); }, error(m: string) { this.lines.push(m); } };

let server: SqsServer;
let sqs: SQSClient;
let dispatcher: Dispatcher | undefined;
let n = 0;

beforeAll(async () => {
  server = await startSqsServer({ port: 0 });
  sqs = new SQSClient({ endpoint: server.url, region: 'us-east-1', credentials: { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local' } });
});

afterEach(async () => {
  await dispatcher?.stop();
  dispatcher = undefined;
});

afterAll(async () => {
  sqs?.destroy();
  await server?.close();
});

/** A work queue with a 1 s visibility timeout and a DLQ after `maxReceiveCount` receives. */
async function queuesWithDlq(maxReceiveCount: number, visibilityTimeout = '1') {
  const name = `work-${++n}`;
  const dlqUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }))).QueueUrl!;
  const url = (
    await sqs.send(
      new CreateQueueCommand({
        QueueName: name,
        Attributes: {
          VisibilityTimeout: visibilityTimeout,
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: server.queueArn(`${name}-dlq`), maxReceiveCount }),
        },
      }),
    )
  ).QueueUrl!;
  return { name, url, dlqUrl };
}

function start(mapping: Omit<EventSourceMapping, 'functionName'> & { functionName?: string }, invoke: Invoke) {
  dispatcher = startDispatcher({
    sqs,
    mappings: [{ functionName: 'consumer', ...mapping }],
    invoke,
    log: quietLog,
    waitTimeSeconds: 1,
  });
}

const count = async (url: string) => {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible);
};

describe('dispatcher', () => {
  it('builds a faithful SQSEvent', async () => {
    const q = await queuesWithDlq(3);
    const events: SQSEvent[] = [];
    start({ queueName: q.name, batchSize: 10, reportBatchItemFailures: false }, async (_fn, event) => {
      events.push(event);
      return { ok: true, payload: null };
    });
    const sent = await sqs.send(
      new SendMessageCommand({
        QueueUrl: q.url,
        MessageBody: '{"hello":"world"}',
        MessageAttributes: {
          tenant: { DataType: 'String', StringValue: 't-1' },
          blob: { DataType: 'Binary', BinaryValue: Buffer.from([1, 2, 3]) },
        },
      }),
    );
    await waitFor(() => events.length === 1);
    const record = events[0]!.Records[0]!;
    expect(record).toEqual({
      messageId: sent.MessageId!,
      receiptHandle: expect.any(String),
      body: '{"hello":"world"}',
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: expect.stringMatching(/^\d{13}$/),
        SenderId: 'AKIDLOCAL',
        ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d{13}$/),
      },
      messageAttributes: {
        tenant: { stringValue: 't-1', stringListValues: [], binaryListValues: [], dataType: 'String' },
        blob: { binaryValue: 'AQID', stringListValues: [], binaryListValues: [], dataType: 'Binary' },
      },
      md5OfBody: sent.MD5OfMessageBody!,
      md5OfMessageAttributes: sent.MD5OfMessageAttributes,
      eventSource: 'aws:sqs',
      eventSourceARN: server.queueArn(q.name),
      awsRegion: 'us-east-1',
    } satisfies SQSRecord);
    await waitFor(async () => (await count(q.url)) === 0);
  });

  it.each([
    ['throws', false],
    ['reports it in batchItemFailures', true],
  ] as const)('processes a message that fails once (the consumer %s) exactly once successfully', async (_how, reportBatchItemFailures) => {
    const q = await queuesWithDlq(3);
    const attempts: SQSRecord[] = [];
    const succeeded: string[] = [];
    start({ queueName: q.name, batchSize: 10, reportBatchItemFailures }, async (_fn, event) => {
      const failures: Array<{ itemIdentifier: string }> = [];
      for (const record of event.Records) {
        attempts.push(record);
        if (attempts.filter((a) => a.messageId === record.messageId).length === 1) {
          if (!reportBatchItemFailures) throw new Error('transient failure');
          failures.push({ itemIdentifier: record.messageId });
        } else {
          succeeded.push(record.messageId);
        }
      }
      return { ok: true, payload: { batchItemFailures: failures } };
    });
    const { MessageId } = await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'flaky' }));

    await waitFor(() => succeeded.length === 1);
    await waitFor(async () => (await count(q.url)) === 0);
    // Longer than the visibility timeout: had it not been deleted, it would have come back by now.
    await sleep(1300);
    expect(succeeded).toEqual([MessageId]);
    expect(attempts.map((a) => [a.messageId, a.attributes.ApproximateReceiveCount])).toEqual([
      [MessageId, '1'],
      [MessageId, '2'],
    ]);
    expect(await count(q.url)).toBe(0);
    expect(await count(q.dlqUrl)).toBe(0);
  });

  it('lets a message that always fails land in the DLQ after maxReceiveCount attempts', async () => {
    const q = await queuesWithDlq(2);
    let attempts = 0;
    start({ queueName: q.name, batchSize: 1, reportBatchItemFailures: false }, async () => {
      attempts++;
      return { ok: false, error: 'always broken' };
    });
    const { MessageId } = await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'poison' }));

    await waitFor(async () => (await count(q.dlqUrl)) === 1);
    await dispatcher!.stop();
    expect(attempts).toBe(2);
    expect(await count(q.url)).toBe(0);
    const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.dlqUrl, MessageSystemAttributeNames: ['All'] }));
    expect(Messages?.map((m) => [m.MessageId, m.Body, m.Attributes?.DeadLetterQueueSourceArn])).toEqual([
      [MessageId, 'poison', server.queueArn(q.name)],
    ]);
  });

  it('deletes only the successful messages of a partially failed batch', async () => {
    // Visibility 30 s: the failed messages stay in flight for the rest of the test, so nothing is retried meanwhile.
    const q = await queuesWithDlq(3, '30');
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: q.url,
        Entries: ['ok-1', 'fail-1', 'ok-2', 'fail-2'].map((body) => ({ Id: body, MessageBody: body })),
      }),
    );
    const batches: SQSRecord[][] = [];
    start({ queueName: q.name, batchSize: 10, reportBatchItemFailures: true }, async (_fn, event) => {
      batches.push(event.Records);
      return {
        ok: true,
        payload: { batchItemFailures: event.Records.filter((r) => r.body.startsWith('fail')).map((r) => ({ itemIdentifier: r.messageId })) },
      };
    });
    await waitFor(async () => batches.length === 1 && (await count(q.url)) === 2);
    await dispatcher!.stop();
    expect(batches[0]!.map((r) => r.body).sort()).toEqual(['fail-1', 'fail-2', 'ok-1', 'ok-2']);

    // Release every message of the batch through its handle: only the failed ones still exist to come back.
    for (const record of batches[0]!) {
      await sqs
        .send(new ChangeMessageVisibilityCommand({ QueueUrl: q.url, ReceiptHandle: record.receiptHandle, VisibilityTimeout: 0 }))
        .catch(() => undefined); // the deleted ones: "message does not exist"
    }
    const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.url, MaxNumberOfMessages: 10 }));
    expect(Messages?.map((m) => m.Body).sort()).toEqual(['fail-1', 'fail-2']);
  });

  it('treats an unknown itemIdentifier as a failure of the whole batch, as Lambda does', async () => {
    const q = await queuesWithDlq(3, '30');
    await sqs.send(new SendMessageBatchCommand({ QueueUrl: q.url, Entries: [{ Id: 'a', MessageBody: 'a' }, { Id: 'b', MessageBody: 'b' }] }));
    let calls = 0;
    start({ queueName: q.name, batchSize: 10, reportBatchItemFailures: true }, async () => {
      calls++;
      return { ok: true, payload: { batchItemFailures: [{ itemIdentifier: 'no-such-message' }] } };
    });
    await waitFor(() => calls === 1);
    await dispatcher!.stop();
    expect(server.stats(q.name)).toEqual({ visible: 0, inFlight: 2, delayed: 0 });
  });

  it('gathers a batch during the batching window', async () => {
    const q = await queuesWithDlq(3, '30');
    const sizes: number[] = [];
    start({ queueName: q.name, batchSize: 5, maximumBatchingWindowSeconds: 2, reportBatchItemFailures: false }, async (_fn, event) => {
      sizes.push(event.Records.length);
      return { ok: true, payload: null };
    });
    await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'first' }));
    await sleep(300);
    await sqs.send(new SendMessageBatchCommand({ QueueUrl: q.url, Entries: ['2', '3', '4', '5'].map((b) => ({ Id: `m${b}`, MessageBody: b })) }));
    await waitFor(() => sizes.length === 1);
    expect(sizes).toEqual([5]);
  });

  it('finishes the batch in progress before stop() resolves, and survives a throwing invoke', async () => {
    const q = await queuesWithDlq(3, '30');
    let finished = false;
    let calls = 0;
    start({ queueName: q.name, batchSize: 1, reportBatchItemFailures: false }, async () => {
      calls++;
      if (calls === 1) throw new Error('invoke itself blew up');
      await sleep(300);
      finished = true;
      return { ok: true, payload: null };
    });
    await sqs.send(new SendMessageBatchCommand({ QueueUrl: q.url, Entries: [{ Id: 'a', MessageBody: 'a' }, { Id: 'b', MessageBody: 'b' }] }));
    await waitFor(() => calls === 2);
    await dispatcher!.stop();
    expect(finished).toBe(true);
    // The first message's invoke threw: kept (in flight). The second was processed and deleted.
    expect(server.stats(q.name)).toEqual({ visible: 0, inFlight: 1, delayed: 0 });
  });

  it('keeps retrying a queue that does not exist yet', async () => {
    const name = `late-${++n}`;
    const bodies: string[] = [];
    start({ queueName: name, batchSize: 1, reportBatchItemFailures: false }, async (_fn, event) => {
      bodies.push(...event.Records.map((r) => r.body));
      return { ok: true, payload: null };
    });
    await sleep(300);
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'finally' }));
    await waitFor(() => bodies.length === 1);
    expect(bodies).toEqual(['finally']);
  });

  it('brings a failed message back after the consumer\'s retry delay, not the queue\'s visibility timeout', async () => {
    // A 5-minute visibility timeout: without the consumer's retry policy the second try would come 5 minutes later.
    const q = await queuesWithDlq(5, '300');
    const names = ['import', 'process', 'process-media', 'process-pdf', 'process-chromium', 'process-office', 'export', 'operations', 'webhooks'] as const;
    const queue = new SqsQueue(sqs, Object.fromEntries(names.map((n) => [n, q.name])) as Record<(typeof names)[number], string>);
    const tries: number[] = [];
    const consumer = sqsConsumer({
      schema: z.object({ n: z.number() }),
      log: () => createLogger({}, { level: 'silent' }),
      retry: { delaySeconds: () => 1, postpone: (record, seconds) => queue.postpone(record.eventSourceARN, record.receiptHandle, seconds) },
      async handle() {
        tries.push(Date.now());
        if (tries.length === 1) throw new Error('a passing failure');
      },
    });
    start({ queueName: q.name, batchSize: 1, reportBatchItemFailures: true }, async (_fn, event) => ({ ok: true, payload: await consumer(event) }));
    await queue.send('import', { n: 1 });
    await waitFor(() => tries.length === 2, 8000);
    expect(tries[1]! - tries[0]!).toBeGreaterThanOrEqual(900);
    expect(tries[1]! - tries[0]!).toBeLessThan(5000);
    await waitFor(async () => (await count(q.url)) === 0);
    expect(await count(q.dlqUrl)).toBe(0);
  });

});

describe('lambdaInvoker', () => {
  let lambda: Server;
  let client: LambdaClient;
  const requests: Array<{ url: string; body: string }> = [];

  beforeAll(async () => {
    // Answers like serverless-offline's Invoke endpoint: function errors are 200 with X-Amz-Function-Error.
    lambda = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        requests.push({ url: req.url ?? '', body });
        const fn = decodeURIComponent(/functions\/([^/]+)\/invocations/.exec(req.url ?? '')?.[1] ?? '');
        if (fn === 'fails') {
          res.writeHead(200, { 'content-type': 'application/json', 'x-amz-function-error': 'Unhandled' });
          res.end(JSON.stringify({ errorMessage: 'boom', errorType: 'Error' }));
        } else if (fn === 'missing') {
          res.writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' });
          res.end(JSON.stringify({ Message: 'Function not found: missing', Type: 'User' }));
        } else if (fn === 'silent') {
          res.writeHead(200);
          res.end();
        } else {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ batchItemFailures: [{ itemIdentifier: 'x' }] }));
        }
      });
    });
    await new Promise<void>((resolve) => lambda.listen(0, '127.0.0.1', resolve));
    client = new LambdaClient({
      endpoint: `http://127.0.0.1:${(lambda.address() as AddressInfo).port}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
  });

  afterAll(async () => {
    client?.destroy();
    await new Promise((resolve) => lambda?.close(resolve));
  });

  const event: SQSEvent = { Records: [] };

  it('invokes RequestResponse and parses the JSON payload', async () => {
    const invoke = lambdaInvoker(client);
    expect(await invoke('works', event)).toEqual({ ok: true, payload: { batchItemFailures: [{ itemIdentifier: 'x' }] } });
    expect(requests.at(-1)).toEqual({ url: '/2015-03-31/functions/works/invocations', body: JSON.stringify(event) });
    expect(await invoke('silent', event)).toEqual({ ok: true, payload: null });
  });

  it('reports a function error or a failed call as not ok', async () => {
    const invoke = lambdaInvoker(client);
    const failed = await invoke('fails', event);
    expect(failed.ok).toBe(false);
    expect(!failed.ok && failed.error).toContain('Unhandled');
    expect((await invoke('missing', event)).ok).toBe(false);
  });
});
