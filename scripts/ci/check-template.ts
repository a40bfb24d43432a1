/**
 * Invariants of the generated CloudFormation template that neither `cfn-lint` nor the local platform
 * checks, and that decide whether the stack deploys and behaves in a real account:
 *
 * - every SQS queue a Lambda event source mapping consumes has a VisibilityTimeout of at least 6 × the
 *   consumer function's Timeout plus the mapping's MaximumBatchingWindowInSeconds (AWS's advice: a
 *   message must not reappear while a throttled or retried invocation still holds it);
 * - every queue has a RedrivePolicy with maxReceiveCount ≥ 5 (AWS's advice for Lambda consumers), except
 *   the dead-letter queues themselves (the targets of some redrive policy);
 * - every SQS event source mapping has ScalingConfig.MaximumConcurrency (a backlog must not take the
 *   account's whole concurrency from the HTTP functions);
 * - every asynchronously invoked function (target of an EventBridge rule or schedule, an EventBridge
 *   Scheduler schedule, an S3 notification or an SNS subscription) has a failure path. What counts: an
 *   AWS::Lambda::EventInvokeConfig with DestinationConfig.OnFailure, or a DeadLetterConfig on the
 *   function: both catch events whose invocations failed after Lambda's own retries. A rule target's
 *   DeadLetterConfig does not count: it only catches events EventBridge could not hand to Lambda at all
 *   (permissions, throttling); once Lambda accepted an event, a function error never reaches it;
 * - every function's zip is at most 250 MB unzipped (Lambda's limit, read from the zips in the artifact
 *   folder), and every HTTP function's handler bundle is at most 1.5 MB (1,500,000 bytes: a cold start
 *   compiles all of it) and ships no source map with the sources inside (`sourcesContent`);
 * - every function serving the Google APIs (`/v1/…`, `/v2beta/…`) enforces authentication
 *   (GOOGLE_AUTH_MODE=enforced): a deployed stage is open only when the operator says so;
 * - no function has LOCAL_SIGN_IN_LINK_HASH in its environment: the console's one-click sign-in
 *   (lib/web/console/sign-in-link.ts) belongs to `npm start` alone, never to a deployed stage;
 * - every function that runs tasks (a queue consumer `functions/tasks/<step>-step`) stops them
 *   (TASK_MAX_SECONDS) before its own Timeout;
 * - every function that processes files takes at most half its /tmp as input (ENGINE_MAX_INPUT_BYTES
 *   against EphemeralStorage), so an input leaves room for its output; and its inputs and what its
 *   engine may write (TASK_MAX_OUTPUT_BYTES, which it must set) take at most three quarters of it
 *   together, the rest for what the engine keeps outside the task's folder (Chromium's binary, caches);
 * - native binaries packed in a zip (sharp's `@img/sharp-<os>-<cpu>`) are for Lambda's Linux and the
 *   function's architecture, whatever machine packaged them;
 * - no zip holds what its function never loads (scripts/serverless-lambda-package.cjs leaves it out):
 *   its packages' type declarations, source maps, Markdown and C/C++ sources, and, in a process
 *   function that invokes its engine function (ENGINE_ISOLATION=function), anything of node_modules/
 *   (its engines: what keeps every zip within 60 % of Lambda's 250 MB, scripts/ci/check-limits.ts);
 * - every function that holds a request until a job or task ends (its handler bundle calls `waitFor`,
 *   lib/wiring/job-response.ts) has its own ReservedConcurrentExecutions (stage parameter
 *   waitConcurrency), so waits can never take the concurrency of the other routes, and a WAIT_BUDGET
 *   (waitBudget) below it, so the budget answers before Lambda throttles; at least one function waits;
 * - the reserved concurrency of all functions leaves 100 of the account's default 1,000 unreserved
 *   (Lambda refuses a reservation that leaves fewer);
 * - no AWS::Lambda::Version: versionFunctions stays false (nothing refers to a version, and each deploy
 *   would otherwise keep every function's code again).
 *
 * The template is the merged view of the root and its nested stacks (scripts/ci/stack-templates.ts).
 *
 * Usage: `tsx scripts/ci/check-template.ts [artifact folder, default .serverless]`. Prints a summary
 * table, then one line per broken invariant naming the resource; exits 1 when any is broken.
 * Lambda's 250 MB is 2^20-byte megabytes (262,144,000 bytes); the bundle limit is decimal.
 */
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CSRF_HEADERS } from '../../lib/graphql/server/csrf.js';
import { mergedTemplate, readPackagedStack } from './stack-templates.js';
import { unzippedSize } from './zip.js';

