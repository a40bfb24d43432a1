/**
 * The local SQS server, driven only through @aws-sdk/client-sqs (which also verifies the body MD5s it gets back).
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListDeadLetterSourceQueuesCommand,
  ListQueuesCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
  type MessageAttributeValue,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { md5OfMessageAttributes } from '../../local/sqs/messages.js';
import { startSqsServer, type SqsServer } from '../../local/sqs/server.js';

const clientFor = (server: SqsServer) =>
  new SQSClient({
    endpoint: server.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local' },
    maxAttempts: 1,
  });

/** The error a promise rejects with (fails the test if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<Error & { $metadata?: { httpStatusCode?: number } }> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the call to fail');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: SqsServer;
let sqs: SQSClient;
let n = 0;
/** A fresh queue per test, so tests do not see each other's messages. */
async function createQueue(attributes: Record<string, string> = {}, prefix = 'q'): Promise<{ name: string; url: string; arn: string }> {
  const name = `${prefix}-${++n}`;
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  return { name, url: QueueUrl!, arn: server.queueArn(name) };
}

beforeAll(async () => {
  server = await startSqsServer({ port: 0 });
  sqs = clientFor(server);
});

afterAll(async () => {
  sqs?.destroy();
  await server?.close();
});

describe('queues', () => {
  it('creates queues with SQS-shaped URLs and ARNs, idempotently, and lists, finds and deletes them', async () => {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'orders', Attributes: { VisibilityTimeout: '45' } }));
    expect(QueueUrl).toBe(`http://127.0.0.1:${server.port}/000000000000/orders`);
    // Same name and same attributes: the existing queue.
    const again = await sqs.send(new CreateQueueCommand({ QueueName: 'orders', Attributes: { VisibilityTimeout: '45' } }));
    expect(again.QueueUrl).toBe(QueueUrl);
    // Same name, different attribute value: refused.
    const conflict = await rejection(sqs.send(new CreateQueueCommand({ QueueName: 'orders', Attributes: { VisibilityTimeout: '46' } })));
    expect(conflict.name).toBe('QueueNameExists');

    expect((await sqs.send(new GetQueueUrlCommand({ QueueName: 'orders' }))).QueueUrl).toBe(QueueUrl);
    expect((await sqs.send(new ListQueuesCommand({ QueueNamePrefix: 'ord' }))).QueueUrls).toEqual([QueueUrl]);

    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }));
    expect(Attributes).toMatchObject({
      QueueArn: 'arn:aws:sqs:us-east-1:000000000000:orders',
      VisibilityTimeout: '45',
      DelaySeconds: '0',
      MessageRetentionPeriod: '345600',
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '0',
    });

    await sqs.send(new SetQueueAttributesCommand({ QueueUrl, Attributes: { DelaySeconds: '2' } }));
    const only = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['DelaySeconds'] }));
    expect(only.Attributes).toEqual({ DelaySeconds: '2' });

    await sqs.send(new DeleteQueueCommand({ QueueUrl }));
    expect((await rejection(sqs.send(new GetQueueUrlCommand({ QueueName: 'orders' })))).name).toBe('QueueDoesNotExist');
  });

  it('accepts a QueueUrl of another host form, as long as the last path segment is the queue name', async () => {
    const q = await createQueue();
    // Client-side, the SDK keeps using its configured endpoint; the server only looks at the name.
    await sqs.send(new SendMessageCommand({ QueueUrl: `https://sqs.eu-west-1.amazonaws.com/123456789012/${q.name}`, MessageBody: 'x' }));
    expect(server.stats(q.name)).toEqual({ visible: 1, inFlight: 0, delayed: 0 });
  });
});

