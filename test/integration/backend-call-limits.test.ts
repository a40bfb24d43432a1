/**
 * A backend call that never answers is given up and retried (lib/kernel/call-limits.ts), instead of
 * holding what awaits it until the function's timeout. Driven through the functions' own clients,
 * against stand-ins that leave the first request of each kind unanswered and answer the next.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Answers with `answer` from the second request on; the first gets nothing, ever. */
function silentOnce(answer: (req: IncomingMessage, body: string, res: ServerResponse) => void): { server: Server; requests: () => number } {
  let requests = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (++requests === 1) return; // left hanging: no status, no byte
      answer(req, body, res);
    });
  });
  return { server, requests: () => requests };
}

const listen = (server: Server) => new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));

const dynamo = silentOnce((_req, _body, res) => {
  res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify({ Item: { pk: { S: 'a' }, sk: { S: 'b' }, said: { S: 'hello' } } }));
});
const sent: string[] = [];
const sqs = silentOnce((req, body, res) => {
  const input = JSON.parse(body) as { QueueName?: string; MessageBody?: string };
  const answer = String(req.headers['x-amz-target']).endsWith('.GetQueueUrl')
    ? { QueueUrl: `${process.env.AWS_ENDPOINT_URL_SQS}/000000000000/${input.QueueName}` }
    : (sent.push(input.MessageBody!), { MessageId: 'm-1', MD5OfMessageBody: createHash('md5').update(input.MessageBody!).digest('hex') });
  res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify(answer));
});

beforeAll(async () => {
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_ENDPOINT_URL_DYNAMODB: await listen(dynamo.server),
    AWS_ENDPOINT_URL_SQS: await listen(sqs.server),
    STATE_TABLE: 'state',
    FILES_BUCKET: 'files',
    IMPORT_QUEUE: 'import',
    PROCESS_QUEUE: 'process',
    EXPORT_QUEUE: 'export',
    OPERATIONS_QUEUE: 'operations',
    WEBHOOKS_QUEUE: 'webhooks',
  });
});

afterAll(() => {
  dynamo.server.closeAllConnections();
  sqs.server.closeAllConnections();
  dynamo.server.close();
  sqs.server.close();
});

describe.concurrent('backend calls that get no answer', () => {
  it('a state-store read is tried again after 15 idle seconds, and answers', async () => {
    const { stateStore } = await import('#lib/wiring/clients.js');
    const started = Date.now();
    const item = await stateStore().get<{ pk: string; sk: string; said: string }>({ pk: 'a', sk: 'b' });
    expect(item?.said).toBe('hello');
    expect(dynamo.requests()).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(14_000);
  }, 60_000);

  it('a queue send is tried again after 15 idle seconds, and is sent', async () => {
    const { queueClient } = await import('#lib/wiring/queue.js');
    await queueClient().send('import', { taskId: 't-1' });
    expect(sent.map((b) => JSON.parse(b) as unknown)).toEqual([{ taskId: 't-1' }]);
    // The unanswered call (the queue's address), then it again, then the message.
    expect(sqs.requests()).toBe(3);
  }, 60_000);
});