/** The packaging plugin's rules of what a zip leaves out. */
const { NEVER_LOADED, ENGINELESS } = createRequire(import.meta.url)('../serverless-lambda-package.cjs') as { NEVER_LOADED: RegExp; ENGINELESS: RegExp };

/** Request headers browser clients of the APIs send (besides the GraphQL CSRF headers). */
const CORS_HEADERS_NEEDED = ['Authorization', 'Content-Type', 'X-Goog-FieldMask'];

type Json = any;
export interface Template {
  Resources: Record<string, { Type: string; Properties?: Json }>;
}

const MB = 1024 * 1024;
export const LIMITS = {
  /** Lambda's default concurrent executions per account and region, and what it keeps unreserved. */
  accountConcurrency: 1000,
  minUnreserved: 100,
  visibilityFactor: 6,
  minMaxReceiveCount: 5,
  unzippedBytes: 250 * MB,
  httpBundleBytes: 1_500_000,
};

export interface FunctionRow {
  id: string;
  /** The function's key in serverless.yml (its zip's name without `.zip`). */
  name: string;
  /** `functions/jobs/create.handler` */
  handler: string;
  http: boolean;
  arch: 'arm64' | 'x86_64';
  /** The template's environment variables (references left as they are). */
  environment: Record<string, unknown>;
  /** The artifact, when found. */
  zip?: string;
  /** The handler's bundle inside the zip (`functions/jobs/create.cjs`). */
  bundleName?: string;
  triggers: string[];
  timeout: number;
  memory: number;
  zipped?: number;
  unzipped?: number;
  bundle?: number;
  /** Its handler bundle calls `waitFor`: it holds a request until a job or task ends. */
  waits?: boolean;
}

export interface QueueRow {
  id: string;
  visibility: number;
  consumers: string[];
  needed?: number;
  maxReceiveCount?: number;
  deadLetterQueue?: string;
  maximumConcurrency: string[];
}

export interface TemplateReport {
  failures: string[];
  functions: FunctionRow[];
  queues: QueueRow[];
}

/** The logical id a `Ref` or `Fn::GetAtt` points at. */
export function target(value: Json): string | undefined {
  if (value && typeof value === 'object') {
    if (typeof value.Ref === 'string') return value.Ref;
    const att = value['Fn::GetAtt'];
    if (Array.isArray(att)) return String(att[0]);
    if (typeof att === 'string') return att.split('.')[0];
  }
  return undefined;
}

/** The step consumers that run tasks (functions/tasks/import-step.ts and its siblings). */
const TASK_RUNNER = /^functions\/tasks\/[a-z-]+-step\.handler$/;

const seconds = (value: Json, fallback: number) => (value === undefined ? fallback : Number(value));
const mb = (bytes?: number) => (bytes === undefined ? '-' : (bytes / MB).toFixed(2));

/** What the checks of one template share: its resources, by type, with the functions' triggers and the failures found. */
interface Stack {
  resources: Template['Resources'];
  ofType: (type: string) => Array<[string, Template['Resources'][string]]>;
  functionIds: Set<string>;
  queueIds: Set<string>;
  /** A function given as Ref/GetAtt, name or ARN. */
  functionOf: (value: Json) => string | undefined;
  timeoutOf: (fn: string) => number;
  failures: string[];
  triggers: Map<string, string[]>;
}

