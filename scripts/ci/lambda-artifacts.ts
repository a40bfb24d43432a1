/**
 * Invokes the packaged artifacts as Lambda would, with no cloud: `npm run -s ci:lambda` after
 * `npx serverless package`.
 *
 * Each function's zip from .serverless is unzipped into an empty folder outside the repository and its
 * handler runs in a child `node` (scripts/ci/lambda-bootstrap.cjs, one warm process per concurrent
 * invocation, like warm Lambda environments) whose working directory is that folder and whose
 * environment is only what Lambda would give it: the function's Environment.Variables from the template
 * (Ref/Fn::GetAtt/Fn::Join/Fn::Sub of the stack's own resources resolved to the local names), the Lambda
 * variables (LAMBDA_TASK_ROOT, AWS_LAMBDA_FUNCTION_NAME, …), fake credentials, and the local backends'
 * endpoints, as a user that owns none of the files (`nobody` when run as root, like Lambda's sandbox
 * user), each function with a private /tmp (TMPDIR, this machine's /tmp being shared). PATH holds
 * only `node`; NODE_PATH is empty and no node_modules folder is reachable, so a
 * package missing from a zip or a tool missing from Lambda fails here as it would in the cloud.
 *
 * Around them, what AWS would do: the backends of the local emulator (local/backends.ts
 * `startBackends`) with the template's table, bucket and queues; a gateway that turns HTTP requests into
 * API Gateway HTTP API (payload 2.0) events by the template's routes; Lambda's SQS event source mappings
 * (local/dispatcher.ts); S3 "Object Created" events through EventBridge (local/s3/events.ts).
 *
 * Then, through the artifacts alone: a GraphQL query; one whole job import/base64 → thumbnail →
 * export/url and its download; then one job for each engine function's family (lib/engines/core/families.ts):
 * HTML → PDF on the Chromium packed in the chromium function, an FFmpeg video thumbnail, a PDF
 * optimize on Ghostscript and on qpdf (WebAssembly), a metadata/write + metadata round trip (each
 * engine the stack must offer: GET /v2/operations, the stack's capability list); without the office
 * function (no OFFICE_IMAGE), discovery without LibreOffice and a .docx → PDF job refused; an import/upload
 * task finished by the upload-received function; one request to every route (no 5xx); one run of every
 * scheduled function; and a load of every handler nothing invoked. Prints cold start and invocation
 * times per function; exits 1 on any failure. ARTIFACTS_DIR (default .serverless) and KEEP_TMP=1 (keep
 * the unzipped folders and logs) change it.
 *
 * Not like Lambda: the functions run on this machine's Node and Linux (not the template's runtime on
 * Amazon Linux), PATH lacks even /bin/sh (Lambda has a shell and coreutils), IAM roles and memory sizes
 * are not enforced, and environments are not frozen between invocations.
 */
import type { APIGatewayProxyEventV2, SQSEvent } from 'aws-lambda';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, GetQueueUrlCommand } from '@aws-sdk/client-sqs';
import { fork, spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, openSync, closeSync } from 'node:fs';
import { chmod, chown, copyFile, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiKeys } from '#lib/access/auth/keys.js';
import { SCOPES } from '#lib/access/auth/scopes.js';
import { startDispatcher, type InvokeResult } from '../../local/dispatcher.js';
import { LOCAL_CREDENTIALS, startBackends, type Backends } from '../../local/backends.js';
import { forwardS3Events } from '../../local/s3/events.js';
import { createS3Client } from '#lib/adapters/file-store/s3-file-store.js';
import { DynamoStateStore } from '#lib/adapters/state/dynamodb.js';
import { findExecutable } from '#lib/engines/core/probe.js';
import { table } from './check-template.js';
import { mergedTemplate, readPackagedStack } from './stack-templates.js';
import { scenario } from './lambda-scenarios.js';
import { socketScenario, startSocketStubs } from './lambda-sockets.js';
import { extractZip } from './zip.js';

/**
 * Lambda runs a function's code as a user that owns none of its files: run as root here, the functions
 * run as `nobody`, so a file the package leaves unreadable or a binary it leaves executable by its
 * owner alone fails here as it would there.
 */
const SANDBOX_USER: { uid?: number; gid?: number } = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

/** bubblewrap on this machine's PATH (the functions' PATH holds only node): the engine functions' pid namespaces. */
const BWRAP = findExecutable('bwrap');

/** A Lambda role's session: the functions send its token with every request, and the local S3 front requires it. */
const LAMBDA_CREDENTIALS = { ...LOCAL_CREDENTIALS, sessionToken: 'local-session-token' };

type Json = any;
type Resources = Record<string, { Type: string; Properties?: Json }>;

const REGION = 'us-east-1';
/** Request and response payloads of a synchronous invocation. */
const PAYLOAD_LIMIT = 6 * 1024 * 1024;
const ACCOUNT = '000000000000';
const root = fileURLToPath(new URL('../..', import.meta.url));
const artifactDir = path.resolve(root, process.env.ARTIFACTS_DIR ?? '.serverless');
const problems: string[] = [];
const say = (line: string) => console.log(line);

// ---------------------------------------------------------------------------------------------------
// The template

