/**
 * Figures of the documentation that only the packaged stack knows (package sizes, resource, function,
 * route and alarm counts, what the alarms cost) are written between markers and checked against the
 * package, so that they cannot drift as the README's hand-typed "21/38 MB" for the PDF function did
 * (it had become 65/114):
 *
 *     the stack has <!-- figure:functions -->61<!-- /figure:functions --> functions
 *
 * A marker names one of FIGURES below (some take an argument: `figure:zipped:enginePdf`); its content
 * is what that figure renders, a word or a whole table. The check compares the text around the numbers
 * exactly and each number within the figure's tolerance (sizes move a little with every dependency, a
 * count not at all); `--write` rewrites every marked figure from the package instead.
 *
 * Usage, after `serverless package`: `tsx scripts/ci/check-doc-figures.ts [--write] [--list] [artifact
 * folder, default .serverless]`. `--list` prints every figure's current text, for writing new markers.
 * Pages: README.md and every Markdown file under docs/. Exits 1 when a figure is wrong or unknown, or
 * when no page marks any figure (the check would then check nothing).
 */
import { readdirSync, statSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mergedTemplate, readPackagedStack, stacksOf, type Template } from './stack-templates.js';
import { unzippedSize } from './zip.js';

const MB = 1024 * 1024;
/** CloudWatch's price of one metric of an alarm a month at the standard resolution (us-east-1, 2026). */
export const ALARM_METRIC_MONTHLY_USD = 0.1;
/** How far a size in the docs may be from the package's before the check fails (a tenth). */
const SIZE_TOLERANCE = 0.1;

export interface FunctionFacts {
  /** The function's key in serverless.yml (`enginePdf`). */
  name: string;
  /** A container image: no zip, no size of its own here. */
  image: boolean;
  zipped?: number;
  unzipped?: number;
}

/** What the figures are computed from: the stacks' resource counts, the merged template, the functions' artifacts. */
export interface PackageFacts {
  stacks: { name: string; resources: number }[];
  template: Template;
  functions: FunctionFacts[];
}

/** `EnginePdfLambdaFunction` → `enginePdf`, the name serverless.yml gives it. */
const functionName = (logicalId: string) => logicalId.replace(/LambdaFunction$/, '').replace(/^./, (c) => c.toLowerCase());