export async function checkTemplate(template: Template, artifactDir: string): Promise<TemplateReport> {
  const resources = template.Resources ?? {};
  const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
  const functionIds = new Set(ofType('AWS::Lambda::Function').map(([id]) => id));
  const queueIds = new Set(ofType('AWS::SQS::Queue').map(([id]) => id));

  /** A function given as Ref/GetAtt, name or ARN. */
  const functionOf = (value: Json): string | undefined => {
    const id = target(value);
    if (id) return functionIds.has(id) ? id : undefined;
    if (typeof value !== 'string') return undefined;
    const name = value.includes(':function:') ? value.split(':function:')[1]!.split(':')[0] : value;
    return [...functionIds].find((f) => resources[f]!.Properties?.FunctionName === name);
  };
  const timeoutOf = (fn: string) => seconds(resources[fn]!.Properties?.Timeout, 3);

  const failures: string[] = [];
  const triggers = new Map<string, string[]>([...functionIds].map((f) => [f, []]));
  const t: Stack = { resources, ofType, functionIds, queueIds, functionOf, timeoutOf, failures, triggers };

  const queueRows = checkQueues(t);
  checkAsyncInvocations(t);
  const httpFunctions = httpFunctionsOf(t);
  checkStageSettings(t);
  checkEngineBounds(t);
  const rows = await checkArtifacts(t, httpFunctions, artifactDir);
  checkConcurrency(t, rows);
  return { failures, functions: rows, queues: [...queueRows.values()] };
}

/** Queue consumers: each queue's visibility timeout against its consumers' timeouts, and its dead-letter queue. */
function checkQueues(t: Stack): Map<string, QueueRow> {
  const { resources, ofType, queueIds, functionOf, timeoutOf, failures, triggers } = t;
  const redriveOf = (queue: string) => {
    const policy = resources[queue]!.Properties?.RedrivePolicy;
    return typeof policy === 'string' ? (JSON.parse(policy) as Json) : policy;
  };
  // Queue consumers.
  const queueRows = new Map<string, QueueRow>();
  const deadLetterQueues = new Set<string>();
  for (const id of queueIds) {
    const redrive = redriveOf(id);
    const dlq = target(redrive?.deadLetterTargetArn);
    if (dlq) deadLetterQueues.add(dlq);
    queueRows.set(id, {
      id,
      visibility: seconds(resources[id]!.Properties?.VisibilityTimeout, 30),
      consumers: [],
      maxReceiveCount: redrive ? Number(redrive.maxReceiveCount) : undefined,
      deadLetterQueue: dlq,
      maximumConcurrency: [],
    });
  }
  for (const [id, mapping] of ofType('AWS::Lambda::EventSourceMapping')) {
    const props = mapping.Properties ?? {};
    const queue = target(props.EventSourceArn);
    const isSqs = (queue && queueIds.has(queue)) || (typeof props.EventSourceArn === 'string' && props.EventSourceArn.includes(':sqs:'));
    if (!isSqs) continue;
    const fn = functionOf(props.FunctionName);
    if (fn) triggers.get(fn)!.push(`sqs:${queue ?? props.EventSourceArn}`);
    const concurrency = props.ScalingConfig?.MaximumConcurrency;
    if (concurrency === undefined) failures.push(`${id}: no ScalingConfig.MaximumConcurrency on the SQS event source${fn ? ` of ${fn}` : ''}`);
    if (!queue || !queueIds.has(queue) || !fn) continue;
    const row = queueRows.get(queue)!;
    row.maximumConcurrency.push(concurrency === undefined ? '-' : String(concurrency));
    const needed = LIMITS.visibilityFactor * timeoutOf(fn) + seconds(props.MaximumBatchingWindowInSeconds, 0);
    row.consumers.push(`${fn} (${timeoutOf(fn)} s)`);
    row.needed = Math.max(row.needed ?? 0, needed);
    if (row.visibility < needed) {
      failures.push(
        `${queue}: VisibilityTimeout ${row.visibility} s is below ${LIMITS.visibilityFactor} × ${fn}'s Timeout ${timeoutOf(fn)} s` +
          `${props.MaximumBatchingWindowInSeconds ? ` + batching window ${props.MaximumBatchingWindowInSeconds} s` : ''} = ${needed} s`,
      );
    }
  }
  for (const row of queueRows.values()) {
    if (deadLetterQueues.has(row.id)) continue;
    if (row.maxReceiveCount === undefined) failures.push(`${row.id}: no RedrivePolicy (no dead-letter queue)`);
    else if (!(row.maxReceiveCount >= LIMITS.minMaxReceiveCount)) {
      failures.push(`${row.id}: RedrivePolicy maxReceiveCount ${row.maxReceiveCount} is below ${LIMITS.minMaxReceiveCount}`);
    }
  }
  return queueRows;
}