interface FunctionSpec {
  id: string;
  name: string;
  handler: string;
  runtime: string;
  timeout: number;
  memory: number;
  zip: string;
  variables: Record<string, Json>;
}

const targetOf = (value: Json): string | undefined => {
  if (value?.Ref) return String(value.Ref);
  const att = value?.['Fn::GetAtt'];
  return Array.isArray(att) ? String(att[0]) : typeof att === 'string' ? att.split('.')[0] : undefined;
};

function readFunctions(resources: Resources): Map<string, FunctionSpec> {
  const functions = new Map<string, FunctionSpec>();
  for (const [id, r] of Object.entries(resources)) {
    if (r.Type !== 'AWS::Lambda::Function') continue;
    const p = r.Properties ?? {};
    functions.set(id, {
      id,
      name: String(p.FunctionName ?? id),
      handler: String(p.Handler),
      runtime: String(p.Runtime ?? ''),
      timeout: Number(p.Timeout ?? 3),
      memory: Number(p.MemorySize ?? 128),
      zip: path.join(artifactDir, path.basename(String(p.Code?.S3Key ?? `${id}.zip`))),
      variables: p.Environment?.Variables ?? {},
    });
  }
  return functions;
}

/** Local physical names and attributes of the stack's resources, for Ref, Fn::GetAtt, Fn::Join and Fn::Sub. */
class LocalStack {
  readonly names = new Map<string, string>();
  readonly attributes = new Map<string, string>();
  constructor(private readonly resources: Resources) {}

  ref(id: string): string {
    const pseudo: Record<string, string> = { 'AWS::Region': REGION, 'AWS::AccountId': ACCOUNT, 'AWS::Partition': 'aws', 'AWS::URLSuffix': 'amazonaws.com' };
    if (pseudo[id]) return pseudo[id];
    const value = this.names.get(id);
    if (value === undefined) throw new Error(`cannot resolve Ref ${id} (${this.resources[id]?.Type ?? 'not in the template'}) locally`);
    return value;
  }

  getAtt(id: string, attribute: string): string {
    const value = this.attributes.get(`${id}.${attribute}`);
    if (value === undefined) throw new Error(`cannot resolve Fn::GetAtt ${id}.${attribute} locally`);
    return value;
  }

  resolve(value: Json): string {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
    if (value?.Ref) return this.ref(String(value.Ref));
    const att = value?.['Fn::GetAtt'];
    if (att) {
      const [id, attribute] = Array.isArray(att) ? att : String(att).split('.');
      return this.getAtt(String(id), String(attribute));
    }
    const join = value?.['Fn::Join'];
    if (join) return (join[1] as Json[]).map((v) => this.resolve(v)).join(String(join[0]));
    const sub = value?.['Fn::Sub'];
    if (typeof sub === 'string') {
      return sub.replace(/\$\{([^}!]+)\}/g, (_, name: string) => {
        const [id, attribute] = name.split('.');
        return attribute ? this.getAtt(id!, attribute) : this.ref(id!);
      });
    }
    throw new Error(`cannot resolve ${JSON.stringify(value)} locally`);
  }
}

// ---------------------------------------------------------------------------------------------------
// Functions: unzipped artifacts in warm child processes

interface Paths {
  base: string;
  bin: string;
  bootstrap: string;
  tasks: string;
  logs: string;
}

type Outcome = { ok: true; payload: unknown; ms: number } | { ok: false; error: string; ms: number };

interface Worker {
  child: ChildProcess;
  ready: Promise<{ ok: true } | { ok: false; error: string }>;
  waiting?: (message: Json) => void;
}

class LambdaFunction {
  readonly coldStarts: number[] = [];
  readonly durations: number[] = [];
  unzipMs = 0;
  private extracted?: Promise<void>;
  private readonly idle: Worker[] = [];
  private readonly all = new Set<Worker>();
  private readonly root: string;
  private readonly log: string;

  constructor(
    readonly spec: FunctionSpec,
    private readonly env: Record<string, string>,
    private readonly paths: Paths,
  ) {
    this.root = path.join(paths.tasks, spec.name);
    this.log = path.join(paths.logs, `${spec.name}.log`);
  }

  /** The function's own /tmp: Lambda gives each function's environments theirs, this machine's /tmp is shared. */
  private get tmp() {
    return path.join(this.paths.base, 'private-tmp', this.spec.name);
  }

  private async unzip() {
    const started = Date.now();
    await mkdir(path.dirname(this.tmp), { recursive: true, mode: 0o755 });
    await mkdir(this.tmp, { recursive: true, mode: 0o700 });
    if (SANDBOX_USER.uid !== undefined) await chown(this.tmp, SANDBOX_USER.uid, SANDBOX_USER.gid ?? SANDBOX_USER.uid);
    await extractZip(this.spec.zip, this.root);
    this.unzipMs = Date.now() - started;
  }