export async function packageFacts(dir = '.serverless'): Promise<PackageFacts> {
  const stack = await readPackagedStack(dir);
  const template = mergedTemplate(stack);
  const functions: FunctionFacts[] = [];
  for (const [id, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const key: unknown = resource.Properties?.Code?.S3Key;
    const fn: FunctionFacts = { name: typeof key === 'string' ? path.posix.basename(key, '.zip') : functionName(id), image: typeof key !== 'string' };
    if (typeof key === 'string') {
      const zip = await unzippedSize(path.join(dir, path.posix.basename(key))).catch((e: Error) => {
        throw new Error(`${fn.name}: its artifact ${path.posix.basename(key)} cannot be read in ${dir} (${e.message})`);
      });
      Object.assign(fn, { zipped: zip.zipped, unzipped: zip.unzipped });
    }
    functions.push(fn);
  }
  functions.sort((a, b) => a.name.localeCompare(b.name));
  return { stacks: stacksOf(stack).map((s) => ({ name: s.name, resources: Object.keys(s.template.Resources).length })), template, functions };
}

const count = (facts: PackageFacts, type: string) => Object.values(facts.template.Resources).filter((r) => r.Type === type).length;
/** MiB, whole from 10 on, one decimal below. */
const megabytes = (bytes: number | undefined) => (bytes === undefined ? '-' : bytes < 10 * MB ? (bytes / MB).toFixed(1) : String(Math.round(bytes / MB)));
const sum = (values: (number | undefined)[]) => values.reduce<number>((a, b) => a + (b ?? 0), 0);

/** Each alarm's metrics as CloudWatch bills them: a metric-math alarm's MetricStat entries, else its one metric. */
export function alarmMetrics(facts: PackageFacts): number {
  const alarms = Object.values(facts.template.Resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
  return sum(alarms.map((a) => (a.Properties?.Metrics ? (a.Properties.Metrics as { MetricStat?: unknown }[]).filter((m) => m.MetricStat).length : 1)));
}

function routes(facts: PackageFacts, protocol?: 'HTTP' | 'WEBSOCKET'): number {
  const apis = new Set(Object.entries(facts.template.Resources).filter(([, r]) => r.Type === 'AWS::ApiGatewayV2::Api' && (!protocol || r.Properties?.ProtocolType === protocol)).map(([id]) => id));
  return Object.values(facts.template.Resources).filter((r) => r.Type === 'AWS::ApiGatewayV2::Route' && apis.has(String(r.Properties?.ApiId?.Ref))).length;
}

function fn(facts: PackageFacts, name: string | undefined): FunctionFacts {
  const found = facts.functions.find((f) => f.name === name);
  if (!found) throw new Error(`no function ${String(name)} in the package`);
  return found;
}

/** The engine and process functions' sizes, and all zips together (the code one deploy uploads and keeps as new versions). */
function sizeTable(facts: PackageFacts): string {
  const shown = facts.functions.filter((f) => /^(engine|process)[A-Z]/.test(f.name));
  const zips = facts.functions.filter((f) => !f.image);
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    '',
    row(['function', 'zipped MiB', 'unzipped MiB']),
    row(['---', '---:', '---:']),
    ...shown.map((f) => row([`\`${f.name}\``, f.image ? 'container image' : megabytes(f.zipped), f.image ? '-' : megabytes(f.unzipped)])),
    row([`all ${zips.length} zips`, megabytes(sum(zips.map((f) => f.zipped))), megabytes(sum(zips.map((f) => f.unzipped)))]),
    '',
  ].join('\n');
}

export interface Figure {
  render: (facts: PackageFacts, arg?: string) => string;
  /** How far (a fraction of the true value) each number may be off; 0: exactly. */
  tolerance: number;
}

export const FIGURES: Record<string, Figure> = {
  /** Resources of the root stack (`resources:<nested stack id>` for a nested one): CloudFormation's 500 is per stack. */
  resources: { render: (f, s = 'root') => String(f.stacks.find((x) => x.name === s)?.resources ?? '-'), tolerance: 0 },
  'resources-total': { render: (f) => String(sum(f.stacks.map((s) => s.resources))), tolerance: 0 },
  stacks: { render: (f) => String(f.stacks.length), tolerance: 0 },
  /** Resources of one CloudFormation type in all stacks: `count:AWS::SQS::Queue`. */
  count: { render: (f, type) => String(count(f, String(type))), tolerance: 0 },
  functions: { render: (f) => String(count(f, 'AWS::Lambda::Function')), tolerance: 0 },
  queues: { render: (f) => String(count(f, 'AWS::SQS::Queue')), tolerance: 0 },
  'queue-triggers': { render: (f) => String(count(f, 'AWS::Lambda::EventSourceMapping')), tolerance: 0 },
  routes: { render: (f) => String(routes(f)), tolerance: 0 },
  'http-routes': { render: (f) => String(routes(f, 'HTTP')), tolerance: 0 },
  'websocket-routes': { render: (f) => String(routes(f, 'WEBSOCKET')), tolerance: 0 },
  alarms: { render: (f) => String(count(f, 'AWS::CloudWatch::Alarm')), tolerance: 0 },
  'alarm-metrics': { render: (f) => String(alarmMetrics(f)), tolerance: 0 },
  /** What the alarms cost a month, in US dollars. */
  'alarm-cost': { render: (f) => `$${(alarmMetrics(f) * ALARM_METRIC_MONTHLY_USD).toFixed(2)}`, tolerance: 0 },
  /** One function's zip, MiB: `zipped:enginePdf`. */
  zipped: { render: (f, name) => megabytes(fn(f, name).zipped), tolerance: SIZE_TOLERANCE },
  unzipped: { render: (f, name) => megabytes(fn(f, name).unzipped), tolerance: SIZE_TOLERANCE },
  'zips-total': { render: (f) => megabytes(sum(f.functions.map((x) => x.zipped))), tolerance: SIZE_TOLERANCE },
  'engine-sizes': { render: sizeTable, tolerance: SIZE_TOLERANCE },
};

/** `figure:NAME` or `figure:NAME:ARG` … `/figure:…`, the same on both ends; not in a code span (an example). */
export const MARKED = /(?<!`)<!-- figure:([\w-]+)(?::([\w:-]+))? -->([\s\S]*?)<!-- \/figure:\1(?::\2)? -->/g;

/** Whether `said` is `truth` but for numbers within `tolerance` of truth's: the words and their order must be the same. */
export function sameFigure(said: string, truth: string, tolerance: number): boolean {
  const split = (text: string) => text.trim().split(/(\d[\d,]*(?:\.\d+)?)/);
  const [a, b] = [split(said), split(truth)];
  if (a.length !== b.length) return false;
  return a.every((part, i) => {
    if (i % 2 === 0) return part.replace(/\s+/g, ' ') === b[i]!.replace(/\s+/g, ' ');
    const [x, y] = [Number(part.replace(/,/g, '')), Number(b[i]!.replace(/,/g, ''))];
    return Math.abs(x - y) <= tolerance * Math.abs(y);
  });
}

export interface PageResult {
  checked: number;
  /** Figures that differ from the package (`--write` mends them). */
  wrong: string[];
  /** Markers that name no figure, or a figure the package cannot give (no such function). */
  problems: string[];
  /** The page with every figure rendered from the package. */
  written: string;
}

/** The marked figures of one page against the package. */
export function checkFigures(page: string, text: string, facts: PackageFacts): PageResult {
  const problems: string[] = [];
  const wrong: string[] = [];
  let checked = 0;
  const written = text.replace(MARKED, (whole, name: string, arg: string | undefined, said: string) => {
    const figure = FIGURES[name];
    const label = `${page}: figure:${name}${arg ? `:${arg}` : ''}`;
    if (!figure) {
      problems.push(`${label} is no figure of scripts/ci/check-doc-figures.ts (${Object.keys(FIGURES).join(', ')})`);
      return whole;
    }
    let truth: string;
    try {
      truth = figure.render(facts, arg);
    } catch (e) {
      problems.push(`${label}: ${(e as Error).message}`);
      return whole;
    }
    checked++;
    if (!sameFigure(said, truth, figure.tolerance)) wrong.push(`${label} says "${said.trim()}", the package "${truth.trim()}"`);
    const open = whole.slice(0, whole.indexOf('-->') + 3);
    return `${open}${truth}${whole.slice(open.length + said.length)}`;
  });
  return { checked, wrong, problems, written };
}

/** README.md and the Markdown pages under docs/. */
export function pagesUnder(root: string): string[] {
  const out = ['README.md'];
  const walk = (dir: string) => {
    for (const name of readdirSync(path.join(root, dir)).sort()) {
      const rel = path.posix.join(dir, name);
      if (statSync(path.join(root, rel)).isDirectory()) walk(rel);
      else if (name.endsWith('.md')) out.push(rel);
    }
  };
  walk('docs');
  return out;
}

async function main(args: string[]): Promise<number> {
  const write = args.includes('--write');
  const dir = args.find((a) => !a.startsWith('--')) ?? '.serverless';
  const facts = await packageFacts(dir);
  if (args.includes('--list')) {
    const named = Object.keys(FIGURES).filter((n) => !['count', 'zipped', 'unzipped', 'resources'].includes(n));
    for (const s of facts.stacks.slice(1)) console.log(`figure:resources:${s.name}  ${s.resources}`);
    for (const name of ['resources', ...named]) console.log(`figure:${name}  ${FIGURES[name]!.render(facts).trim().replace(/\n/g, '\n    ')}`);
    for (const f of facts.functions) console.log(`figure:zipped:${f.name}  ${megabytes(f.zipped)}   figure:unzipped:${f.name}  ${megabytes(f.unzipped)}`);
    return 0;
  }
  let checked = 0;
  const problems: string[] = [];
  const wrong: string[] = [];
  for (const page of pagesUnder('.')) {
    const text = await readFile(page, 'utf8');
    const result = checkFigures(page, text, facts);
    checked += result.checked;
    problems.push(...result.problems);
    wrong.push(...result.wrong);
    if (write && result.written !== text) await writeFile(page, result.written);
  }
  if (checked === 0) problems.push('no page marks a figure (<!-- figure:NAME -->…<!-- /figure:NAME -->): nothing was checked');
  console.log(`${checked} figure(s) of the docs against ${dir}${write ? `, ${wrong.length} rewritten from the package` : ''}`);
  for (const w of wrong) console.log(`${write ? 'WROTE' : 'FAIL'} ${w}`);
  for (const p of problems) console.log(`FAIL ${p}`);
  return problems.length || (wrong.length && !write) ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  process.exitCode = await main(process.argv.slice(2));
}