describe('messages', () => {
  it('sends, receives with system attributes, and deletes', async () => {
    const q = await createQueue();
    // A non-ASCII body: the SDK checks MD5OfMessageBody / MD5OfBody over the UTF-8 bytes and throws on mismatch.
    const body = 'héllo wörld 🌍';
    const sent = await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: body }));
    expect(sent.MessageId).toMatch(/^[0-9a-f-]{36}$/);

    const before = Date.now();
    const { Messages } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: q.url, MessageSystemAttributeNames: ['All'], MaxNumberOfMessages: 10 }),
    );
    expect(Messages).toHaveLength(1);
    const m = Messages![0]!;
    expect(m.MessageId).toBe(sent.MessageId);
    expect(m.Body).toBe(body);
    expect(m.Attributes?.ApproximateReceiveCount).toBe('1');
    expect(m.Attributes?.SenderId).toBe('AKIDLOCAL');
    expect(Number(m.Attributes?.SentTimestamp)).toBeLessThanOrEqual(before);
    expect(Number(m.Attributes?.ApproximateFirstReceiveTimestamp)).toBeGreaterThanOrEqual(Number(m.Attributes?.SentTimestamp));

    // In flight: not receivable, counted as not visible.
    const counts = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: q.url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
    );
    expect(counts.Attributes).toEqual({ ApproximateNumberOfMessages: '0', ApproximateNumberOfMessagesNotVisible: '1' });
    expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.url }))).Messages).toBeUndefined();

    await sqs.send(new DeleteMessageCommand({ QueueUrl: q.url, ReceiptHandle: m.ReceiptHandle }));
    expect(server.stats(q.name)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  });

  it('redelivers after the visibility timeout with ApproximateReceiveCount 2 and a new receipt handle', async () => {
    const q = await createQueue({ VisibilityTimeout: '1' });
    await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'again' }));
    const receive = () => sqs.send(new ReceiveMessageCommand({ QueueUrl: q.url, MessageSystemAttributeNames: ['ApproximateReceiveCount'] }));

    const first = (await receive()).Messages![0]!;
    expect(first.Attributes).toEqual({ ApproximateReceiveCount: '1' });
    expect((await receive()).Messages).toBeUndefined();

    await sleep(1100);
    const second = (await receive()).Messages![0]!;
    expect(second.MessageId).toBe(first.MessageId);
    expect(second.Attributes).toEqual({ ApproximateReceiveCount: '2' });
    expect(second.ReceiptHandle).not.toBe(first.ReceiptHandle);

    // Documented SQS behaviour, which we follow: deleting with a stale handle succeeds but deletes nothing.
    await sqs.send(new DeleteMessageCommand({ QueueUrl: q.url, ReceiptHandle: first.ReceiptHandle }));
    expect(server.stats(q.name)).toEqual({ visible: 0, inFlight: 1, delayed: 0 });
    await sqs.send(new DeleteMessageCommand({ QueueUrl: q.url, ReceiptHandle: second.ReceiptHandle }));
    expect(server.stats(q.name)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  });

  it('honours a per-receive VisibilityTimeout and ChangeMessageVisibility', async () => {
    const q = await createQueue({ VisibilityTimeout: '30' });
    await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'v' }));
    const first = (await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.url, VisibilityTimeout: 0 }))).Messages![0]!;
    // Visibility 0: receivable again at once.
    const second = (await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.url }))).Messages![0]!;
    expect(second.MessageId).toBe(first.MessageId);
    expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.url }))).Messages).toBeUndefined();
    // Releasing it early makes it receivable again.
    await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: q.url, ReceiptHandle: second.ReceiptHandle, VisibilityTimeout: 0 }));
    expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.url }))).Messages?.[0]?.MessageId).toBe(first.MessageId);
  });

  it('delays messages by DelaySeconds', async () => {
    const q = await createQueue();
    await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'later', DelaySeconds: 1 }));
    expect(server.stats(q.name)).toEqual({ visible: 0, inFlight: 0, delayed: 1 });
    expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.url }))).Messages).toBeUndefined();
    const started = Date.now();
    // A long poll is answered when the delay is over, not at the end of its wait.
    const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.url, WaitTimeSeconds: 5 }));
    expect(Messages?.[0]?.Body).toBe('later');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('sends and deletes in batches, reporting failed entries', async () => {
    const q = await createQueue();
    const sent = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: q.url,
        Entries: [
          { Id: 'a', MessageBody: 'one' },
          { Id: 'b', MessageBody: 'two', DelaySeconds: 0 },
          { Id: 'c', MessageBody: 'three' },
          { Id: 'bad', MessageBody: 'nul \u0000 is not allowed' },
        ],
      }),
    );
    expect(sent.Successful?.map((e) => e.Id).sort()).toEqual(['a', 'b', 'c']);
    expect(sent.Failed).toEqual([expect.objectContaining({ Id: 'bad', SenderFault: true, Code: 'InvalidMessageContents' })]);

    const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.url, MaxNumberOfMessages: 10 }));
    expect(Messages?.map((m) => m.Body).sort()).toEqual(['one', 'three', 'two']);

    const deleted = await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: q.url,
        Entries: [...Messages!.map((m, i) => ({ Id: `m${i}`, ReceiptHandle: m.ReceiptHandle })), { Id: 'junk', ReceiptHandle: 'not-a-handle' }],
      }),
    );
    expect(deleted.Successful).toHaveLength(3);
    expect(deleted.Failed).toEqual([expect.objectContaining({ Id: 'junk', Code: 'ReceiptHandleIsInvalid' })]);
    expect(server.stats(q.name)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });

    const tooMany = await rejection(
      sqs.send(new SendMessageBatchCommand({ QueueUrl: q.url, Entries: Array.from({ length: 11 }, (_, i) => ({ Id: `e${i}`, MessageBody: 'x' })) })),
    );
    expect(tooMany.name).toBe('TooManyEntriesInBatchRequest');
    const duplicate = await rejection(
      sqs.send(new SendMessageBatchCommand({ QueueUrl: q.url, Entries: [{ Id: 'same', MessageBody: 'x' }, { Id: 'same', MessageBody: 'y' }] })),
    );
    expect(duplicate.name).toBe('BatchEntryIdsNotDistinct');
  });

  it('purges a queue', async () => {
    const q = await createQueue();
    await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'x' }));
    await sqs.send(new PurgeQueueCommand({ QueueUrl: q.url }));
    expect(server.stats(q.name)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  });
});