  private spawn(): Worker {
    const started = Date.now();
    const out = openSync(this.log, 'a');
    const options = {
      cwd: this.root,
      env: {
        ...this.env,
        LAMBDA_TASK_ROOT: this.root,
        // Node's os.tmpdir() (engines, @sparticuz/chromium, the shipped binaries' copies) is /tmp in Lambda.
        TMPDIR: this.tmp,
        AWS_LAMBDA_LOG_STREAM_NAME: `${new Date().toISOString().slice(0, 10).replace(/-/g, '/')}/[$LATEST]${randomUUID().replace(/-/g, '')}`,
      },
      ...SANDBOX_USER,
      stdio: ['ignore', out, out, 'ipc'] as StdioOptions,
    };
    // An engine function kills every other process it can after each task (ENGINE_REAP), as alone in
    // its Lambda execution environment: here in a pid namespace of its own (bubblewrap), or it would
    // kill the other functions' environments.
    if (this.env.ENGINE_REAP === 'true' && !BWRAP) throw new Error(`${this.spec.name}: an engine function (ENGINE_REAP) runs here only in a pid namespace: install bubblewrap`);
    const child =
      this.env.ENGINE_REAP === 'true'
        ? spawn(BWRAP!, ['--unshare-pid', '--die-with-parent', '--dev-bind', '/', '/', '--proc', '/proc', path.join(this.paths.bin, 'node'), this.paths.bootstrap], options)
        : fork(this.paths.bootstrap, [], { ...options, execPath: path.join(this.paths.bin, 'node'), execArgv: [] });
    closeSync(out);
    const worker: Worker = { child, ready: Promise.resolve({ ok: true }) };
    worker.ready = new Promise((resolve) => {
      child.on('message', (message: Json) => {
        if (message?.type === 'ready') {
          this.coldStarts.push(Date.now() - started);
          resolve({ ok: true });
        } else if (message?.type === 'init-error') resolve({ ok: false, error: `${message.error.errorType}: ${message.error.errorMessage}` });
        else worker.waiting?.(message);
      });
      child.on('exit', (code, signal) => {
        this.all.delete(worker);
        const i = this.idle.indexOf(worker);
        if (i >= 0) this.idle.splice(i, 1);
        resolve({ ok: false, error: `Runtime.ExitError: exited during init (${signal ?? code})` });
        worker.waiting?.({ type: 'exit', code, signal });
      });
    });
    this.all.add(worker);
    return worker;
  }

  /** Starts an environment and loads the handler, as a provisioned (pre-warmed) environment would. */
  async warm(): Promise<void> {
    this.extracted ??= this.unzip();
    await this.extracted;
    const worker = this.spawn();
    const ready = await worker.ready;
    if (ready.ok) this.idle.push(worker);
    else this.failed(ready.error, Date.now());
  }

  get used() {
    return this.coldStarts.length > 0 || this.durations.length > 0;
  }

  async invoke(event: unknown): Promise<Outcome> {
    if (Buffer.byteLength(JSON.stringify(event)) > PAYLOAD_LIMIT) return this.failed(`the request payload is over Lambda's ${PAYLOAD_LIMIT} bytes`, Date.now());
    this.extracted ??= this.unzip();
    await this.extracted;
    const worker = this.idle.pop() ?? this.spawn();
    const started = Date.now();
    const ready = await worker.ready;
    if (!ready.ok) return this.failed(ready.error, started);
    const id = randomUUID();
    const message: Json = await new Promise((resolve) => {
      const timer = setTimeout(() => {
        worker.child.kill('SIGKILL');
        resolve({ type: 'timeout' });
      }, this.spec.timeout * 1000);
      worker.waiting = (m) => {
        if (m.type === 'result' && m.id !== id) return;
        clearTimeout(timer);
        worker.waiting = undefined;
        resolve(m);
      };
      worker.child.send({ type: 'invoke', id, requestId: id, event, deadline: Date.now() + this.spec.timeout * 1000 });
    });
    const ms = Date.now() - started;
    if (message.type === 'timeout') return this.failed(`Task timed out after ${this.spec.timeout} seconds`, started);
    if (message.type === 'exit') return this.failed(`Runtime.ExitError: the process exited (${message.signal ?? message.code})`, started);
    this.durations.push(ms);
    if (this.all.has(worker)) this.idle.push(worker);
    if (!message.ok) return this.failed(`${message.error.errorType}: ${message.error.errorMessage}`, started);
    if (Buffer.byteLength(JSON.stringify(message.payload)) > PAYLOAD_LIMIT) return this.failed(`the response payload is over Lambda's ${PAYLOAD_LIMIT} bytes`, started);
    return { ok: true, payload: message.payload, ms };
  }

  private failed(error: string, started: number): Outcome {
    problems.push(`${this.spec.name}: ${error} (log: ${this.log})`);
    return { ok: false, error, ms: Date.now() - started };
  }

  async stop() {
    await Promise.all(
      [...this.all].map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.child.exitCode !== null || w.child.signalCode !== null) return resolve();
            w.child.once('exit', () => resolve());
            w.child.kill('SIGTERM');
          }),
      ),
    );
  }
}

// ---------------------------------------------------------------------------------------------------
// The HTTP API gateway

interface Route {
  method: string;
  segments: string[];
  key: string;
  fn: LambdaFunction;
  timeoutMs: number;
}

const isWebSocketRoute = (resources: Resources, route: Json) => resources[targetOf(route.Properties?.ApiId) ?? '']?.Properties?.ProtocolType === 'WEBSOCKET';

