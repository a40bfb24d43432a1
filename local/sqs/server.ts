/**
 * A small local SQS server for `npm start` and the tests: standard queues only, in memory, optionally
 * persisted to a JSON file. One job a file: the AWS JSON 1.0 protocol (protocol.ts), the messages
 * (messages.ts), the queue model (queue-model.ts), the operations over it (operations.ts) and the snapshot
 * (snapshot.ts); here the HTTP server that ties them together.
 *
 * Not implemented (on purpose): FIFO queues, request signature checks (any credentials are accepted),
 * permissions (AddPermission/RemovePermission), message move tasks, the 60 s PurgeQueue / DeleteQueue delays.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keepIdleConnections } from '../shared/idle.js';
import { operations, unsupported } from './operations.js';
import { isObject, readBody, send, sendError, SqsError } from './protocol.js';
import { QueueModel, type QueueStats } from './queue-model.js';
import { loadSnapshot, restoreSnapshot, SnapshotWriter, takeSnapshot } from './snapshot.js';

export type { QueueStats } from './queue-model.js';

export interface SqsServerOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** When set, queues and messages are saved to this JSON file and loaded from it on start. */
  persistFile?: string;
  /** Used in queue ARNs; default us-east-1. */
  region?: string;
  /** Used in queue URLs and ARNs; default 000000000000. */
  accountId?: string;
}

export interface SqsServer {
  /** e.g. http://127.0.0.1:41234, the endpoint to give an SQSClient. */
  url: string;
  port: number;
  region: string;
  accountId: string;
  queueUrl(queueName: string): string;
  queueArn(queueName: string): string;
  /** Names of the existing queues, sorted. */
  queueNames(): string[];
  /** Message counts of a queue, or undefined when there is no such queue. */
  stats(queueName: string): QueueStats | undefined;
  /** Writes the persistence snapshot now (no-op without `persistFile`). */
  flush(): Promise<void>;
  /** Answers pending long polls (with no messages), stops listening, clears timers and writes a final snapshot. */
  close(): Promise<void>;
}

export async function startSqsServer(opts: SqsServerOptions = {}): Promise<SqsServer> {
  const host = opts.host ?? '127.0.0.1';
  const region = opts.region ?? 'us-east-1';
  const accountId = opts.accountId ?? '000000000000';
  let baseUrl = '';
  const queueUrl = (name: string) => `${baseUrl}/${accountId}/${name}`;
  const queueArn = (name: string) => `arn:aws:sqs:${region}:${accountId}:${name}`;
  const model: QueueModel = new QueueModel(queueUrl, queueArn, () => writer?.changed());
  const queues = model.queues;
  const writer = opts.persistFile ? new SnapshotWriter(opts.persistFile, () => takeSnapshot(queues)) : undefined;
  if (opts.persistFile) restoreSnapshot(await loadSnapshot(opts.persistFile), queues);

  const server = keepIdleConnections(createServer((req, res) => void handle(model, accountId, req, res)));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  baseUrl = `http://${urlHost}:${port}`;

  let closed: Promise<void> | undefined;

  return {
    url: baseUrl,
    port,
    region,
    accountId,
    queueUrl,
    queueArn,
    queueNames: () => [...queues.keys()].sort(),
    stats(name) {
      const queue = queues.get(name);
      return queue && model.countMessages(queue);
    },
    flush: async () => writer?.flush(),
    close() {
      closed ??= (async () => {
        model.closing = true;
        for (const queue of queues.values()) {
          for (const waiter of queue.waiters) waiter.finish([]);
          clearTimeout(queue.wakeTimer);
          queue.wakeTimer = undefined;
        }
        await new Promise<void>((resolve) => {
          // Keep-alive connections would hold close() open: idle ones are closed now, busy ones after a grace period.
          const force = setTimeout(() => server.closeAllConnections(), 1000);
          server.close(() => {
            clearTimeout(force);
            resolve();
          });
          server.closeIdleConnections();
        });
        await writer?.flush();
      })();
      return closed;
    },
  };
}

/** Answers one request: reads it as the JSON protocol, runs its operation on the model, sends the result or the error. */
async function handle(model: QueueModel, accountId: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  try {
    if (req.method !== 'POST') throw new SqsError('com.amazon.coral.service#UnknownOperationException', `${req.method ?? ''} is not supported: POST a JSON request.`, '', 405);
    const contentType = req.headers['content-type'] ?? '';
    const target = req.headers['x-amz-target'];
    if (typeof target !== 'string' || !contentType.startsWith('application/x-amz-json-1.0')) {
      // e.g. sqslite-era clients using the query protocol (form-encoded Action=…).
      throw new SqsError(
        'com.amazon.coral.service#UnknownOperationException',
        'This local SQS server speaks the AWS JSON 1.0 protocol only (X-Amz-Target: AmazonSQS.<Operation>, Content-Type: application/x-amz-json-1.0).',
        '',
      );
    }
    const name = target.startsWith('AmazonSQS.') ? target.slice('AmazonSQS.'.length) : '';
    const text = await readBody(req);
    let input: unknown;
    try {
      input = text === '' ? {} : JSON.parse(text);
    } catch {
      throw new SqsError('com.amazon.coral.service#SerializationException', 'The request body is not valid JSON.', '');
    }
    if (!isObject(input)) throw new SqsError('com.amazon.coral.service#SerializationException', 'The request body must be a JSON object.', '');
    if (unsupported.has(name)) {
      throw new SqsError('UnsupportedOperation', `${name} is not supported by this local SQS server.`, 'AWS.SimpleQueueService.UnsupportedOperation');
    }
    const operation = Object.hasOwn(operations, name) ? operations[name] : undefined;
    if (!operation) throw new SqsError('com.amazon.coral.service#UnknownOperationException', `Unknown operation ${target}.`, '');
    // SenderId: the caller's access key id, taken (unverified) from the SigV4 Authorization header.
    const credential = /Credential=([^/,\s]+)\//.exec(req.headers.authorization ?? '');
    const result = await operation(model, input, { signal: abort.signal, senderId: credential?.[1] ?? accountId });
    send(res, model.closing, 200, result);
  } catch (err) {
    if (err instanceof SqsError) {
      sendError(res, model.closing, err);
    } else {
      console.error('[sqs] internal error:', err);
      sendError(res, model.closing, new SqsError('InternalError', 'We encountered an internal error. Please try again.', 'InternalError', 500, 'Receiver'));
    }
  }
}
