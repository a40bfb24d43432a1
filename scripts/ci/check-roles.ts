/**
 * The authority of every function in the packaged template, checked against what its code calls:
 *
 * - each function's role grants exactly the AWS actions its code calls (scripts/ci/aws-calls.ts derives
 *   them from the sources, starting at the template's handler) plus what Lambda itself does with the
 *   role: logs (logs:CreateLogStream, logs:PutLogEvents; logs:CreateLogGroup allowed), X-Ray
 *   (xray:PutTraceSegments and xray:PutTelemetryRecords, required when tracing is Active), the SQS
 *   event source's sqs:ReceiveMessage, sqs:DeleteMessage and sqs:GetQueueAttributes, the on-failure
 *   destination or dead-letter target's send, and a VPC function's network interfaces (the AWS managed
 *   AWSLambdaVPCAccessExecutionRole, the only managed policy accepted). A needed action the role lacks
 *   fails (Lambda would refuse the function, or the call would be denied); an action granted that
 *   nothing needs fails as widened; a wildcard action or NotAction fails (it cannot be checked);
 * - no function that runs untrusted files (an engine function: a handler under functions/engines/, a
 *   name starting with `engine`, or ENGINE_FAMILY in its environment, as
 *   scripts/serverless-engine-functions.cjs sets from custom.engineFunctions, unless its engines run in
 *   its engine function, ENGINE_ISOLATION=function) may hold any DynamoDB action (the state table
 *   is the stack's one table: API keys, OAuth tokens, balances, the URL-signing secret) or any action of
 *   Secrets Manager, SSM, KMS, IAM or STS, whatever the resource.
 *
 * The template is the merged view of the root and its nested stacks (scripts/ci/stack-templates.ts): a
 * function's role is its role wherever the role's stack is.
 *
 * Usage: `tsx scripts/ci/check-roles.ts [artifact folder, default .serverless]`. Prints one row per
 * function, then one line per failure naming the function and the action; exits 1 when any fails.
 * `--fixture <file>` also saves the parts of the template the check reads with the derived actions
 * (the unit tests run on such a copy: test/fixtures/ci-roles/packaged-roles.json).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deriveAwsCalls, type Entry } from './aws-calls.js';
import { unzippedSize } from './zip.js';
import { table, target } from './check-template.js';
import { mergedTemplate, readPackagedStack } from './stack-templates.js';

type Json = any;
export interface Template {
  Resources: Record<string, { Type: string; Properties?: Json; Condition?: string }>;
}

const LOGS_REQUIRED = ['logs:CreateLogStream', 'logs:PutLogEvents'];
const LOGS_ALLOWED = ['logs:CreateLogGroup'];
const XRAY = ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'];
const SQS_EVENT_SOURCE = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'];
const VPC_POLICY = 'AWSLambdaVPCAccessExecutionRole';
/** What AWSLambdaVPCAccessExecutionRole grants (besides logs); the first three Lambda needs in a VPC. */
const VPC_ACTIONS = ['ec2:CreateNetworkInterface', 'ec2:DescribeNetworkInterfaces', 'ec2:DeleteNetworkInterface', 'ec2:DescribeSubnets', 'ec2:AssignPrivateIpAddresses', 'ec2:UnassignPrivateIpAddresses'];
/** Services an engine function may not touch at all. */
const ENGINE_FORBIDDEN = ['dynamodb', 'secretsmanager', 'ssm', 'kms', 'iam', 'sts'];

export interface RoleRow {
  id: string;
  name: string;
  handler: string;
  engine: boolean;
  tracing: boolean;
  code: number;
  granted: number;
  missing: string[];
  widened: string[];
}

export interface RolesReport {
  failures: string[];
  rows: RoleRow[];
}

/** The serverless.yml name of a function from its logical id (`ProcessMediaLambdaFunction` → processMedia). */
export const functionName = (id: string) => {
  const base = id.replace(/LambdaFunction$/, '').replace(/Dash/g, '-').replace(/Underscore/g, '_');
  return base.charAt(0).toLowerCase() + base.slice(1);
};

/** The handler (`functions/jobs/create.handler`) of a zip or container-image function. */
export const handlerOf = (props: Json): string => String(props?.Handler ?? props?.ImageConfig?.Command?.[0] ?? '');

