/**
 * The whole platform on one machine, in one process tree, with no Docker and no Java:
 * dynalite (DynamoDB API, LevelDB files), s3rver (S3 API, plain files), the embedded SQS-protocol
 * server, serverless-offline running the service's functions, and a dispatcher that delivers queue
 * messages to the consumer functions the way Lambda's event-source mappings do.
 * `npm start` and the e2e tests both start it through `startPlatform`; `startBackends` starts the
 * backends alone (the CI run of the packaged artifacts, scripts/ci/lambda-artifacts.ts, brings its own
 * functions).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { CreateBucketCommand, BucketAlreadyOwnedByYou, PutBucketCorsCommand } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, SetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import dynalite from 'dynalite';
import S3rver from 's3rver';
import { ApiKeys } from '../lib/access/auth/keys.js';
import { regionConfig } from '../lib/kernel/config.js';
import { SCOPES } from '../lib/access/auth/scopes.js';
import type { GoogleAuthMode } from '../lib/google/auth.js';
import { createS3Client, S3FileStore } from '../lib/adapters/file-store/s3-file-store.js';
import { DynamoStateStore } from '../lib/adapters/state/dynamodb.js';
import { ensureStateTable } from '../lib/adapters/state/table.js';
import { lambdaInvoker, startDispatcher } from './dispatcher.js';
import { deleteExpired } from './expiry.js';
import { forwardS3Events } from './s3/events.js';
import { startS3Front } from './s3/front.js';
import { readServiceDefinition } from './service-definition.js';
import { startSqsServer } from './sqs/server.js';
import { keepIdleConnections } from './shared/idle.js';

export interface PlatformOptions {
  /** Project root holding serverless.yml. */
  root?: string;
  /** Where the backends keep their data; survives restarts. */
  dataDir: string;
  stage?: string;
  /** 0 picks a free port. */
  httpPort?: number;
  lambdaPort?: number;
  /** serverless-offline's WebSocket API (live events) and its management API (`/@connections/{id}`). */
  websocketPort?: number;
  dynamoPort?: number;
  s3Port?: number;
  sqsPort?: number;
  /** The development API key; a random one is made (and kept in the data folder) when absent. */
  apiKey?: string;
  /**
   * Authentication of the Google-dialect APIs. Default `open`: local use, any token or none (a
   * deployed stage enforces it). `env.GOOGLE_AUTH_MODE` overrides this too.
   */
  googleAuthMode?: GoogleAuthMode;
  /** Extra environment for the functions (e.g. RATE_LIMIT). */
  env?: Record<string, string>;
  /** Override queue visibility timeouts (seconds), for fast local retries in tests. */
  visibilityTimeout?: number;
  /** serverless-esbuild's work folder, relative to root; a private one is made (and removed) when absent. */
  buildDir?: string;
  /** Run the esbuild bundles (as deployed) instead of the TypeScript sources. Slower to start. */
  bundle?: boolean;
  /** Deliver queue messages to the consumer functions (default true); off when a caller drives them itself. */
  dispatch?: boolean;
  /**
   * Where serverless-offline's output (and the dispatcher's warnings) go: `capture` keeps the last
   * lines in memory for `capturedOutput()` (tests print them when one fails), and otherwise writes
   * as little as `ignore`.
   */
  output?: 'inherit' | 'ignore' | 'capture';
  /** Extra Node.js arguments for the serverless-offline process (e.g. a `--require` of the bench's call tracer). */
  nodeArgs?: string[];
  log?: (line: string) => void;
}

export interface Platform {
  baseUrl: string;
  /** The socket.io endpoint of live job and task events (`io(socketUrl, { transports: ['websocket'] })`). */
  socketUrl: string;
  /** The development API key: every scope, so it works on every API in either Google auth mode. */
  apiKey: string;
  googleAuthMode: GoogleAuthMode;
  endpoints: { dynamodb: string; s3: string; sqs: string; lambda: string };
  /** The serverless-offline process, where the functions run (for measurements). */
  functionsPid: number;
  env: Record<string, string>;
  /** Each processing region's files bucket (region → bucket name) on the `endpoints.s3` server. */
  regionBuckets: Record<string, string>;
  /**
   * Stops everything. `abrupt` first kills the functions' process outright, as a crash or a power
   * cut would, so that runs in progress end without finishing.
   */
  stop(opts?: { abrupt?: boolean }): Promise<void>;
}

