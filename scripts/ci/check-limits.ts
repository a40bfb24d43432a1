/**
 * The packaged stack against the CloudFormation, API Gateway, Lambda and IAM limits it meets (issue 28:
 * room to grow). For every limit: its use, its margin, and how much of it an added function of the
 * average kind takes; fails when any margin is below 40 % (use above 60 %), or when fewer than 20 more
 * functions would fit before the first margin drops below 40 %.
 *
 * - per stack (the root and each nested one, scripts/ci/stack-templates.ts): resources (500), outputs,
 *   parameters and mappings (200 each), template body bytes (1,000,000: the templates go through S3);
 * - per API: the HTTP API's routes and integrations, the WebSocket API's routes (300 each);
 * - per function: environment variables (4 KB, keys and values), unzipped package (250 MB, from the
 *   zips), resource-based policy (20 KB: its invoke permissions);
 * - per role: inline policies (10,240 characters in all);
 * - per account: IAM roles (1,000) and the concurrency reserved (1,000 less the 100 Lambda keeps
 *   unreserved).
 *
 * A value CloudFormation fills in (a Ref, an ARN) counts at the most it can be (`worstLength`), so a use
 * is never below the deployed one. An added function of the average kind takes, of each limit that grows
 * with functions, the use divided by today's number of functions: fixed resources (the table, the
 * network) counted as if they grew too, which errs on the side of less room.
 *
 * Usage: `tsx scripts/ci/check-limits.ts [artifact folder, default .serverless] [--write-docs]`. The
 * counted limits and the room for functions are written between the markers of
 * docs/operating/deploying.md with --write-docs, and compared with them otherwise (a drifted figure fails).
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mergedTemplate, readPackagedStack, stacksOf, type PackagedStack, type Resource, type Template } from './stack-templates.js';
import { table, target } from './check-template.js';
import { unzippedSize } from './zip.js';

const MB = 1024 * 1024;
export const MAX_USE = 0.6;
export const MIN_MORE_FUNCTIONS = 20;
export const LIMITS = {
  resources: 500,
  outputs: 200,
  parameters: 200,
  mappings: 200,
  templateBytes: 1_000_000,
  routesPerApi: 300,
  integrationsPerApi: 300,
  environmentBytes: 4096,
  unzippedBytes: 250 * MB,
  functionPolicyBytes: 20_480,
  rolePolicyCharacters: 10_240,
  rolesPerAccount: 1000,
  accountConcurrency: 1000,
  unreservedConcurrency: 100,
};

/**
 * Limits held to a smaller margin than 40 %, each with its reason, and (`only`) the resources it is
 * accepted for, each then counted on its own; every other use of that limit keeps 40 %. Nothing else is
 * accepted. None is today: the media engine function, the last, ships its ffprobe compressed
 * (scripts/serverless-packed-binaries.cjs) and is within 60 % of Lambda's 250 MB unzipped.
 */
export const ACCEPTED_MARGINS: Record<string, { margin: number; why: string; only?: readonly string[] }> = {};
const acceptedFor = (use: Pick<Use, 'limit' | 'where'>) => {
  const accepted = ACCEPTED_MARGINS[use.limit];
  return accepted && (!accepted.only || accepted.only.includes(use.where)) ? accepted : undefined;
};
const maxUseOf = (use: Pick<Use, 'limit' | 'where'>) => 1 - (acceptedFor(use)?.margin ?? 1 - MAX_USE);

export interface Use {
  limit: string;
  where: string;
  used: number;
  max: number;
  /** What one more function of the average kind adds (0: the limit is per function or per role). */
  perFunction: number;
  /** Counted (not measured in bytes): stable from one package to the next, so the docs show it. */
  counted: boolean;
}

export interface LimitsReport {
  uses: Use[];
  functions: number;
  /** How many more functions of the average kind fit before the first margin drops below 40 %, and where. */
  moreFunctions: number;
  firstMet?: Use;
  failures: string[];
}

/** The longest pseudo parameters: the aws-us-gov partition, a 14-letter region, a stack name's 128. */
const PSEUDO: Record<string, number> = { 'AWS::Partition': 10, 'AWS::Region': 14, 'AWS::AccountId': 12, 'AWS::URLSuffix': 16, 'AWS::StackName': 128, 'AWS::NoValue': 0 };
/** `arn:<partition>:<service>:<region>:<account>:` at its longest, without the service. */
const ARN_PREFIX = 4 + 10 + 1 + 1 + 14 + 1 + 12 + 1;