describe('message attributes', () => {
  // Reference digests published for SQS (AWS samples, as used by other SQS implementations' tests), so the MD5
  // algorithm is checked against known values rather than against itself.
  const samples: Array<{ attributes: Record<string, MessageAttributeValue>; md5: string }> = [
    {
      attributes: {
        test_attribute_name_2: { DataType: 'String', StringValue: 'test_attribute_value_2' },
        test_attribute_name_1: { DataType: 'String', StringValue: 'test_attribute_value_1' },
      },
      md5: 'd53f3b558fe951154770f25cb63dbba9',
    },
    {
      attributes: { test_attribute_name: { DataType: 'Binary', BinaryValue: Buffer.from('test_attribute_value') } },
      md5: '23f6bd27ea87aab7dfeadcc9aebee495',
    },
    {
      attributes: { ordinal: { DataType: 'Number', StringValue: '1' }, category: { DataType: 'String', StringValue: 'test' } },
      md5: 'd21ae90c49061e927f57df5f5d72be1f',
    },
  ];

  it.each(samples)('round-trips attributes with the documented MD5OfMessageAttributes ($md5)', async ({ attributes, md5 }) => {
    const q = await createQueue();
    const sent = await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'with attributes', MessageAttributes: attributes }));
    expect(sent.MD5OfMessageAttributes).toBe(md5);

    const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.url, MessageAttributeNames: ['All'] }));
    const m = Messages![0]!;
    expect(m.MD5OfMessageAttributes).toBe(md5);
    expect(m.MessageAttributes).toEqual(
      Object.fromEntries(
        Object.entries(attributes).map(([k, v]) => [k, v.BinaryValue ? { DataType: v.DataType, BinaryValue: new Uint8Array(v.BinaryValue) } : v]),
      ),
    );
  });

  it('exports the same MD5 algorithm for the JSON shape (binary base64-encoded)', () => {
    expect(md5OfMessageAttributes({ test_attribute_name: { DataType: 'Binary', BinaryValue: Buffer.from('test_attribute_value').toString('base64') } })).toBe(
      '23f6bd27ea87aab7dfeadcc9aebee495',
    );
    expect(md5OfMessageAttributes({})).toBeUndefined();
  });

  it('returns only the requested attributes, with the MD5 of those', async () => {
    const q = await createQueue();
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: q.url,
        Entries: [
          {
            Id: 'x',
            MessageBody: 'b',
            MessageAttributes: {
              'trace.id': { DataType: 'String', StringValue: 't-1' },
              'trace.span': { DataType: 'String', StringValue: 's-1' },
              kind: { DataType: 'String.custom', StringValue: 'k' },
            },
          },
        ],
      }),
    );
    const none = (await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.url, VisibilityTimeout: 0 }))).Messages![0]!;
    expect(none.MessageAttributes).toBeUndefined();
    expect(none.MD5OfMessageAttributes).toBeUndefined();

    const some = (await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.url, MessageAttributeNames: ['trace.*'] }))).Messages![0]!;
    expect(Object.keys(some.MessageAttributes ?? {}).sort()).toEqual(['trace.id', 'trace.span']);
    expect(some.MD5OfMessageAttributes).toBe(
      md5OfMessageAttributes({ 'trace.id': { DataType: 'String', StringValue: 't-1' }, 'trace.span': { DataType: 'String', StringValue: 's-1' } }),
    );
  });

  it('refuses invalid attributes', async () => {
    const q = await createQueue();
    const err = await rejection(
      sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'b', MessageAttributes: { n: { DataType: 'Number', StringValue: 'abc' } } })),
    );
    expect(err.name).toBe('InvalidParameterValue');
  });
});