const list = (value: Json): Json[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
/** IAM compares actions without regard to case. */
const key = (action: string) => action.toLowerCase();
/** Whether an IAM action pattern with `*` matches an action (both lower case). */
export function globMatches(pattern: string, action: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === action;
  if (!action.startsWith(parts[0]!) || !action.endsWith(parts.at(-1)!)) return false;
  let at = parts[0]!.length;
  for (const part of parts.slice(1, -1)) {
    const found = action.indexOf(part, at);
    if (found < 0) return false;
    at = found + part.length;
  }
  return at <= action.length - parts.at(-1)!.length;
}

/** The action a destination ARN (Ref/GetAtt of a template resource or a literal ARN) takes to send to it. */
function sendActionFor(resources: Template['Resources'], arn: Json): string | undefined {
  const id = target(arn);
  const type = id ? resources[id]?.Type : undefined;
  const text = typeof arn === 'string' ? arn : JSON.stringify(arn);
  if (type === 'AWS::SQS::Queue' || text.includes(':sqs:')) return 'sqs:SendMessage';
  if (type === 'AWS::SNS::Topic' || text.includes(':sns:')) return 'sns:Publish';
  if (type === 'AWS::Lambda::Function' || text.includes(':lambda:')) return 'lambda:InvokeFunction';
  if (type === 'AWS::Events::EventBus' || text.includes(':events:')) return 'events:PutEvents';
  return undefined;
}

export function isEngineFunction(name: string, props: Json): boolean {
  const env = props?.Environment?.Variables ?? {};
  const runsEngines = env.ENGINE_FAMILY !== undefined && env.ENGINE_ISOLATION !== 'function';
  return runsEngines || handlerOf(props).startsWith('functions/engines/') || /^engine/i.test(name);
}

/**
 * Compares each function's role with its needs. `code`: per function logical id, the actions its code
 * calls and, for each, why (the path from the handler to the request).
 */
export function checkRoles(template: Template, code: Map<string, Map<string, string>>): RolesReport {
  const resources = template.Resources ?? {};
  const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
  const failures: string[] = [];
  const rows: RoleRow[] = [];

  // Policies attached to roles as separate resources.
  const attached = new Map<string, Json[]>();
  for (const [, policy] of [...ofType('AWS::IAM::Policy'), ...ofType('AWS::IAM::ManagedPolicy')]) {
    for (const role of list(policy.Properties?.Roles)) {
      const id = target(role);
      if (id) attached.set(id, [...(attached.get(id) ?? []), ...list(policy.Properties?.PolicyDocument?.Statement)]);
    }
  }
  const sqsConsumers = new Set<string>();
  for (const [, mapping] of ofType('AWS::Lambda::EventSourceMapping')) {
    const source = mapping.Properties?.EventSourceArn;
    const fn = target(mapping.Properties?.FunctionName);
    if (fn && (resources[target(source) ?? '']?.Type === 'AWS::SQS::Queue' || JSON.stringify(source ?? '').includes(':sqs:'))) sqsConsumers.add(fn);
  }
  const destinations = new Map<string, string[]>();
  const addDestination = (fn: string | undefined, arn: Json, what: string) => {
    if (!fn) return;
    const action = sendActionFor(resources, arn);
    if (action) destinations.set(fn, [...(destinations.get(fn) ?? []), action]);
    else failures.push(`${functionName(fn)}: ${what} ${JSON.stringify(arn)} is of no kind this check knows`);
  };
  for (const [, config] of ofType('AWS::Lambda::EventInvokeConfig')) {
    const fn = target(config.Properties?.FunctionName);
    for (const kind of ['OnFailure', 'OnSuccess']) {
      const arn = config.Properties?.DestinationConfig?.[kind]?.Destination;
      if (arn !== undefined) addDestination(fn, arn, `${kind} destination`);
    }
  }

  for (const [id, fn] of ofType('AWS::Lambda::Function')) {
    const props = fn.Properties ?? {};
    const name = functionName(id);
    const engine = isEngineFunction(name, props);
    const tracing = props.TracingConfig?.Mode === 'Active';
    const vpc = props.VpcConfig !== undefined;
    if (props.DeadLetterConfig?.TargetArn !== undefined) addDestination(id, props.DeadLetterConfig.TargetArn, 'dead-letter target');

    // Needed: the code's calls and what Lambda does with the role.
    const needed = new Map<string, string>();
    const need = (action: string, why: string) => needed.has(key(action)) || needed.set(key(action), `${action}\u0000${why}`);
    const calls = code.get(id);
    if (!calls) failures.push(`${name}: no actions derived from its code (handler ${handlerOf(props) || 'absent'})`);
    for (const [action, why] of calls ?? []) need(action, why);
    for (const action of LOGS_REQUIRED) need(action, 'Lambda writes the function logs');
    if (tracing) for (const action of XRAY) need(action, 'tracing is Active');
    if (sqsConsumers.has(id)) for (const action of SQS_EVENT_SOURCE) need(action, 'its SQS event source');
    for (const action of destinations.get(id) ?? []) need(action, 'its failure destination');
    if (vpc) for (const action of VPC_ACTIONS.slice(0, 3)) need(action, 'it runs in a VPC');
    const allowed = new Set([...needed.keys(), ...LOGS_ALLOWED.map(key), ...XRAY.map(key), ...(vpc ? VPC_ACTIONS.map(key) : [])]);

    // Granted: the role's statements.
    const roleId = target(props.Role);
    const role = roleId ? resources[roleId] : undefined;
    if (!role || role.Type !== 'AWS::IAM::Role') {
      failures.push(`${name}: its role ${JSON.stringify(props.Role)} is not a role of this template; it cannot be checked`);
      continue;
    }
    const statements: Json[] = [...list(role.Properties?.Policies).flatMap((p: Json) => list(p?.PolicyDocument?.Statement)), ...(attached.get(roleId!) ?? [])];
    const granted = new Map<string, { action: string; resource: Json }>();
    for (const statement of statements) {
      if (statement?.Effect !== 'Allow') continue;
      if (statement.NotAction !== undefined) failures.push(`${name}: role ${roleId} has a NotAction statement (grants everything else)`);
      for (const action of list(statement.Action).map(String)) granted.set(key(action), { action, resource: statement.Resource ?? statement.NotResource });
    }
    for (const arn of list(role.Properties?.ManagedPolicyArns)) {
      const text = JSON.stringify(arn);
      if (text.includes(`:policy/service-role/${VPC_POLICY}`) && vpc) {
        for (const action of [...VPC_ACTIONS, ...LOGS_REQUIRED, ...LOGS_ALLOWED]) granted.set(key(action), { action, resource: '*' });
      } else failures.push(`${name}: role ${roleId} has the managed policy ${text}${vpc ? '' : ' (widened: the function is in no VPC)'}`);
    }

    const patterns = [...granted.keys()].filter((a) => a.includes('*'));
    const covered = (action: string) => granted.has(action) || patterns.some((p) => globMatches(p, action));
    const missing = [...needed.entries()].filter(([a]) => !covered(a)).map(([, v]) => v.split('\u0000') as [string, string]);
    const widened = [...granted.entries()].filter(([a]) => !allowed.has(a)).map(([, g]) => g.action);
    for (const [action, why] of missing) failures.push(`${name}: role lacks ${action}, which it needs (${why})`);
    for (const action of widened) {
      failures.push(action.includes('*') ? `${name}: role grants the wildcard ${action} (widened)` : `${name}: role grants ${action}, which its code does not call (widened)`);
    }

    if (engine) {
      const forbidden = [...new Set([...[...granted.values()].map((g) => g.action), ...[...needed.values()].map((v) => v.split('\u0000')[0]!)])]
        .filter((a) => a === '*' || ENGINE_FORBIDDEN.includes(a.split(':')[0]!.toLowerCase()))
        .sort();
      if (forbidden.length) failures.push(`${name}: runs untrusted files, yet its role or code reaches ${forbidden.join(', ')} (keys, tokens, balances, secrets)`);
    }
    rows.push({ id, name, handler: handlerOf(props), engine, tracing, code: calls?.size ?? 0, granted: granted.size, missing: missing.map(([a]) => a), widened });
  }
  return { failures, rows };
}

export function formatRoles(report: RolesReport): string {
  const rows = table(
    ['function', 'engine', 'tracing', 'code actions', 'granted', 'missing', 'widened'],
    report.rows.map((r) => [r.name, r.engine ? 'yes' : '-', r.tracing ? 'Active' : '-', String(r.code), String(r.granted), r.missing.join(' ') || '-', r.widened.join(' ') || '-']),
  );
  const verdict = report.failures.length ? `${report.failures.length} failure(s):\n${report.failures.map((f) => `FAIL ${f}`).join('\n')}` : 'every role grants what its code calls, and no more';
  return [rows, verdict].join('\n\n');
}

/**
 * The entries for the derivation: every function whose handler is a module of this project, with the
 * project's modules its bundle holds when `dir` has its zip (the bundle's source map lists them, as
 * paths from the folder the bundle was built in: `../../lib/adapters/file-store/names.ts` is `lib/adapters/file-store/names.ts`).
 */
export async function entriesOf(template: Template, dir?: string): Promise<Entry[]> {
  const entries: Entry[] = [];
  for (const [id, r] of Object.entries(template.Resources)) {
    if (r.Type !== 'AWS::Lambda::Function') continue;
    const handler = handlerOf(r.Properties);
    entries.push({ id, handler, ...(dir ? { modules: await bundledModules(path.join(dir, `${functionName(id)}.zip`), handler) } : {}) });
  }
  return entries;
}

async function bundledModules(zip: string, handler: string): Promise<Set<string> | undefined> {
  const mapName = `${handler.slice(0, handler.lastIndexOf('.'))}.cjs.map`;
  let archive;
  try {
    archive = await unzippedSize(zip);
  } catch {
    return undefined; // a container image's function, or no package: every module counts
  }
  const entry = archive.entries.find((e) => e.name === mapName);
  if (!entry) throw new Error(`${zip}: no ${mapName} (the bundle's source map names the modules it holds)`);
  const { sources } = JSON.parse(archive.read(entry).toString('utf8')) as { sources: string[] };
  return new Set(sources.map((s) => s.replace(/^(\.\.\/)+/, '')).filter((s) => !s.startsWith('node_modules/')));
}

/** The parts of a template the check reads (functions, roles, policies, event sources, destinations). */
export function rolesFixture(template: Template, code: Map<string, Map<string, string>>) {
  const kept = ['AWS::Lambda::Function', 'AWS::IAM::Role', 'AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy', 'AWS::Lambda::EventSourceMapping', 'AWS::Lambda::EventInvokeConfig', 'AWS::SQS::Queue', 'AWS::SNS::Topic'];
  const Resources: Template['Resources'] = {};
  for (const [id, r] of Object.entries(template.Resources)) {
    if (!kept.includes(r.Type)) continue;
    const p = r.Properties ?? {};
    Resources[id] =
      r.Type === 'AWS::Lambda::Function'
        ? { Type: r.Type, Properties: { Handler: p.Handler, ImageConfig: p.ImageConfig, Role: p.Role, TracingConfig: p.TracingConfig, VpcConfig: p.VpcConfig, DeadLetterConfig: p.DeadLetterConfig, Environment: p.Environment?.Variables?.ENGINE_FAMILY ? { Variables: { ENGINE_FAMILY: p.Environment.Variables.ENGINE_FAMILY, ENGINE_ISOLATION: p.Environment.Variables.ENGINE_ISOLATION } } : undefined } }
        : r.Type === 'AWS::IAM::Role'
          ? { Type: r.Type, Properties: { Policies: p.Policies, ManagedPolicyArns: p.ManagedPolicyArns } }
          : r.Type === 'AWS::SQS::Queue' || r.Type === 'AWS::SNS::Topic'
            ? { Type: r.Type }
            : r;
  }
  // One line per resource and per function: a diff of two saved copies reads by function.
  const lines = (o: Record<string, unknown>) => Object.entries(o).map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(',\n');
  const calls = Object.fromEntries([...code].map(([id, m]) => [id, Object.fromEntries(m)]));
  return `{"template": {"Resources": {\n${lines(Resources)}\n}},\n"code": {\n${lines(calls)}\n}}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const args = process.argv.slice(2);
  const fixtureAt = args.indexOf('--fixture');
  const fixture = fixtureAt >= 0 ? args.splice(fixtureAt, 2)[1] : undefined;
  const dir = args[0] ?? '.serverless';
  const template = mergedTemplate(await readPackagedStack(dir));
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const derived = deriveAwsCalls(root, await entriesOf(template, dir));
  const report = checkRoles(template, derived.actions);
  report.failures.unshift(...derived.problems);
  console.log(formatRoles(report));
  if (fixture) await writeFile(fixture, rolesFixture(template, derived.actions));
  process.exitCode = report.failures.length ? 1 : 0;
}