/** The function of each WebSocket route (`$connect`, `$default`, `$disconnect`). */
function readSocketRoutes(resources: Resources, functions: Map<string, LambdaFunction>): Map<string, LambdaFunction> {
  const routes = new Map<string, LambdaFunction>();
  for (const r of Object.values(resources)) {
    if (r.Type !== 'AWS::ApiGatewayV2::Route' || !isWebSocketRoute(resources, r)) continue;
    const integrationId = targetOf((r.Properties?.Target?.['Fn::Join']?.[1] as Json[] | undefined)?.find((part) => targetOf(part)));
    // arn:…:apigateway:…:lambda:path/2015-03-31/functions/<the function's Arn>/invocations
    const uri = resources[integrationId ?? '']?.Properties?.IntegrationUri;
    const parts: Json[] = uri?.['Fn::Join']?.[1] ?? [uri];
    const fn = parts.map((part) => functions.get(targetOf(part) ?? '')).find(Boolean);
    if (!fn) throw new Error(`WebSocket route ${r.Properties?.RouteKey}: no Lambda integration found`);
    routes.set(String(r.Properties?.RouteKey), fn);
  }
  return routes;
}

function readRoutes(resources: Resources, functions: Map<string, LambdaFunction>): Route[] {
  const routes: Route[] = [];
  for (const r of Object.values(resources)) {
    if (r.Type !== 'AWS::ApiGatewayV2::Route' || isWebSocketRoute(resources, r)) continue;
    const key = String(r.Properties?.RouteKey);
    const integrationId = targetOf((r.Properties?.Target?.['Fn::Join']?.[1] as Json[] | undefined)?.find((part) => targetOf(part)));
    const integration = integrationId ? resources[integrationId]?.Properties : undefined;
    const fn = functions.get(targetOf(integration?.IntegrationUri) ?? '');
    if (!fn) throw new Error(`route ${key}: no Lambda integration found`);
    const [method, routePath] = key === '$default' ? ['ANY', '$default'] : key.split(' ');
    routes.push({ method: method!, segments: routePath!.split('/').slice(1), key, fn, timeoutMs: Number(integration?.TimeoutInMillis ?? 30_000) });
  }
  return routes;
}

/** Path parameters when the route matches the path. */
function match(route: Route, segments: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < route.segments.length; i++) {
    const pattern = route.segments[i]!;
    const greedy = /^\{(.+)\+\}$/.exec(pattern);
    if (greedy) {
      if (i >= segments.length) return undefined;
      params[greedy[1]!] = segments.slice(i).map(decodeURIComponent).join('/');
      return params;
    }
    const segment = segments[i];
    if (segment === undefined) return undefined;
    const variable = /^\{(.+)\}$/.exec(pattern);
    if (variable) params[variable[1]!] = decodeURIComponent(segment);
    else if (pattern !== segment) return undefined;
  }
  return segments.length === route.segments.length ? params : undefined;
}

/** API Gateway's choice: full paths before greedy ones, literal segments before variables, a method before ANY. */
function compareRoutes(a: Route, b: Route): number {
  const greedy = (r: Route) => r.segments.some((s) => s.endsWith('+}'));
  if (greedy(a) !== greedy(b)) return greedy(a) ? 1 : -1;
  for (let i = 0; i < Math.min(a.segments.length, b.segments.length); i++) {
    const literal = (s: string) => !s.startsWith('{');
    if (literal(a.segments[i]!) !== literal(b.segments[i]!)) return literal(a.segments[i]!) ? -1 : 1;
  }
  if (a.segments.length !== b.segments.length) return b.segments.length - a.segments.length;
  return (a.method === 'ANY' ? 1 : 0) - (b.method === 'ANY' ? 1 : 0);
}

const TEXT_TYPES = /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded|graphql)|[^;]*\+(json|xml))/i;

function httpEvent(req: IncomingMessage, route: Route, params: Record<string, string>, body: Buffer): APIGatewayProxyEventV2 {
  const url = new URL(req.url ?? '/', 'http://gateway');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && name !== 'cookie') headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const text = TEXT_TYPES.test(req.headers['content-type'] ?? '');
  const now = new Date();
  const routeKey = route.key;
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(req.headers.cookie && { cookies: req.headers.cookie.split(/;\s*/) }),
    headers,
    ...(Object.keys(query).length && { queryStringParameters: query }),
    ...(Object.keys(params).length && { pathParameters: params }),
    requestContext: {
      accountId: ACCOUNT,
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0]!,
      http: { method: req.method ?? 'GET', path: url.pathname, protocol: `HTTP/${req.httpVersion}`, sourceIp: '127.0.0.1', userAgent: headers['user-agent'] ?? '' },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length && { body: text ? body.toString('utf8') : body.toString('base64') }),
    isBase64Encoded: body.length > 0 && !text,
  };
}

function reply(res: ServerResponse, status: number, headers: Record<string, string | string[]>, body: Buffer | string) {
  res.writeHead(status, headers).end(body);
}

/** Writes a payload 2.0 response; a value without statusCode is a 200 JSON body, as API Gateway reads it. */
function writeResult(res: ServerResponse, result: Json) {
  if (!result || typeof result !== 'object' || !('statusCode' in result)) {
    return reply(res, 200, { 'content-type': 'application/json' }, typeof result === 'string' ? result : JSON.stringify(result));
  }
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries<Json>(result.headers ?? {})) headers[name.toLowerCase()] = String(value);
  if (Array.isArray(result.cookies) && result.cookies.length) headers['set-cookie'] = result.cookies.map(String);
  const body = result.body === undefined ? '' : result.isBase64Encoded ? Buffer.from(String(result.body), 'base64') : String(result.body);
  reply(res, Number(result.statusCode), headers, body);
}

