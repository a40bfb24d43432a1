/**
 * The backends of the local emulator, without the functions: dynalite (DynamoDB API, LevelDB files), s3rver
 * (S3 API, plain files) behind the S3 front, and the embedded SQS-protocol server. The emulator
 * (local/emulator.ts) starts them under its functions; the CI run of the packaged artifacts
 * (scripts/ci/lambda-artifacts.ts) under its own.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, BucketAlreadyOwnedByYou, PutBucketCorsCommand } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, SetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import dynalite from 'dynalite';
import S3rver from 's3rver';
import { createS3Client, S3FileStore } from '../lib/adapters/file-store/s3-file-store.js';
import { DynamoStateStore } from '../lib/adapters/state/dynamodb.js';
import { ensureStateTable } from '../lib/adapters/state/table.js';
import { deleteExpired } from './expiry.js';
import { startS3Front } from './s3/front.js';
import { keepIdleConnections } from './shared/idle.js';
import { startSqsServer } from './sqs/server.js';

/** Local credentials: s3rver only accepts its own; dynalite and the SQS server accept any. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
export const REGION = 'us-east-1';

/** A port nothing listens on now (the preferred one when it is free). */
export async function freePort(preferred = 0): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(preferred, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const listen = (server: Server, port: number) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    keepIdleConnections(server).listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });

export interface BackendQueue {
  name: string;
  visibilityTimeout: number;
  /** `deadLetterQueue` is the `name` of another queue of the list. */
  redrive?: { deadLetterQueue: string; maxReceiveCount: number };
}

export interface BackendsOptions {
  /** Where the backends keep their data; survives restarts. */
  dataDir: string;
  table: string;
  bucket: string;
  /** Each processing region's own files bucket (region → bucket), made beside `bucket` with the same settings. */
  regionBuckets?: Record<string, string>;
  queues: BackendQueue[];
  /**
   * The credentials the backends accept and their own clients use (default LOCAL_CREDENTIALS). With a
   * session token the S3 front requires it on every request, as S3 does for a Lambda role's session.
   */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** 0 (default) picks a free port. */
  dynamoPort?: number;
  s3Port?: number;
  sqsPort?: number;
}

export interface Backends {
  endpoints: { dynamodb: string; s3: string; sqs: string };
  dynamodb: DynamoDBClient;
  sqs: SQSClient;
  /** The S3 server behind the front: its notifications become S3 events (./s3/events.ts). */
  s3rver: S3rver;
  stop(): Promise<void>;
}

/**
 * The backends alone, without the functions: dynalite, s3rver behind the S3 front, the SQS server, with
 * the state table, the files bucket (CORS for browser uploads) and the queues with their redrive policies.
 */