describe('long polling', () => {
  it('returns as soon as a message arrives', async () => {
    const q = await createQueue();
    const started = Date.now();
    const polling = sqs.send(new ReceiveMessageCommand({ QueueUrl: q.url, WaitTimeSeconds: 10 }));
    await sleep(300);
    await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'wake up' }));
    const { Messages } = await polling;
    expect(Messages?.[0]?.Body).toBe('wake up');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('returns as soon as an in-flight message becomes visible again', async () => {
    const q = await createQueue({ VisibilityTimeout: '1' });
    await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'retry' }));
    await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.url }));
    const started = Date.now();
    const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.url, WaitTimeSeconds: 10, MessageSystemAttributeNames: ['All'] }));
    expect(Messages?.[0]?.Attributes?.ApproximateReceiveCount).toBe('2');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('returns nothing when the wait is over', async () => {
    const q = await createQueue();
    const started = Date.now();
    const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.url, WaitTimeSeconds: 1 }));
    expect(Messages).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('does not hand messages to a poll whose client has gone away', async () => {
    const q = await createQueue();
    const abort = new AbortController();
    const polling = sqs.send(new ReceiveMessageCommand({ QueueUrl: q.url, WaitTimeSeconds: 10 }), { abortSignal: abort.signal });
    await sleep(200);
    abort.abort();
    await expect(polling).rejects.toThrow();
    await sleep(100);
    await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'still here' }));
    expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.url }))).Messages?.[0]?.Body).toBe('still here');
  });
});

describe('dead-letter queues', () => {
  it('moves a message to the DLQ when it would be received more than maxReceiveCount times', async () => {
    const dlq = await createQueue({}, 'dlq');
    const main = await createQueue({ RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: '2' }) });
    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: main.url, AttributeNames: ['RedrivePolicy'] }));
    expect(JSON.parse(Attributes!.RedrivePolicy!)).toEqual({ deadLetterTargetArn: dlq.arn, maxReceiveCount: 2 });
    expect((await sqs.send(new ListDeadLetterSourceQueuesCommand({ QueueUrl: dlq.url }))).queueUrls).toEqual([main.url]);

    const sent = await sqs.send(
      new SendMessageCommand({ QueueUrl: main.url, MessageBody: 'poison', MessageAttributes: { tenant: { DataType: 'String', StringValue: 't1' } } }),
    );
    const receive = (url: string) =>
      sqs.send(new ReceiveMessageCommand({ QueueUrl: url, VisibilityTimeout: 0, MessageSystemAttributeNames: ['All'], MessageAttributeNames: ['All'] }));
    expect((await receive(main.url)).Messages?.[0]?.Attributes?.ApproximateReceiveCount).toBe('1');
    expect((await receive(main.url)).Messages?.[0]?.Attributes?.ApproximateReceiveCount).toBe('2');
    // The third receive would exceed maxReceiveCount: the message goes to the DLQ instead.
    expect((await receive(main.url)).Messages).toBeUndefined();
    expect(server.stats(main.name)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });

    const moved = (await receive(dlq.url)).Messages![0]!;
    expect(moved.MessageId).toBe(sent.MessageId);
    expect(moved.Body).toBe('poison');
    expect(moved.MessageAttributes).toEqual({ tenant: { DataType: 'String', StringValue: 't1' } });
    expect(moved.MD5OfMessageAttributes).toBe(sent.MD5OfMessageAttributes);
    expect(moved.Attributes?.DeadLetterQueueSourceArn).toBe(main.arn);
    expect(moved.Attributes?.ApproximateReceiveCount).toBe('1');
  });

  it('refuses a redrive policy whose dead-letter queue does not exist', async () => {
    const q = await createQueue();
    const err = await rejection(
      sqs.send(
        new SetQueueAttributesCommand({
          QueueUrl: q.url,
          Attributes: { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: server.queueArn('nope'), maxReceiveCount: 3 }) },
        }),
      ),
    );
    expect(err.name).toBe('InvalidParameterValue');
  });
});