async function startGateway(routes: Route[]) {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > 10 * 1024 * 1024) return reply(res, 413, { 'content-type': 'application/json' }, '{"message":"Request Entity Too Large"}');
      chunks.push(chunk);
    }
    const url = new URL(req.url ?? '/', 'http://gateway');
    const segments = url.pathname.split('/').slice(1);
    const candidates = routes
      .map((route) => ({ route, params: route.method === 'ANY' || route.method === req.method ? match(route, segments) : undefined }))
      .filter((c): c is { route: Route; params: Record<string, string> } => c.params !== undefined)
      .sort((a, b) => compareRoutes(a.route, b.route));
    const chosen = candidates[0] ?? (routes.find((r) => r.key === '$default') && { route: routes.find((r) => r.key === '$default')!, params: {} });
    if (!chosen) return reply(res, 404, { 'content-type': 'application/json' }, '{"message":"Not Found"}');
    const event = httpEvent(req, chosen.route, chosen.params, Buffer.concat(chunks));
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), chosen.route.timeoutMs).unref());
    const outcome = await Promise.race([chosen.route.fn.invoke(event), timeout]);
    if (outcome === 'timeout') return reply(res, 503, { 'content-type': 'application/json' }, '{"message":"Service Unavailable"}');
    if (!outcome.ok) return reply(res, 500, { 'content-type': 'application/json' }, '{"message":"Internal Server Error"}');
    writeResult(res, outcome.payload);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

// ---------------------------------------------------------------------------------------------------
// The run

async function prepare(resources: Resources, stoppers: Array<() => Promise<unknown>>) {
  const base = await mkdtemp(path.join(tmpdir(), 'lambda-artifacts-'));
  for (let dir = base; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'node_modules'))) throw new Error(`${dir}/node_modules would be reachable from the artifacts: choose another TMPDIR`);
    if (dir === path.dirname(dir)) break;
  }
  const paths: Paths = {
    base,
    bin: path.join(base, 'bin'),
    bootstrap: path.join(base, 'runtime', 'bootstrap.cjs'),
    tasks: path.join(base, 'tasks'),
    logs: path.join(base, 'logs'),
  };
  await Promise.all([paths.bin, path.dirname(paths.bootstrap), paths.tasks, paths.logs].map((d) => mkdir(d, { recursive: true })));
  // Readable by the functions' user (mkdtemp makes its folder private).
  await chmod(base, 0o755);
  await symlink(process.execPath, path.join(paths.bin, 'node'));
  await copyFile(path.join(root, 'scripts/ci/lambda-bootstrap.cjs'), paths.bootstrap);

  const stack = new LocalStack(resources);
  const queues = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::SQS::Queue');
  const queueName = (id: string) => String(resources[id]?.Properties?.QueueName ?? id);
  const tables = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::DynamoDB::Table');
  if (tables.length !== 1) throw new Error(`expected one DynamoDB table in the template, found ${tables.length}`);
  const [tableId, tableResource] = tables[0]!;
  const tableName = String(tableResource.Properties?.TableName ?? tableId);
  // The service's buckets (the framework's deployment bucket is not one). The files bucket, whose
  // object-created events an EventBridge rule takes (else the first), gets the local platform's set-up
  // (CORS, events); the others are created bare. A name given as a literal is kept; one left to
  // CloudFormation, or chosen by a condition (a regional stack's `Fn::If`, off in this default
  // package), is a local name of the resource's id, as CloudFormation would generate one.
  const buckets = Object.entries(resources)
    .filter(([id, r]) => r.Type === 'AWS::S3::Bucket' && id !== 'ServerlessDeploymentBucket')
    .map(([id, r]) => {
      const name = r.Properties?.BucketName;
      return [id, typeof name === 'string' ? name : `local-${id.toLowerCase()}`] as const;
    });
  if (!buckets.length) throw new Error('the template has no S3 bucket of the service');
  const watched = Object.values(resources)
    .filter((r) => r.Type === 'AWS::Events::Rule')
    .map((r) => targetOf(r.Properties?.EventPattern?.detail?.bucket?.name?.[0]))
    .find((id) => buckets.some(([b]) => b === id));
  const bucketName = (buckets.find(([id]) => id === watched) ?? buckets[0]!)[1];
  const backends = await startBackends({
    dataDir: path.join(base, 'data'),
    credentials: LAMBDA_CREDENTIALS,
    table: tableName,
    bucket: bucketName,
    queues: queues.map(([id, q]) => {
      const redrive = typeof q.Properties?.RedrivePolicy === 'string' ? JSON.parse(q.Properties.RedrivePolicy) : q.Properties?.RedrivePolicy;
      const dlq = targetOf(redrive?.deadLetterTargetArn);
      return {
        name: queueName(id),
        visibilityTimeout: Number(q.Properties?.VisibilityTimeout ?? 30),
        ...(dlq && { redrive: { deadLetterQueue: queueName(dlq), maxReceiveCount: Number(redrive.maxReceiveCount) } }),
      };
    }),
  });
  stoppers.push(() => backends.stop());

  stack.names.set(tableId, tableName);
  stack.attributes.set(`${tableId}.Arn`, `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${tableName}`);
  const s3 = createS3Client({ region: REGION, endpoint: backends.endpoints.s3, credentials: LAMBDA_CREDENTIALS });
  for (const [id, name] of buckets) {
    if (name !== bucketName) await s3.send(new CreateBucketCommand({ Bucket: name }));
    stack.names.set(id, name);
    stack.attributes.set(`${id}.Arn`, `arn:aws:s3:::${name}`);
  }
  for (const [id] of queues) {
    const { QueueUrl } = await backends.sqs.send(new GetQueueUrlCommand({ QueueName: queueName(id) }));
    const { Attributes } = await backends.sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
    stack.names.set(id, QueueUrl!);
    stack.attributes.set(`${id}.Arn`, Attributes!.QueueArn!);
    stack.attributes.set(`${id}.QueueName`, queueName(id));
    stack.attributes.set(`${id}.QueueUrl`, QueueUrl!);
  }
  // The WebSocket API: an id (its management endpoint is replaced by the local one, lambdaEnv).
  for (const [id, r] of Object.entries(resources)) if (r.Type === 'AWS::ApiGatewayV2::Api' && r.Properties?.ProtocolType === 'WEBSOCKET') stack.names.set(id, `local${id.toLowerCase()}`);
  const specs = readFunctions(resources);
  for (const spec of specs.values()) {
    stack.names.set(spec.id, spec.name);
    stack.attributes.set(`${spec.id}.Arn`, `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${spec.name}`);
  }
  return { paths, backends, stack, specs, tableName, bucketName, buckets, queueName };
}