/** A resource's ARN at its longest: the prefix and its name (the name it is given, else the longest allowed). */
function arnLength(r: Resource | undefined): number {
  const name = (key: string, longest: number) => (typeof r?.Properties?.[key] === 'string' ? Buffer.byteLength(r.Properties[key] as string) : longest);
  switch (r?.Type) {
    case 'AWS::SQS::Queue':
      return ARN_PREFIX + 3 + name('QueueName', 80);
    case 'AWS::Lambda::Function':
      return ARN_PREFIX + 6 + 'function:'.length + name('FunctionName', 64);
    case 'AWS::S3::Bucket':
      return 'arn:aws-us-gov:s3:::'.length + name('BucketName', 63);
    case 'AWS::DynamoDB::Table':
      return ARN_PREFIX + 8 + 'table/'.length + name('TableName', 255);
    case 'AWS::IAM::Role':
      return 'arn:aws-us-gov:iam::123456789012:role/'.length + name('RoleName', 64);
    default:
      return 256;
  }
}

/**
 * The most characters a value can take once CloudFormation resolves it, `resources` naming what its
 * references point at: an ARN of a known type is its prefix and the resource's name, a Ref a name or an
 * id (64; an API's id is 10), a pseudo parameter its longest value.
 */
export function worstLength(value: unknown, resources: Record<string, Resource> = {}): number {
  const of = (v: unknown) => worstLength(v, resources);
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value).length;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + of(v), 0);
  if (!value || typeof value !== 'object') return 0;
  const [key, arg] = Object.entries(value)[0] ?? [];
  const ref = (name: string) => PSEUDO[name] ?? (resources[name]?.Type === 'AWS::ApiGatewayV2::Api' ? 10 : 64);
  if (key === 'Ref') return ref(String(arg));
  if (key === 'Fn::GetAtt') {
    const [id, attribute] = typeof arg === 'string' ? arg.split('.') : (arg as string[]);
    return attribute === 'Arn' ? arnLength(resources[id!]) : 256;
  }
  if (key === 'Fn::Join' && Array.isArray(arg)) {
    const parts = (Array.isArray(arg[1]) ? arg[1] : [arg[1]]) as unknown[];
    return parts.reduce((n: number, v) => n + of(v), 0) + Math.max(0, parts.length - 1) * of(arg[0]);
  }
  if (key === 'Fn::Sub') {
    const text = String(Array.isArray(arg) ? arg[0] : arg);
    const variables = [...text.matchAll(/\$\{([^}]+)\}/g)].map((m) => m[1]!);
    const local = (Array.isArray(arg) ? arg[1] : undefined) as Record<string, unknown> | undefined;
    const variable = (v: string) => (local && v in local ? of(local[v]) : v.includes('.') ? of({ 'Fn::GetAtt': v.split('.') }) : ref(v));
    return Buffer.byteLength(text.replace(/\$\{[^}]+\}/g, '')) + variables.reduce((n, v) => n + variable(v), 0);
  }
  if (key === 'Fn::If' && Array.isArray(arg)) return Math.max(of(arg[1]), of(arg[2]));
  return 256;
}

/** A policy document as IAM counts it (no whitespace), each resolved value at its longest. */
function policyCharacters(document: unknown, resources: Record<string, Resource>): number {
  const resolve = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(resolve);
    if (!v || typeof v !== 'object') return v;
    const keys = Object.keys(v);
    if (keys.length === 1 && (keys[0]!.startsWith('Fn::') || keys[0] === 'Ref')) return 'x'.repeat(worstLength(v, resources));
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]));
  };
  return JSON.stringify(resolve(document)).length;
}

const ofType = (t: Template, type: string) => Object.entries(t.Resources).filter(([, r]) => r.Type === type);
const refOf = (v: unknown) => (v && typeof v === 'object' && typeof (v as { Ref?: unknown }).Ref === 'string' ? (v as { Ref: string }).Ref : undefined);
const count = (o: Record<string, unknown> | undefined) => Object.keys(o ?? {}).length;

