/**
 * The whole service on one machine, in one process tree, with no Docker and no Java: the backends
 * (local/backends.ts: dynalite, s3rver behind the S3 front, the embedded SQS server), the functions under
 * serverless-offline (local/offline.ts), and what AWS would deliver to them: queue messages through a
 * dispatcher as Lambda's event-source mappings do (local/dispatcher.ts), S3 "Object Created" events
 * through EventBridge (local/s3/events.ts), and the socket pings.
 * `npm start` and the e2e tests both start it through `startEmulator`.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ApiKeys } from '../lib/access/auth/keys.js';
import { SCOPES } from '../lib/access/auth/scopes.js';
import { DynamoStateStore } from '../lib/adapters/state/dynamodb.js';
import type { GoogleAuthMode } from '../lib/google/auth.js';
import { regionConfig } from '../lib/kernel/config.js';
import { freePort, LOCAL_CREDENTIALS, REGION, startBackends, type Backends } from './backends.js';
import { lambdaInvoker, startDispatcher } from './dispatcher.js';
import { newSignInLink, signInLinkUrl } from '../lib/web/console/sign-in-link.js';
import { startOffline, type OutputTail } from './offline.js';
import { forwardS3Events } from './s3/events.js';
import { readServiceDefinition, type ServiceDefinition } from './service-definition.js';

export interface EmulatorOptions {
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

export interface Emulator {
  baseUrl: string;
  /** The socket.io endpoint of live job and task events (`io(socketUrl, { transports: ['websocket'] })`). */
  socketUrl: string;
  /** The development API key: every scope, so it works on every API in either Google auth mode. */
  apiKey: string;
  googleAuthMode: GoogleAuthMode;
  /** The console's one-click sign-in to the built-in account (this run only, loopback only). */
  signInUrl: string;
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

async function devKey(dataDir: string, given?: string): Promise<string> {
  if (given) return given;
  const file = path.join(dataDir, 'dev-api-key');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    return '';
  }
}

/** What the parts started after the backends share. */
interface Started {
  opts: EmulatorOptions;
  definition: ServiceDefinition;
  stage: string;
  table: string;
  bucket: string;
  regionBuckets: Record<string, string>;
  backends: Backends;
  stoppers: Array<() => Promise<unknown>>;
}

const client = { region: REGION, credentials: LOCAL_CREDENTIALS };

export async function startEmulator(opts: EmulatorOptions): Promise<Emulator> {
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
    const started: Started = { opts, definition, stage, table, bucket, regionBuckets, backends, stoppers };
    const { dynamodb, s3, sqs } = backends.endpoints;
    const apiKey = await developmentKey(started);

    // The service under serverless-offline.
    const httpPort = await freePort(opts.httpPort ?? 0);
    const lambdaPort = await freePort(opts.lambdaPort ?? 0);
    const websocketPort = await freePort(opts.websocketPort ?? 0);
    // The console's one-click sign-in: the functions get only the hash of this run's secret.
    const signInLink = newSignInLink();
    const env: Record<string, string> = { LOCAL_SIGN_IN_LINK_HASH: signInLink.hash, ...functionsEnv(started, lambdaPort, websocketPort) };
    const googleAuthMode: GoogleAuthMode = env.GOOGLE_AUTH_MODE === 'enforced' ? 'enforced' : 'open';
    const { child, tail, baseUrl } = await startOffline(
      { root, stage, httpPort, lambdaPort, websocketPort, env, buildDir: opts.buildDir, bundle: opts.bundle, output: opts.output, nodeArgs: opts.nodeArgs },
      stoppers,
    );
    functionsPid = child.pid ?? 0;
    const lambda = `http://127.0.0.1:${lambdaPort}`;
    startDeliveries(started, lambda, env, tail);

    // Tells `npm run keys` where the running platform's state lives (the LevelDB files are locked).
    const stateFile = path.join(opts.dataDir, 'platform.json');
    await writeFile(stateFile, JSON.stringify({ pid: process.pid, baseUrl, dynamodb, table }, null, 2));
    stoppers.push(() => rm(stateFile, { force: true }));
    log(`platform ready at ${baseUrl}`);

    const socketUrl = `http://localhost:${websocketPort}`;
    const signInUrl = signInLinkUrl(baseUrl, signInLink.secret);
    return { baseUrl, socketUrl, apiKey, googleAuthMode, signInUrl, endpoints: { dynamodb, s3, sqs, lambda }, functionsPid: child.pid ?? 0, env, regionBuckets, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * The development API key, with every scope (the file API's and the Google OAuth scopes, so it works
 * when Google authentication is enforced); kept across restarts, and given the scopes it lacks when it
 * was made by an older version.
 */
async function developmentKey({ opts, backends, table }: Started): Promise<string> {
  const store = new DynamoStateStore(backends.dynamodb, table);
  const keys = new ApiKeys(store);
  // Keys of a data folder from before the per-user index (GET /v2/users/me/api-keys reads it).
  await keys.reindex();
  let apiKey = await devKey(opts.dataDir, opts.apiKey);
  const existing = apiKey ? await keys.verify(apiKey) : undefined;
  if (!existing || SCOPES.some((s) => !existing.scopes.includes(s))) {
    apiKey = (await keys.create({ scopes: [...SCOPES], name: 'development', secret: apiKey || undefined })).key;
  }
  await writeFile(path.join(opts.dataDir, 'dev-api-key'), apiKey + '\n', { mode: 0o600 });
  return apiKey;
}

/** The functions' environment: the backends' endpoints, the resources' names, and the caller's additions. */
function functionsEnv({ opts, definition, table, bucket, regionBuckets, backends }: Started, lambdaPort: number, websocketPort: number): Record<string, string> {
  const { dynamodb, s3, sqs } = backends.endpoints;
  return {
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
}

/** What AWS delivers to the functions: queue messages, socket pings, and the S3 events of uploads. */
function startDeliveries({ opts, definition, stage, bucket, regionBuckets, backends, stoppers }: Started, lambda: string, env: Record<string, string>, tail?: OutputTail): void {
  // Queue → function delivery, as Lambda's event-source mappings do it.
  const quiet = opts.output === 'ignore';
  const warn = (m: string) => (tail ? tail.write(`${m}\n`) : quiet || console.warn(m));
  const dispatcher = startDispatcher({
    // Deliveries are routine; failures are worth a line unless the caller asked for silence.
    log: {
      info: () => {},
      warn,
      error: (m) => (tail ? tail.write(`${m}\n`) : quiet || console.error(m)),
    },
    sqs: backends.sqs,
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
      const forwarder = forwardS3Events(backends.s3rver, {
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
}