export async function startBackends(opts: BackendsOptions): Promise<Backends> {
  const stoppers: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    for (const s of stoppers.reverse()) await s().catch(() => {});
  };
  try {
    mkdirSync(opts.dataDir, { recursive: true });
    const credentials = opts.credentials ?? LOCAL_CREDENTIALS;
    const client = { region: REGION, credentials };

    // State: dynalite on LevelDB under the data folder.
    const dyn = dynalite({ path: path.join(opts.dataDir, 'dynamodb'), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
    const dynamoPort = await listen(dyn, opts.dynamoPort ?? 0);
    stoppers.push(() => new Promise((r) => dyn.close(r)));
    const dynamodb = `http://127.0.0.1:${dynamoPort}`;

    // Files: s3rver on the file system, behind a front that makes browser-form uploads behave as on
    // S3 (policy checks, `${filename}` keys, lenient multipart); the front is the S3 endpoint.
    const s3rverPort = await freePort();
    const s3rver = new S3rver({ port: s3rverPort, address: '127.0.0.1', silent: true, directory: path.join(opts.dataDir, 's3') });
    await s3rver.run();
    keepIdleConnections((s3rver as unknown as { httpServer: Server }).httpServer);
    stoppers.push(() => s3rver.close());
    const front = await startS3Front({
      target: `http://127.0.0.1:${s3rverPort}`,
      port: await freePort(opts.s3Port ?? 0),
      credentials,
      spoolDir: path.join(opts.dataDir, 's3-spool'),
    });
    stoppers.push(() => front.close());
    const s3 = front.url;

    // Queues: the embedded SQS-protocol server, persisted to one file.
    const sqsServer = await startSqsServer({ port: opts.sqsPort ?? 0, persistFile: path.join(opts.dataDir, 'sqs.json'), region: REGION });
    stoppers.push(() => sqsServer.close());
    const sqs = sqsServer.url;

    const dynamoClient = new DynamoDBClient({ ...client, endpoint: dynamodb });
    await ensureStateTable(dynamoClient, opts.table);
    const s3Client = createS3Client({ region: REGION, endpoint: s3, credentials });
    const regionBuckets = opts.regionBuckets ?? {};
    for (const bucket of new Set([opts.bucket, ...Object.values(regionBuckets)])) {
      try {
        await s3Client.send(new CreateBucketCommand({ Bucket: bucket }));
      } catch (err) {
        if (!(err instanceof BucketAlreadyOwnedByYou) && (err as Error).name !== 'BucketAlreadyExists') throw err;
      }
      await s3Client.send(
        new PutBucketCorsCommand({
          Bucket: bucket,
          CORSConfiguration: {
            CORSRules: [{ AllowedOrigins: ['*'], AllowedMethods: ['GET', 'HEAD', 'POST', 'PUT'], AllowedHeaders: ['*'], ExposeHeaders: ['ETag'] }],
          },
        }),
      );
    }
    const sqsClient = new SQSClient({ ...client, endpoint: sqs });
    const queueArns = new Map<string, string>();
    const createQueue = async (q: BackendQueue): Promise<void> => {
      if (queueArns.has(q.name)) return;
      const attributes: Record<string, string> = { VisibilityTimeout: String(q.visibilityTimeout) };
      if (q.redrive) {
        const dlq = opts.queues.find((d) => d.name === q.redrive!.deadLetterQueue);
        if (!dlq) throw new Error(`${q.name}: dead-letter queue ${q.redrive.deadLetterQueue} is not declared`);
        await createQueue(dlq);
        attributes.RedrivePolicy = JSON.stringify({
          deadLetterTargetArn: queueArns.get(dlq.name),
          maxReceiveCount: q.redrive.maxReceiveCount,
        });
      }
      // Created bare, then configured: a persisted queue from an earlier run may carry other settings,
      // and CreateQueue with different attributes fails (QueueNameExists) as in SQS.
      const { QueueUrl } = await sqsClient.send(new CreateQueueCommand({ QueueName: q.name }));
      await sqsClient.send(new SetQueueAttributesCommand({ QueueUrl, Attributes: attributes }));
      const attrs = await sqsClient.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
      queueArns.set(q.name, attrs.Attributes?.QueueArn ?? '');
    };
    for (const q of opts.queues) await createQueue(q);

    // DynamoDB's TTL and the bucket's lifecycle rule, which dynalite and s3rver lack (every minute).
    const stores = new Map([...new Set([opts.bucket, ...Object.values(regionBuckets)])].map((b) => [b, new S3FileStore(s3Client, b)]));
    const expiry = {
      state: new DynamoStateStore(dynamoClient, opts.table),
      files: stores.get(opts.bucket)!,
      regionFiles: (region: string | undefined) => stores.get((region !== undefined && regionBuckets[region]) || opts.bucket)!,
    };
    const expire = () => deleteExpired(expiry).catch(() => {});
    const expiryTimer = setInterval(expire, 60_000);
    expiryTimer.unref();
    void expire();
    stoppers.push(async () => clearInterval(expiryTimer));
    return { endpoints: { dynamodb, s3, sqs }, dynamodb: dynamoClient, sqs: sqsClient, s3rver, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