/** The limits each stack meets as a template. */
function stackUses(stack: PackagedStack, functions: number): Use[] {
  const uses: Use[] = [];
  for (const part of stacksOf(stack)) {
    const where = part.name === 'root' ? 'root stack' : `nested stack ${part.name}`;
    const t = part.template;
    const rows: Array<[string, number, number, boolean]> = [
      ['resources', count(t.Resources), LIMITS.resources, true],
      ['outputs', count(t.Outputs), LIMITS.outputs, true],
      ['parameters', count(t.Parameters), LIMITS.parameters, true],
      ['mappings', count(t.Mappings), LIMITS.mappings, true],
      ['template bytes', part.bytes, LIMITS.templateBytes, false],
    ];
    for (const [limit, used, max, counted] of rows) uses.push({ limit, where, used, max, perFunction: used / functions, counted });
  }
  return uses;
}

/** The limits of each API: routes and integrations. */
function apiUses(merged: Template, functions: number): Use[] {
  const uses: Use[] = [];
  for (const [api, r] of ofType(merged, 'AWS::ApiGatewayV2::Api')) {
    const kind = r.Properties?.ProtocolType === 'WEBSOCKET' ? 'WebSocket API' : 'HTTP API';
    const on = (type: string) => ofType(merged, type).filter(([, x]) => refOf(x.Properties?.ApiId) === api).length;
    const routes = on('AWS::ApiGatewayV2::Route');
    const integrations = on('AWS::ApiGatewayV2::Integration');
    uses.push({ limit: 'routes', where: `${kind} ${api}`, used: routes, max: LIMITS.routesPerApi, perFunction: routes / functions, counted: true });
    uses.push({ limit: 'integrations', where: `${kind} ${api}`, used: integrations, max: LIMITS.integrationsPerApi, perFunction: integrations / functions, counted: true });
  }
  return uses;
}

/** The largest of `values` as one use (per function or per role: an added one adds nothing to it). */
function largest(limit: string, values: Array<[string, number]>, max: number): Use[] {
  const use = ([where, used]: [string, number]): Use => ({ limit, where, used, max, perFunction: 0, counted: false });
  // A resource with a margin of its own is counted alone; the largest of the others stands for them.
  const own = values.filter(([where]) => ACCEPTED_MARGINS[limit]?.only?.includes(where));
  const rest = values.filter((v) => !own.includes(v));
  return [...(rest.length ? [use(rest.reduce((a, b) => (b[1] > a[1] ? b : a)))] : []), ...own.map(use)];
}

/** Per function, per role and per account. */
async function itemUses(merged: Template, dir: string): Promise<Use[]> {
  const fns = ofType(merged, 'AWS::Lambda::Function');
  const environment = fns.map(([id, f]): [string, number] => [
    id,
    Object.entries((f.Properties?.Environment?.Variables ?? {}) as Record<string, unknown>).reduce((n, [k, v]) => n + Buffer.byteLength(k) + worstLength(v, merged.Resources), 0),
  ]);
  const unzipped: Array<[string, number]> = [];
  for (const [id, f] of fns) {
    const key: unknown = f.Properties?.Code?.S3Key;
    const file = typeof key === 'string' ? path.join(dir, path.basename(key)) : undefined;
    if (file && (await stat(file).catch(() => undefined))) unzipped.push([id, (await unzippedSize(file)).unzipped]);
  }
  // Each permission is one statement of its function's policy (about its JSON's size with the ARNs).
  const policy = new Map<string, number>();
  for (const [, p] of ofType(merged, 'AWS::Lambda::Permission')) {
    const fn = target(p.Properties?.FunctionName) ?? JSON.stringify(p.Properties?.FunctionName);
    policy.set(fn, (policy.get(fn) ?? 0) + policyCharacters({ Sid: 'x'.repeat(64), Effect: 'Allow', ...p.Properties }, merged.Resources));
  }
  const roles = ofType(merged, 'AWS::IAM::Role');
  const rolePolicies = roles.map(([id, r]): [string, number] => [id, ((r.Properties?.Policies ?? []) as Resource[]).reduce((n, p) => n + policyCharacters(p.PolicyDocument, merged.Resources), 0)]);
  const reserved = fns.reduce((n, [, f]) => n + Number(f.Properties?.ReservedConcurrentExecutions ?? 0), 0);
  const reservable = LIMITS.accountConcurrency - LIMITS.unreservedConcurrency;
  return [
    ...largest('environment bytes', environment, LIMITS.environmentBytes),
    ...largest('unzipped bytes', unzipped, LIMITS.unzippedBytes),
    ...largest('resource policy bytes', [...policy], LIMITS.functionPolicyBytes),
    ...largest('inline policy characters', rolePolicies, LIMITS.rolePolicyCharacters),
    { limit: 'IAM roles', where: 'account', used: roles.length, max: LIMITS.rolesPerAccount, perFunction: roles.length / fns.length, counted: true },
    { limit: 'reserved concurrency', where: 'account (1,000 less 100 unreserved)', used: reserved, max: reservable, perFunction: reserved / fns.length, counted: true },
  ];
}