/** What Lambda puts in a Node.js function's environment, plus the template's variables and the local endpoints. */
function lambdaEnv(spec: FunctionSpec, stack: LocalStack, backends: Backends, paths: Paths, gateway: string, sockets?: string): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const [name, value] of Object.entries(spec.variables)) {
    try {
      variables[name] = stack.resolve(value);
    } catch (err) {
      throw new Error(`${spec.name}: environment variable ${name}: ${(err as Error).message}`, { cause: err });
    }
  }
  if ('PUBLIC_BASE_URL' in variables) variables.PUBLIC_BASE_URL = gateway;
  // The WebSocket API's management endpoint and Lambda's Invoke: the local stand-ins (./lambda-sockets.ts).
  if ('SOCKET_ENDPOINT' in variables && sockets) variables.SOCKET_ENDPOINT = sockets;
  return {
    ...variables,
    ...(sockets && { AWS_ENDPOINT_URL_LAMBDA: sockets }),
    AWS_ENDPOINT_URL_DYNAMODB: backends.endpoints.dynamodb,
    AWS_ENDPOINT_URL_S3: backends.endpoints.s3,
    AWS_ENDPOINT_URL_SQS: backends.endpoints.sqs,
    AWS_ACCESS_KEY_ID: LAMBDA_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LAMBDA_CREDENTIALS.secretAccessKey,
    AWS_SESSION_TOKEN: LAMBDA_CREDENTIALS.sessionToken,
    AWS_REGION: REGION,
    AWS_DEFAULT_REGION: REGION,
    AWS_EXECUTION_ENV: `AWS_Lambda_${spec.runtime}`,
    AWS_LAMBDA_FUNCTION_NAME: spec.name,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(spec.memory),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${spec.name}`,
    _HANDLER: spec.handler,
    LAMBDA_RUNTIME_DIR: path.dirname(paths.bootstrap),
    LANG: 'en_US.UTF-8',
    TZ: ':UTC',
    PATH: paths.bin,
    LD_LIBRARY_PATH: '',
    NODE_PATH: '',
  };
}

/** What the artifacts see: no package of the repository resolves from their folders, no tool but node is on PATH. */
function checkIsolation(paths: Paths, env: Record<string, string>) {
  const probe = `
    const found = [];
    for (const name of ['vitest', 'zod', 'sharp', '@aws-sdk/client-s3']) { try { require.resolve(name); found.push(name); } catch {} }
    const fs = require('node:fs'), path = require('node:path');
    for (const tool of ['perl', 'ffmpeg', 'gs', 'qpdf', 'soffice', 'sh']) {
      for (const dir of (process.env.PATH || '').split(':')) if (dir && fs.existsSync(path.join(dir, tool))) found.push(tool);
    }
    process.stdout.write(found.join(' '));`;
  const out = spawnSync(path.join(paths.bin, 'node'), ['-e', probe], { cwd: paths.tasks, env, encoding: 'utf8', ...SANDBOX_USER });
  if (out.status !== 0 || out.stdout.trim()) throw new Error(`the artifacts' environment is not isolated: ${out.stdout.trim() || out.stderr.trim()}`);
}