describe('errors', () => {
  it('reports errors as the SDK models them', async () => {
    const missing = await rejection(sqs.send(new SendMessageCommand({ QueueUrl: `${server.url}/000000000000/missing`, MessageBody: 'x' })));
    expect(missing.name).toBe('QueueDoesNotExist');
    expect(missing.$metadata?.httpStatusCode).toBe(400);

    const q = await createQueue();
    const tooMany = await rejection(sqs.send(new ReceiveMessageCommand({ QueueUrl: q.url, MaxNumberOfMessages: 11 })));
    expect(tooMany.name).toBe('InvalidParameterValue');
    expect(tooMany.message).toBe('Value 11 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided.');

    const badHandle = await rejection(sqs.send(new DeleteMessageCommand({ QueueUrl: q.url, ReceiptHandle: 'garbage' })));
    expect(badHandle.name).toBe('ReceiptHandleIsInvalid');

    const badName = await rejection(sqs.send(new GetQueueAttributesCommand({ QueueUrl: q.url, AttributeNames: ['Colour' as never] })));
    expect(badName.name).toBe('InvalidAttributeName');

    const badValue = await rejection(sqs.send(new SetQueueAttributesCommand({ QueueUrl: q.url, Attributes: { VisibilityTimeout: '99999' } })));
    expect(badValue.name).toBe('InvalidAttributeValue');

    const fifo = await rejection(sqs.send(new CreateQueueCommand({ QueueName: 'jobs.fifo', Attributes: { FifoQueue: 'true' } })));
    expect(fifo.name).toBe('UnsupportedOperation');
  });

  it('answers an unknown operation and a non-JSON-protocol request with an error', async () => {
    const unknown = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.Teleport' },
      body: '{}',
    });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ __type: 'com.amazon.coral.service#UnknownOperationException' });

    const query = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'Action=ListQueues&Version=2012-11-05',
    });
    expect(query.status).toBe(400);
  });
});

describe('lifecycle', () => {
  it('keeps queues and messages across a restart when persistFile is set', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sqs-server-'));
    const persistFile = join(dir, 'state', 'sqs.json');
    try {
      let s = await startSqsServer({ port: 0, persistFile });
      let c = clientFor(s);
      const dlqUrl = (await c.send(new CreateQueueCommand({ QueueName: 'dead' }))).QueueUrl!;
      const { QueueUrl } = await c.send(
        new CreateQueueCommand({
          QueueName: 'work',
          Attributes: { VisibilityTimeout: '60', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: s.queueArn('dead'), maxReceiveCount: 5 }) },
        }),
      );
      await c.send(new SendMessageCommand({ QueueUrl, MessageBody: 'kept', MessageAttributes: { a: { DataType: 'Number', StringValue: '42' } } }));
      await c.send(new SendMessageCommand({ QueueUrl, MessageBody: 'in flight' }));
      await c.send(new SendMessageCommand({ QueueUrl: dlqUrl, MessageBody: 'dead one' }));
      // Take 'kept' off: it is in flight (60 s) when the server stops.
      const inFlight = (await c.send(new ReceiveMessageCommand({ QueueUrl }))).Messages![0]!;
      await c.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: inFlight.ReceiptHandle })); // deletes 'kept'
      const held = (await c.send(new ReceiveMessageCommand({ QueueUrl }))).Messages![0]!;
      expect(held.Body).toBe('in flight');
      c.destroy();
      await s.close();
      // Written atomically: only the snapshot, no temp file left behind.
      expect(await readdir(join(dir, 'state'))).toEqual(['sqs.json']);

      s = await startSqsServer({ port: 0, persistFile });
      c = clientFor(s);
      try {
        expect(s.queueNames()).toEqual(['dead', 'work']);
        const url = (await c.send(new GetQueueUrlCommand({ QueueName: 'work' }))).QueueUrl!;
        expect(url).toBe(`${s.url}/000000000000/work`);
        const { Attributes } = await c.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['VisibilityTimeout', 'RedrivePolicy'] }));
        expect(Attributes?.VisibilityTimeout).toBe('60');
        expect(JSON.parse(Attributes!.RedrivePolicy!)).toMatchObject({ maxReceiveCount: 5 });
        // The message that was in flight is receivable again at once, with its receive count kept.
        const { Messages } = await c.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'] }));
        expect(Messages?.map((m) => [m.MessageId, m.Body, m.Attributes?.ApproximateReceiveCount])).toEqual([[held.MessageId, 'in flight', '2']]);
        const dead = await c.send(new ReceiveMessageCommand({ QueueUrl: (await c.send(new GetQueueUrlCommand({ QueueName: 'dead' }))).QueueUrl }));
        expect(dead.Messages?.[0]?.Body).toBe('dead one');
      } finally {
        c.destroy();
        await s.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('answers pending long polls when it closes', async () => {
    const s = await startSqsServer({ port: 0 });
    const c = clientFor(s);
    const { QueueUrl } = await c.send(new CreateQueueCommand({ QueueName: 'closing' }));
    const polling = c.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20 }));
    await sleep(200);
    const started = Date.now();
    await s.close();
    expect((await polling).Messages).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(500);
    c.destroy();
  });
});