/** The start-up banner's line on Google API authentication. */
export function googleAuthBanner(mode: GoogleAuthMode): string {
  return mode === 'open'
    ? 'open: any token or none, no key needed (local use only; deployed stages enforce keys; GOOGLE_AUTH_MODE=enforced npm start to try it)'
    : 'enforced: send the API key below as the bearer token (or key=)';
}

/** Local credentials: s3rver only accepts its own; dynalite and the SQS server accept any. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const REGION = 'us-east-1';

/** The last lines of a platform started with `output: 'capture'`. */
class OutputTail {
  readonly #lines: string[] = [];
  #partial = '';
  constructor(readonly label: string, private readonly keep = 400) {}

  write(chunk: string): void {
    const parts = (this.#partial + chunk).split('\n');
    this.#partial = parts.pop() ?? '';
    // Not serverless-offline's table of routes (hundreds of lines, the same at every start).
    this.#lines.push(...parts.filter((line) => !/^[\u2500-\u257f]/.test(line)));
    if (this.#lines.length > this.keep) this.#lines.splice(0, this.#lines.length - this.keep);
  }

  text(): string {
    return [...this.#lines, this.#partial].filter(Boolean).join('\n');
  }
}

const tails = new Set<OutputTail>();

/** What every platform of this process started with `output: 'capture'` wrote last, each under its label. */
export function capturedOutput(): string {
  return [...tails].map((t) => `--- ${t.label} (last lines) ---\n${t.text()}`).join('\n');
}

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

async function devKey(dataDir: string, given?: string): Promise<string> {
  if (given) return given;
  const file = path.join(dataDir, 'dev-api-key');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    return '';
  }
}

async function waitForHttp(url: string, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`serverless-offline exited with code ${child.exitCode}`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(2000) });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`serverless-offline did not answer on ${url} within ${timeoutMs / 1000} s`);
}

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