/** One request to every route, with made-up path parameters and an empty JSON body: no function may answer 5xx. */
async function smokeRoutes(routes: Route[], gateway: string, apiKey: string) {
  const answers: string[] = [];
  for (const route of routes) {
    if (route.key === '$default') continue;
    const method = route.method === 'ANY' ? 'GET' : route.method;
    const url = gateway + '/' + route.segments.map((s) => (s.startsWith('{') ? (s.endsWith('+}') ? 'ci-probe/x' : randomUUID()) : s)).join('/');
    const body = ['GET', 'HEAD', 'DELETE'].includes(method) ? undefined : '{}';
    const res = await fetch(url, { method, headers: { authorization: `Bearer ${apiKey}`, ...(body && { 'content-type': 'application/json' }) }, body });
    await res.arrayBuffer();
    answers.push(`${route.key} ${res.status}`);
    if (res.status >= 500) problems.push(`${route.key} (${route.fn.spec.name}): ${method} ${url} answered ${res.status}`);
  }
  say(`  every route answered: ${answers.length} routes, ${answers.filter((a) => / 5\d\d$/.test(a)).length} with 5xx`);
}

/** Everything AWS would do around the functions: the gateway, the event source mappings, the S3 events. */
async function wire(resources: Resources, prepared: Awaited<ReturnType<typeof prepare>>, stoppers: Array<() => Promise<unknown>>) {
  const { paths, backends, stack, specs, bucketName, queueName } = prepared;
  const functions = new Map<string, LambdaFunction>();
  const routes: Route[] = [];
  const gateway = await startGateway(routes);
  stoppers.push(gateway.close);
  const byName = new Map<string, LambdaFunction>();
  const sockets = await startSocketStubs((name) => byName.get(name), problems);
  stoppers.push(sockets.close);
  for (const spec of specs.values()) functions.set(spec.id, new LambdaFunction(spec, lambdaEnv(spec, stack, backends, paths, gateway.url, sockets.url), paths));
  stoppers.push(() => Promise.all([...functions.values()].map((f) => f.stop())));
  routes.push(...readRoutes(resources, functions));
  const socketRoutes = readSocketRoutes(resources, functions);
  for (const f of functions.values()) byName.set(f.spec.name, f);
  const functionOf = (value: Json) => functions.get(targetOf(value) ?? '') ?? byName.get(String(value));

  // Lambda's SQS event source mappings.
  const dispatcher = startDispatcher({
    sqs: backends.sqs,
    region: REGION,
    log: { info: () => {}, warn: (m) => problems.push(m), error: (m) => problems.push(m) },
    invoke: async (name, event: SQSEvent): Promise<InvokeResult> => {
      const outcome = await byName.get(name)!.invoke(event);
      return outcome.ok ? { ok: true, payload: outcome.payload } : { ok: false, error: outcome.error };
    },
    mappings: Object.values(resources)
      .filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping' && stack.attributes.has(`${targetOf(r.Properties?.EventSourceArn)}.QueueName`))
      .map((r) => ({
        queueName: queueName(targetOf(r.Properties.EventSourceArn)!),
        functionName: functionOf(r.Properties.FunctionName)!.spec.name,
        batchSize: Number(r.Properties.BatchSize ?? 10),
        maximumBatchingWindowSeconds: Number(r.Properties.MaximumBatchingWindowInSeconds ?? 0),
        reportBatchItemFailures: (r.Properties.FunctionResponseTypes ?? []).includes('ReportBatchItemFailures'),
        concurrency: 1,
      })),
  });
  stoppers.push(() => dispatcher.stop());

  // S3 "Object Created" events through EventBridge rules, invoked asynchronously (retried twice, as Lambda does).
  for (const [id, rule] of Object.entries(resources)) {
    const pattern = rule.Properties?.EventPattern;
    if (rule.Type !== 'AWS::Events::Rule' || !pattern?.source?.includes('aws.s3') || !pattern['detail-type']?.includes('Object Created')) continue;
    // Locally only the files bucket's events are forwarded.
    const bucket = pattern.detail?.bucket?.name?.[0];
    if (bucket !== undefined && stack.resolve(bucket) !== bucketName) {
      problems.push(`${id}: events of bucket ${stack.resolve(bucket)} are not forwarded locally; teach scripts/ci/lambda-artifacts.ts`);
      continue;
    }
    for (const t of rule.Properties.Targets ?? []) {
      const fn = functionOf(t.Arn);
      if (!fn) throw new Error(`${id}: target ${JSON.stringify(t.Arn)} is not a function of the stack`);
      const forwarder = forwardS3Events(backends.s3rver, {
        bucket: bucketName,
        prefix: pattern.detail?.object?.key?.[0]?.prefix,
        retries: 2,
        log: (line) => problems.push(line),
        deliver: async (event) => {
          const outcome = await fn.invoke(event);
          if (!outcome.ok) throw new Error(outcome.error);
        },
      });
      stoppers.push(async () => {
        forwarder();
        await forwarder.idle();
      });
    }
  }
  return { gateway: gateway.url, routes, socketRoutes, sockets, functions: [...functions.values()], functionOf };
}