/** Asynchronous invocations and their failure paths. */
function checkAsyncInvocations(t: Stack): void {
  const { resources, ofType, functionOf, failures, triggers } = t;
  const asyncSources = new Map<string, string[]>();
  const addAsync = (fn: string | undefined, source: string) => {
    if (!fn) return;
    triggers.get(fn)!.push(`async:${source}`);
    asyncSources.set(fn, [...(asyncSources.get(fn) ?? []), source]);
  };
  // Asynchronous invocations and their failure paths.
  for (const [id, rule] of ofType('AWS::Events::Rule')) {
    const kind = rule.Properties?.ScheduleExpression ? 'schedule' : 'EventBridge rule';
    for (const t of rule.Properties?.Targets ?? []) addAsync(functionOf(t.Arn), `${kind} ${id}`);
  }
  for (const [id, schedule] of ofType('AWS::Scheduler::Schedule')) addAsync(functionOf(schedule.Properties?.Target?.Arn), `schedule ${id}`);
  for (const [id, bucket] of ofType('AWS::S3::Bucket')) {
    for (const c of bucket.Properties?.NotificationConfiguration?.LambdaConfigurations ?? []) addAsync(functionOf(c.Function), `S3 notification of ${id}`);
  }
  for (const [id, sub] of ofType('AWS::SNS::Subscription')) {
    if (String(sub.Properties?.Protocol).toLowerCase() === 'lambda') addAsync(functionOf(sub.Properties?.Endpoint), `SNS subscription ${id}`);
  }
  for (const [id, topic] of ofType('AWS::SNS::Topic')) {
    for (const s of topic.Properties?.Subscription ?? []) {
      if (String(s.Protocol).toLowerCase() === 'lambda') addAsync(functionOf(s.Endpoint), `SNS topic ${id}`);
    }
  }
  const withOnFailure = new Set(
    ofType('AWS::Lambda::EventInvokeConfig')
      .filter(([, c]) => c.Properties?.DestinationConfig?.OnFailure?.Destination)
      .map(([, c]) => functionOf(c.Properties?.FunctionName)),
  );
  for (const [fn, sources] of asyncSources) {
    if (withOnFailure.has(fn) || resources[fn]!.Properties?.DeadLetterConfig?.TargetArn) continue;
    failures.push(
      `${fn}: invoked asynchronously (${[...new Set(sources)].join(', ')}) without a failure destination ` +
        `(an EventInvokeConfig with DestinationConfig.OnFailure, or a DeadLetterConfig)`,
    );
  }
}

/** The HTTP functions (behind an API Gateway integration). */
function httpFunctionsOf(t: Stack): Set<string> {
  const { ofType, functionOf, triggers } = t;
  // HTTP functions.
  const httpFunctions = new Set<string>();
  for (const [, integration] of ofType('AWS::ApiGatewayV2::Integration')) {
    const fn = functionOf(integration.Properties?.IntegrationUri);
    if (fn) httpFunctions.add(fn);
  }
  for (const fn of httpFunctions) triggers.get(fn)!.push('http');
  return httpFunctions;
}