export async function checkLimits(stack: PackagedStack, dir: string): Promise<LimitsReport> {
  const merged = mergedTemplate(stack);
  const functions = ofType(merged, 'AWS::Lambda::Function').length;
  if (!functions) throw new Error('the package has no function: is it packaged?');
  const uses = [...stackUses(stack, functions), ...apiUses(merged, functions), ...(await itemUses(merged, dir))];
  const failures: string[] = [];
  let moreFunctions = Infinity;
  let firstMet: Use | undefined;
  for (const use of uses) {
    const maxUse = maxUseOf(use);
    if (use.used > maxUse * use.max) failures.push(`${use.where}: ${use.limit} ${use.used} of ${use.max} (${percent(use.used / use.max)}), above ${percent(maxUse)}`);
    if (use.perFunction <= 0) continue;
    const fit = Math.max(0, Math.floor((maxUse * use.max - use.used) / use.perFunction));
    if (fit < moreFunctions) [moreFunctions, firstMet] = [fit, use];
  }
  if (moreFunctions < MIN_MORE_FUNCTIONS) {
    failures.push(`room for ${moreFunctions} more functions of the average kind (at least ${MIN_MORE_FUNCTIONS}): ${firstMet!.where} ${firstMet!.limit} passes ${percent(MAX_USE)} first`);
  }
  return { uses, functions, moreFunctions, firstMet, failures };
}

const percent = (x: number) => `${Math.round(x * 100)} %`;
const number = (n: number) => (Number.isInteger(n) ? n.toLocaleString('en-US') : n.toFixed(2));

export function formatLimits(report: LimitsReport, only: (u: Use) => boolean = () => true): string {
  const rows = report.uses
    .filter(only)
    .map((u) => [u.where, u.limit, number(u.used), number(u.max), percent(u.used / u.max), percent(1 - u.used / u.max), u.perFunction ? u.perFunction.toFixed(2) : '-']);
  const head = table(['where', 'limit', 'used', 'limit', 'use', 'margin', 'per function'], rows);
  const room = report.firstMet
    ? `${report.functions} functions today; room for ${report.moreFunctions} more of the average kind before a margin drops below ${percent(1 - MAX_USE)} (first: ${report.firstMet.where}, ${report.firstMet.limit})`
    : `${report.functions} functions today`;
  const accepted = Object.entries(ACCEPTED_MARGINS).map(([limit, a]) => `${limit}${a.only ? ` of ${a.only.join(', ')}` : ''}: a margin of ${percent(a.margin)} is enough (${a.why})`);
  return [`${head}\n`, room, ...accepted.map((a) => `accepted: ${a}`)].join('\n');
}

export const DOC = 'docs/operating/deploying.md';
const BEGIN = '<!-- limits:begin (npm run ci:limits -- --write-docs) -->';
const END = '<!-- limits:end -->';

/** The docs' block: the counted limits (stable between packages), the room for functions. */
export function docsBlock(report: LimitsReport): string {
  return `${BEGIN}\n\`\`\`text\n${formatLimits(report, (u) => u.counted)}\n\`\`\`\n${END}`;
}

export function replaceBlock(page: string, block: string): string {
  const start = page.indexOf(BEGIN);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${DOC} has no limits block (${BEGIN} … ${END})`);
  return page.slice(0, start) + block + page.slice(end + END.length);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const args = process.argv.slice(2);
  const write = args.includes('--write-docs');
  const dir = args.find((a) => !a.startsWith('--')) ?? '.serverless';
  const report = await checkLimits(await readPackagedStack(dir), dir);
  console.log(formatLimits(report));
  const docFile = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..', DOC);
  const page = await readFile(docFile, 'utf8');
  const updated = replaceBlock(page, docsBlock(report));
  if (write && updated !== page) await writeFile(docFile, updated);
  else if (!write && updated !== page) report.failures.push(`${DOC}: the limits block differs from the package (npm run ci:limits -- --write-docs)`);
  console.log(report.failures.length ? `\n${report.failures.map((f) => `FAIL ${f}`).join('\n')}` : '\nevery limit under 60 %, with room for the functions to come');
  process.exitCode = report.failures.length ? 1 : 0;
}