/** Every scheduled function once, with the event EventBridge sends. */
async function runSchedules(resources: Resources, functionOf: (value: Json) => LambdaFunction | undefined) {
  for (const [id, rule] of Object.entries(resources)) {
    if (rule.Type !== 'AWS::Events::Rule' || !rule.Properties?.ScheduleExpression) continue;
    for (const t of rule.Properties.Targets ?? []) {
      const fn = functionOf(t.Arn)!;
      const outcome = await fn.invoke({
        version: '0',
        id: randomUUID(),
        'detail-type': 'Scheduled Event',
        source: 'aws.events',
        account: ACCOUNT,
        time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
        region: REGION,
        resources: [`arn:aws:events:${REGION}:${ACCOUNT}:rule/${id}`],
        detail: {},
      });
      say(`  ${fn.spec.name} (${rule.Properties.ScheduleExpression}): ${outcome.ok ? 'ran' : `failed: ${outcome.error}`}`);
    }
  }
}

function report(functions: LambdaFunction[]) {
  const avg = (xs: number[]) => (xs.length ? String(Math.round(xs.reduce((a, b) => a + b, 0) / xs.length)) : '-');
  say(
    '\n' +
      table(
        ['function', 'unzip ms', 'cold start ms', 'invocations', 'first ms', 'avg ms', 'max ms'],
        functions
          .filter((f) => f.used)
          .map((f) => [
            f.spec.name,
            String(f.unzipMs),
            f.coldStarts.join(', ') || '-',
            String(f.durations.length),
            f.durations.length ? String(f.durations[0]) : '-',
            avg(f.durations),
            f.durations.length ? String(Math.max(...f.durations)) : '-',
          ]),
      ),
  );
}

async function main() {
  const started = Date.now();
  // The root and its nested stacks as one (scripts/ci/stack-templates.ts): routes and roles live in nested stacks.
  const template = mergedTemplate(await readPackagedStack(artifactDir)) as { Resources: Resources };
  const resources = template.Resources;
  const stoppers: Array<() => Promise<unknown>> = [];
  let paths: Paths | undefined;
  let functions: LambdaFunction[] = [];
  try {
    const prepared = await prepare(resources, stoppers);
    paths = prepared.paths;
    say(`artifacts from ${artifactDir}; work folder ${paths.base}; node ${process.version}`);
    const wired = await wire(resources, prepared, stoppers);
    functions = wired.functions;
    const { backends, stack, specs, tableName, buckets } = prepared;
    const { key: apiKey } = await new ApiKeys(new DynamoStateStore(backends.dynamodb, tableName)).create({ scopes: [...SCOPES], name: 'ci-lambda' });
    say(`gateway ${wired.gateway} (${wired.routes.length} routes), table ${tableName}, buckets ${buckets.map(([, n]) => n).join(', ')}`);
    checkIsolation(paths, lambdaEnv([...specs.values()][0]!, stack, backends, paths, wired.gateway));
    say('  isolation: no repository package resolves, PATH holds only node');

    const socket = wired.socketRoutes.size ? await socketScenario(wired.socketRoutes, wired.sockets, apiKey, 1) : undefined;
    if (socket) say('  socket: open packet, namespace connect, subscription (and a refusal) through the WebSocket functions');
    await scenario(wired.gateway, apiKey, problems, say);
    if (socket) {
      say(`  socket: ${await socket.heardTasks()} task.finished frame(s) from the step functions reached the subscriber`);
      await socket.disconnect();
    }
    await smokeRoutes(wired.routes, wired.gateway, apiKey);
    const operations = await fetch(`${wired.gateway}/v2/operations?alternatives=true`, { headers: { authorization: `Bearer ${apiKey}` } });
    const engines = [...new Set((((await operations.json()) as Json).data ?? []).map((row: Json) => row.engine).filter(Boolean))].sort();
    say(`  engines the artifacts offer (GET /v2/operations): ${engines.join(', ')}`);
    await runSchedules(resources, wired.functionOf);
    // With ENGINE_ISOLATION=function the family jobs above ran in the engine functions: each packaged one
    // (the office image aside) must have run a task.
    for (const f of functions.filter((fn) => fn.spec.variables.ENGINE_REAP === 'true')) {
      if (!f.durations.length) problems.push(`${f.spec.name}: an engine function that ran no task (did its process function invoke it?)`);
    }
    // The functions no request or event reached: their handlers must at least load.
    const rest = functions.filter((f) => !f.used);
    for (let i = 0; i < rest.length; i += 2) await Promise.all(rest.slice(i, i + 2).map((f) => f.warm()));
    say(`  loaded without an invocation: ${rest.map((f) => f.spec.name).join(', ') || 'none'}`);
  } catch (err) {
    problems.push(`run: ${(err as Error).stack}`);
  } finally {
    for (const stop of stoppers.reverse()) await stop().catch(() => {});
  }

  report(functions);
  say(`\n(cold start: process start to handler module loaded; first ms includes it. Total ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  if (problems.length) {
    say(`\n${problems.length} problem(s):\n${problems.map((p) => `FAIL ${p}`).join('\n')}`);
    if (paths) say(`logs kept in ${paths.logs}`);
    process.exitCode = 1;
  } else say('\nall artifacts ran as Lambda would run them');
  // The unzipped artifacts and the backends' data are large; the logs stay when something failed.
  if (paths && !process.env.KEEP_TMP) {
    for (const dir of [paths.tasks, path.join(paths.base, 'data'), path.dirname(paths.bootstrap), paths.bin]) await rm(dir, { recursive: true, force: true });
    if (!problems.length) await rm(paths.base, { recursive: true, force: true });
  }
}

await main();