export async function startPlatform(opts: PlatformOptions): Promise<Platform> {
  const root = path.resolve(opts.root ?? '.');
  const stage = opts.stage ?? 'local';
  const log = opts.log ?? (() => {});
  const definition = readServiceDefinition(path.join(root, 'serverless.yml'));
  const stoppers: Array<() => Promise<unknown>> = [];
  let functionsPid = 0;
  const stop = async (how: { abrupt?: boolean } = {}) => {
    if (how.abrupt && functionsPid) {
      try {
        process.kill(-functionsPid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    for (const s of stoppers.reverse()) await s().catch(() => {});
  };

  try {
    const client = { region: REGION, credentials: LOCAL_CREDENTIALS };
    const table = `${definition.service}-${stage}-state`;
    const bucket = `${definition.service}-${stage}-files`;
    // One bucket per processing region (REGION_BUCKETS), unless the caller names them.
    const regionSettings = regionConfig({ ...process.env, ...opts.env });
    const regionBuckets = Object.keys(regionSettings.REGION_BUCKETS).length
      ? Object.fromEntries(Object.entries(regionSettings.REGION_BUCKETS).map(([r, b]) => [r, b.bucket]))
      : Object.fromEntries(regionSettings.REGIONS.map((r) => [r, `${bucket}-${r}`]));
    const localName = (logicalId: string) => definition.queues.find((q) => q.logicalId === logicalId)?.localName ?? logicalId;
    const backends = await startBackends({
      dataDir: opts.dataDir,
      table,
      bucket,
      regionBuckets,
      queues: definition.queues.map((q) => ({
        name: q.localName,
        visibilityTimeout: opts.visibilityTimeout ?? q.visibilityTimeout,
        redrive: q.redrive && { deadLetterQueue: localName(q.redrive.deadLetterLogicalId), maxReceiveCount: q.redrive.maxReceiveCount },
      })),
      dynamoPort: opts.dynamoPort,
      s3Port: opts.s3Port,
      sqsPort: opts.sqsPort,
    });
    stoppers.push(() => backends.stop());
    const { dynamodb, s3, sqs } = backends.endpoints;
    const { dynamodb: dynamoClient, sqs: sqsClient, s3rver } = backends;

    // The development API key, with every scope (the file API's and the Google OAuth scopes, so it
    // works when Google authentication is enforced); kept across restarts, and given the scopes it
    // lacks when it was made by an older version.
    const store = new DynamoStateStore(dynamoClient, table);
    const keys = new ApiKeys(store);
    let apiKey = await devKey(opts.dataDir, opts.apiKey);
    const existing = apiKey ? await keys.verify(apiKey) : undefined;
    if (!existing || SCOPES.some((s) => !existing.scopes.includes(s))) {
      apiKey = (await keys.create({ scopes: [...SCOPES], name: 'development', secret: apiKey || undefined })).key;
    }
    await writeFile(path.join(opts.dataDir, 'dev-api-key'), apiKey + '\n', { mode: 0o600 });

    // The service under serverless-offline.
    const httpPort = await freePort(opts.httpPort ?? 0);
    const lambdaPort = await freePort(opts.lambdaPort ?? 0);
    const websocketPort = await freePort(opts.websocketPort ?? 0);
    const env: Record<string, string> = {
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      AWS_REGION: REGION,
      AWS_ENDPOINT_URL_DYNAMODB: dynamodb,
      AWS_ENDPOINT_URL_S3: s3,
      AWS_ENDPOINT_URL_SQS: sqs,
      // The socket connect function invokes its hello through serverless-offline's Lambda API; every
      // function posts live events through serverless-offline's management API.
      AWS_ENDPOINT_URL_LAMBDA: `http://127.0.0.1:${lambdaPort}`,
      SOCKET_ENDPOINT: `http://127.0.0.1:${websocketPort}`,
      SWEEP_RATE: 'rate(1 minute)',
      STATE_TABLE: table,
      FILES_BUCKET: bucket,
      REGION_BUCKETS: Object.entries(regionBuckets).map(([r, b]) => `${r}=${b}`).join(','),
      ...Object.fromEntries(definition.queues.filter((q) => q.envVar).map((q) => [q.envVar!, q.localName])),
      // serverless.yml deploys `enforced`; the local platform is open unless asked otherwise.
      GOOGLE_AUTH_MODE: opts.googleAuthMode ?? 'open',
      ...opts.env,
    };
    const googleAuthMode: GoogleAuthMode = env.GOOGLE_AUTH_MODE === 'enforced' ? 'enforced' : 'open';
    const buildDir = opts.buildDir ?? path.join('.esbuild', `platform-${httpPort}`);
    if (!opts.buildDir) stoppers.push(() => rm(path.join(root, buildDir), { recursive: true, force: true }));
    env.ESBUILD_WORK_FOLDER = buildDir;
    if (!opts.bundle) env.SLS_BUNDLER_PLUGIN = './scripts/serverless-source-handlers.cjs';
    const require = createRequire(import.meta.url);
    const serverlessBin = require.resolve('serverless/bin/serverless.js', { paths: [root] });
    const tail = opts.output === 'capture' ? new OutputTail(`platform ${httpPort}`) : undefined;
    if (tail) {
      tails.add(tail);
      stoppers.push(async () => void tails.delete(tail));
    }
    const stdio = opts.output === 'capture' ? 'pipe' : (opts.output ?? 'inherit');
    const child = spawn(
      process.execPath,
      // serverless-offline-http.cjs: no response compression, as API Gateway HTTP APIs; handlers loaded
      // once, as Lambda loads them; failures and timeouts as in Lambda and API Gateway (see there).
      [
        '--require',
        path.join(root, 'scripts', 'serverless-offline-http.cjs'),
        ...(opts.nodeArgs ?? []),
        serverlessBin,
        'offline',
        'start',
        '--stage',
        stage,
        '--httpPort',
        String(httpPort),
        '--lambdaPort',
        String(lambdaPort),
        '--websocketPort',
        String(websocketPort),
        // The preload keeps each function's timeout, clearing its timer when the function returns
        // (serverless-offline's own kept every result for the function's whole timeout).
        '--noTimeout',
      ],
      {
        cwd: root,
        env: {
          ...process.env,
          ...env,
          SLS_TELEMETRY_DISABLED: '1',
          SLS_NOTIFICATIONS_MODE: 'off',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          // Output that goes nowhere is not written: serverless-offline logs four lines per request
          // (two blank, method and path, duration), about a twentieth of its time per cached GraphQL
          // answer. Warnings and errors still go out (to nowhere); `npm start` keeps every line.
          ...(opts.output !== undefined && opts.output !== 'inherit' && !process.env.SLS_LOG_LEVEL ? { SLS_LOG_LEVEL: 'warning' } : {}),
        },
        stdio: ['ignore', stdio, stdio],
        detached: true,
      },
    );
    if (tail) {
      child.stdout?.setEncoding('utf8').on('data', (chunk: string) => tail.write(chunk));
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => tail.write(chunk));
    }
    functionsPid = child.pid ?? 0;
    stoppers.push(
      () =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null || !child.pid) return resolve();
          child.once('exit', () => resolve());
          try {
            process.kill(-child.pid, 'SIGTERM');
          } catch {
            resolve();
          }
          setTimeout(() => {
            try {
              process.kill(-child.pid!, 'SIGKILL');
            } catch {
              // already gone
            }
          }, 5000).unref();
        }),
    );
    const baseUrl = `http://localhost:${httpPort}`;
    // Seconds on an idle machine; bundling every function under load can take minutes.
    await waitForHttp(`${baseUrl}/v2/users/me`, child, 300_000);

    // Queue → function delivery, as Lambda's event-source mappings do it.
    const lambda = `http://127.0.0.1:${lambdaPort}`;
    const quiet = opts.output === 'ignore';
    const warn = (m: string) => (tail ? tail.write(`${m}\n`) : quiet || console.warn(m));
    const dispatcher = startDispatcher({
      // Deliveries are routine; failures are worth a line unless the caller asked for silence.
      log: {
        info: () => {},
        warn,
        error: (m) => (tail ? tail.write(`${m}\n`) : quiet || console.error(m)),
      },
      sqs: sqsClient,
      region: REGION,
      invoke: lambdaInvoker(new LambdaClient({ ...client, endpoint: lambda })),
      mappings: (opts.dispatch === false ? [] : definition.mappings).map((m) => ({
        queueName: definition.queues.find((q) => q.logicalId === m.queueLogicalId)?.localName ?? m.queueLogicalId,
        functionName: `${definition.service}-${stage}-${m.functionKey}`,
        batchSize: m.batchSize,
        maximumBatchingWindowSeconds: m.maximumBatchingWindow,
        reportBatchItemFailures: m.reportBatchItemFailures,
        // Lambda polls a queue with several pollers and scales out up to the mapping's maximumConcurrency;
        // locally a few concurrent batches (LOCAL_POLLERS), never more than that maximum.
        concurrency: Math.min(m.maximumConcurrency ?? Infinity, Number(process.env.LOCAL_POLLERS ?? 4)),
      })),
    });
    stoppers.push(() => dispatcher.stop());

    // Socket pings: serverless-offline runs socketPing's schedule (a minute at the least, like
    // EventBridge); a shorter SOCKET_PING_SECONDS (tests) is kept by pinging from here at that interval.
    const pingSeconds = Number(env.SOCKET_PING_SECONDS ?? 60);
    if (pingSeconds < 60) {
      const pinger = new LambdaClient({ ...client, endpoint: lambda });
      let busy = false;
      const timer = setInterval(() => {
        if (busy) return;
        busy = true;
        pinger
          .send(new InvokeCommand({ FunctionName: `${definition.service}-${stage}-socketPing`, Payload: '{}' }))
          .catch((err: Error) => warn(`socketPing: ${err.message}`))
          .finally(() => (busy = false));
      }, pingSeconds * 1000);
      stoppers.push(async () => clearInterval(timer));
    }

    // Object-created events of uploads, as S3 sends them through EventBridge, to their function: from
    // every files bucket (each region's stack has its own bucket and rule in the cloud).
    const uploadTarget = definition.eventBridgeTargets.find((t) => t.source === 'aws.s3');
    if (uploadTarget) {
      const invokeLambda = new LambdaClient({ ...client, endpoint: lambda });
      for (const eventBucket of new Set([bucket, ...Object.values(regionBuckets)])) {
        const forwarder = forwardS3Events(s3rver, {
          bucket: eventBucket,
          prefix: uploadTarget.keyPrefix,
          deliver: async (event) => {
            const out = await invokeLambda.send(
              new InvokeCommand({ FunctionName: `${definition.service}-${stage}-${uploadTarget.functionKey}`, Payload: JSON.stringify(event) }),
            );
            if (out.FunctionError) throw new Error(`${uploadTarget.functionKey} failed: ${Buffer.from(out.Payload ?? []).toString()}`);
          },
        });
        stoppers.push(async () => {
          forwarder();
          await forwarder.idle();
        });
      }
    }
    // Tells `npm run keys` where the running platform's state lives (the LevelDB files are locked).
    const stateFile = path.join(opts.dataDir, 'platform.json');
    await writeFile(stateFile, JSON.stringify({ pid: process.pid, baseUrl, dynamodb, table }, null, 2));
    stoppers.push(() => rm(stateFile, { force: true }));
    log(`platform ready at ${baseUrl}`);

    const socketUrl = `http://localhost:${websocketPort}`;
    return { baseUrl, socketUrl, apiKey, googleAuthMode, endpoints: { dynamodb, s3, sqs, lambda }, functionsPid: child.pid ?? 0, env, regionBuckets, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