/** Settings that decide how a deployed stage behaves. */
function checkStageSettings(t: Stack): void {
  const { resources, ofType, functionIds, functionOf, timeoutOf, failures, triggers } = t;
  // A browser sends these headers only if the HTTP API's CORS preflight allows them: the GraphQL CSRF
  // headers a client adds to a POST, and Google's field-mask header.
  for (const [id, api] of ofType('AWS::ApiGatewayV2::Api')) {
    if (api.Properties?.ProtocolType !== 'HTTP') continue;
    const allowed: string[] = (api.Properties?.CorsConfiguration?.AllowHeaders ?? []).map((h: string) => h.toLowerCase());
    if (allowed.includes('*')) continue;
    for (const header of [...CORS_HEADERS_NEEDED, ...CSRF_HEADERS]) {
      if (!allowed.includes(header.toLowerCase())) failures.push(`${id}: CORS AllowHeaders lacks ${header}, which browser clients send`);
    }
  }
  // Settings that decide how a deployed stage behaves.
  const integrations = new Map(ofType('AWS::ApiGatewayV2::Integration').map(([id, i]) => [id, functionOf(i.Properties?.IntegrationUri)]));
  const googleFunctions = new Set<string>();
  for (const [, route] of ofType('AWS::ApiGatewayV2::Route')) {
    const routePath = String(route.Properties?.RouteKey ?? '').split(' ')[1] ?? '';
    const targetText = JSON.stringify(route.Properties?.Target ?? '');
    const integration = [...integrations.keys()].find((id) => targetText.includes(`{"Ref":"${id}"}`));
    const fn = integration ? integrations.get(integration) : undefined;
    if (fn && (routePath.startsWith('/v1/') || routePath.startsWith('/v2beta/'))) googleFunctions.add(fn);
  }
  for (const fn of googleFunctions) {
    const mode = resources[fn]!.Properties?.Environment?.Variables?.GOOGLE_AUTH_MODE;
    if (mode !== 'enforced') failures.push(`${fn}: serves the Google APIs with GOOGLE_AUTH_MODE=${String(mode)}; a deployed stage must enforce authentication`);
  }
  for (const fn of functionIds) {
    if (resources[fn]!.Properties?.Environment?.Variables?.LOCAL_SIGN_IN_LINK_HASH !== undefined) {
      failures.push(`${fn}: LOCAL_SIGN_IN_LINK_HASH is set: the one-click sign-in link is for npm start only, never a deployed stage`);
    }
    const max = resources[fn]!.Properties?.Environment?.Variables?.TASK_MAX_SECONDS;
    const runsTasks = TASK_RUNNER.test(String(resources[fn]!.Properties?.Handler ?? '')) && (triggers.get(fn) ?? []).some((t) => t.startsWith('sqs:'));
    if (runsTasks && max !== undefined && Number(max) >= timeoutOf(fn)) {
      failures.push(`${fn}: TASK_MAX_SECONDS ${String(max)} is not below its Timeout ${timeoutOf(fn)}: a task would be killed with its function`);
    }
  }
}

/** The bounds of what a function processing files reads and writes, against its /tmp and its engine function's. */
function checkEngineBounds(t: Stack): void {
  const { resources, functionIds, failures } = t;
  for (const fn of functionIds) {
    const props = resources[fn]!.Properties ?? {};
    const env = props.Environment?.Variables ?? {};
    const maxInput = env.ENGINE_MAX_INPUT_BYTES;
    if (env.ENGINE_ISOLATION === 'function') {
      // Its inputs and outputs go to its engine function's /tmp (checked there): the two must agree on the bounds.
      const engine = [...functionIds].find((f) => resources[f]!.Properties?.FunctionName === env.ENGINE_FUNCTION_NAME);
      if (!engine) failures.push(`${fn}: ENGINE_ISOLATION=function, but its ENGINE_FUNCTION_NAME ${String(env.ENGINE_FUNCTION_NAME)} is no function of the stack`);
      else {
        const engineEnv = resources[engine]!.Properties?.Environment?.Variables ?? {};
        for (const bound of ['ENGINE_MAX_INPUT_BYTES', 'TASK_MAX_OUTPUT_BYTES']) {
          if (engineEnv[bound] !== env[bound]) failures.push(`${fn}: ${bound} differs from its engine function's`);
        }
      }
      continue;
    }
    if (env.ENGINE_REAP === 'true') {
      // An engine function runs untrusted files: nothing of the stack's resources or secrets in its environment.
      const leaked = Object.keys(env).filter((k) => /TABLE|QUEUE|BUCKET|SECRET|SOCKET|^AWS_/.test(k));
      if (leaked.length) failures.push(`${fn}: an engine function whose environment names ${leaked.join(', ')}`);
    }
    if (maxInput === undefined) continue;
    const storage = seconds(props.EphemeralStorage?.Size, 512) * MB;
    if (2 * Number(maxInput) > storage) {
      failures.push(`${fn}: ENGINE_MAX_INPUT_BYTES ${String(maxInput)} leaves no room for outputs in its ${storage / MB} MB of /tmp (at most half of it)`);
    }
    const maxOutput = props.Environment?.Variables?.TASK_MAX_OUTPUT_BYTES;
    if (maxOutput === undefined) failures.push(`${fn}: processes files without TASK_MAX_OUTPUT_BYTES: what a task writes must fit its ${storage / MB} MB of /tmp`);
    else if (4 * (Number(maxInput) + Number(maxOutput)) > 3 * storage) {
      failures.push(
        `${fn}: ENGINE_MAX_INPUT_BYTES ${String(maxInput)} and TASK_MAX_OUTPUT_BYTES ${String(maxOutput)} together pass three quarters of its ${storage / MB} MB of /tmp`,
      );
    }
  }
}

/** What a function's zip holds that it never loads (`engineless`: a process function that invokes its engine function). */
function unloaded(fn: string, names: string[], engineless: boolean): string[] {
  const failures: string[] = [];
  const listed = (found: string[]) => `${found.slice(0, 3).join(', ')}${found.length > 3 ? ', …' : ''}`;
  const never = names.filter((n) => NEVER_LOADED.test(n));
  if (never.length) failures.push(`${fn}: holds ${never.length} file${never.length > 1 ? 's' : ''} Node never loads (${listed(never)}): repack it (scripts/serverless-lambda-package.cjs)`);
  const engines = engineless ? names.filter((n) => ENGINELESS.test(n)) : [];
  if (engines.length) {
    failures.push(`${fn}: runs its engines in its engine function (ENGINE_ISOLATION=function) but packs ${engines.length} files of node_modules/ (${listed(engines)})`);
  }
  return failures;
}

/** Artifacts: each function's zip (size, native binaries, handler bundle and its source maps). */
async function checkArtifacts(t: Stack, httpFunctions: Set<string>, artifactDir: string): Promise<FunctionRow[]> {
  const { resources, functionIds, timeoutOf, failures, triggers } = t;
  // Artifacts.
  const rows: FunctionRow[] = [];
  for (const fn of functionIds) {
    const props = resources[fn]!.Properties ?? {};
    const key: unknown = props.Code?.S3Key;
    const row: FunctionRow = {
      id: fn,
      name: typeof key === 'string' ? path.posix.basename(key, '.zip') : fn,
      handler: String(props.Handler ?? ''),
      http: httpFunctions.has(fn),
      arch: props.Architectures?.[0] === 'arm64' ? 'arm64' : 'x86_64',
      environment: (props.Environment?.Variables ?? {}) as Record<string, unknown>,
      triggers: [...new Set(triggers.get(fn))],
      timeout: timeoutOf(fn),
      memory: seconds(props.MemorySize, 128),
    };
    rows.push(row);
    if (typeof key !== 'string') continue;
    const file = path.join(artifactDir, path.basename(key));
    if (!(await stat(file).catch(() => undefined))) {
      failures.push(`${fn}: artifact ${file} not found`);
      continue;
    }
    const zip = await unzippedSize(file);
    row.zip = file;
    row.zipped = zip.zipped;
    row.unzipped = zip.unzipped;
    if (zip.unzipped > LIMITS.unzippedBytes) {
      failures.push(`${fn}: ${mb(zip.unzipped)} MB unzipped (${path.basename(file)}), above Lambda's ${mb(LIMITS.unzippedBytes)} MB`);
    }
    const arch = row.arch === 'arm64' ? 'arm64' : 'x64';
    for (const native of new Set(zip.entries.map((e) => /node_modules\/@img\/sharp-(?:libvips-)?([a-z0-9]+-[a-z0-9]+)\//.exec(e.name)?.[1]).filter(Boolean))) {
      if (native !== `linux-${arch}` && native !== `linuxmusl-${arch}`) failures.push(`${fn}: packs sharp's ${native} binaries; Lambda (${arch}) needs linux-${arch}`);
    }
    failures.push(...unloaded(fn, zip.entries.map((e) => e.name), row.environment.ENGINE_ISOLATION === 'function'));
    const module = String(props.Handler ?? '').replace(/\.[^./]+$/, '');
    const bundle = zip.entries.find((e) => ['.js', '.mjs', '.cjs'].some((ext) => e.name === module + ext));
    row.bundle = bundle?.size;
    row.bundleName = bundle?.name;
    row.waits = bundle ? zip.read(bundle).toString('latin1').includes('waitFor(') : false;
    if (row.http) {
      if (!bundle) failures.push(`${fn}: handler file of ${props.Handler} not found in ${path.basename(file)}`);
      else if (bundle.size > LIMITS.httpBundleBytes) {
        failures.push(`${fn}: HTTP handler bundle ${bundle.name} is ${(bundle.size / 1e6).toFixed(2)} MB, above ${LIMITS.httpBundleBytes / 1e6} MB`);
      }
      for (const entry of zip.entries.filter((e) => e.name.endsWith('.map') && !e.name.includes('node_modules/'))) {
        let map: { sourcesContent?: Array<string | null> };
        try {
          map = JSON.parse(zip.read(entry).toString('utf8')) as typeof map;
        } catch {
          failures.push(`${fn}: ${entry.name} is not a JSON source map`);
          continue;
        }
        if (map.sourcesContent?.some((c) => c != null)) failures.push(`${fn}: ${entry.name} carries its sources (sourcesContent); an HTTP function ships maps without them`);
      }
    }
  }
  return rows;
}

/** The waits' own concurrency and budget, the account's unreserved concurrency, no function versions. */
function checkConcurrency(t: Stack, rows: FunctionRow[]): void {
  const { resources, ofType, functionIds, failures } = t;
  const waiting = rows.filter((r) => r.waits);
  if (rows.some((r) => r.bundle !== undefined) && !waiting.length) {
    failures.push("no function's bundle calls waitFor: the waits' concurrency and budget bound nothing (renamed? update scripts/ci/check-template.ts)");
  }
  for (const row of waiting) {
    const reserved = resources[row.id]!.Properties?.ReservedConcurrentExecutions;
    const budget = row.environment.WAIT_BUDGET;
    const what = `${row.id}: holds requests until a job ends (its bundle calls waitFor)`;
    if (reserved === undefined) failures.push(`${what} without ReservedConcurrentExecutions: its waits could take every other route's concurrency`);
    if (budget === undefined) failures.push(`${what} without WAIT_BUDGET: nothing answers before Lambda throttles it`);
    else if (reserved !== undefined && !(Number(budget) < Number(reserved))) {
      failures.push(`${row.id}: WAIT_BUDGET ${String(budget)} is not below its ReservedConcurrentExecutions ${String(reserved)}: Lambda throttles before the budget answers`);
    }
  }
  const reservedIn = [...functionIds].map((f) => Number(resources[f]!.Properties?.ReservedConcurrentExecutions ?? 0));
  const total = reservedIn.reduce((a, b) => a + b, 0);
  if (total > LIMITS.accountConcurrency - LIMITS.minUnreserved) {
    failures.push(
      `ReservedConcurrentExecutions: ${total} reserved in all leaves fewer than ${LIMITS.minUnreserved} of the account's default ${LIMITS.accountConcurrency} unreserved (Lambda refuses it)`,
    );
  }
  for (const [id] of ofType('AWS::Lambda::Version')) failures.push(`${id}: a function version; versionFunctions must stay false (code storage would grow with every deploy)`);
}

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

export function formatReport(report: TemplateReport): string {
  const functions = table(
    ['function', 'triggers', 'arch', 'timeout s', 'memory MB', 'zip MB', 'unzipped MB', 'handler MB'],
    report.functions.map((f) => [f.id, f.triggers.join(' ') || '-', f.arch, String(f.timeout), String(f.memory), mb(f.zipped), mb(f.unzipped), mb(f.bundle)]),
  );
  const queues = table(
    ['queue', 'visibility s', 'needed s', 'maxReceiveCount', 'dead-letter queue', 'consumers', 'max concurrency'],
    report.queues.map((q) => [
      q.id,
      String(q.visibility),
      q.needed === undefined ? '-' : String(q.needed),
      q.maxReceiveCount === undefined ? '-' : String(q.maxReceiveCount),
      q.deadLetterQueue ?? '-',
      q.consumers.join(', ') || '-',
      q.maximumConcurrency.join(', ') || '-',
    ]),
  );
  const verdict = report.failures.length
    ? `${report.failures.length} broken invariant(s):\n${report.failures.map((f) => `FAIL ${f}`).join('\n')}`
    : 'all invariants hold';
  return `${functions}\n\n${queues}\n\n${verdict}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const dir = process.argv[2] ?? '.serverless';
  const template = mergedTemplate(await readPackagedStack(dir));
  const report = await checkTemplate(template, dir);
  console.log(formatReport(report));
  process.exitCode = report.failures.length ? 1 : 0;
}
