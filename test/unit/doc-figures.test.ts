/**
 * Figures of the documentation that the source decides, against the source: every settings table's
 * default and every "`SETTING` (value)" of the prose against lib/kernel/config.ts's defaults, and the
 * figures named in CLAIMS (retry delays, log retention, a job's bounds…) against the constant or the
 * serverless.yml entry that sets them. Figures only the package knows are checked after packaging by
 * scripts/ci/check-doc-figures.ts (test/unit/doc-figures-package.test.ts); measurements carry the
 * command and date that produced them (docs/contributing/tests.md says where).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseConfig } from '../../lib/kernel/config.js';
import { backoff } from '../../lib/adapters/queue/consumer.js';
import { MAX_ARGUMENT_BYTES, MAX_TASKS_PER_JOB } from '../../lib/file-api/tasks/plan.js';
import { MAX_RESULT_BYTES } from '../../lib/file-api/tasks/runner.js';
import { INLINE_BODY_BYTES } from '../../lib/file-api/webhooks/events.js';
import { MAX_FRAME_BYTES } from '../../lib/file-api/events/protocol.js';
import { GRAPHQL_LIMITS } from '../../lib/graphql/creatures/yoga.js';
import { RECORDED_GRAPHQL_RPS } from '../../bench/goals.js';
import { MAX_FILTER_LENGTH, MAX_FILTER_WILDCARDS } from '../../lib/google/filter.js';
import { MAX_JSON_DEPTH } from '../../lib/http/middleware/json-body.js';
import { MAX_SANDBOX_FILES } from '../../lib/file-api/sandbox/files.js';
import { pagesUnder } from '../../scripts/ci/check-doc-figures.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (rel: string): string => readFileSync(path.join(ROOT, rel), 'utf8');
const pages = pagesUnder(ROOT).filter((p) => !p.startsWith('docs/_pending/'));

const REQUIRED = { STATE_TABLE: 't', FILES_BUCKET: 'b', IMPORT_QUEUE: 'i', PROCESS_QUEUE: 'p', EXPORT_QUEUE: 'e', OPERATIONS_QUEUE: 'o', WEBHOOKS_QUEUE: 'w' };
/** The local platform's own settings (ports), read from scripts/start.ts's text: importing it would start the platform. */
const LOCAL_DEFAULTS = Object.fromEntries(
  [...read('scripts/start.ts').matchAll(/fixed\('([A-Z0-9_]+)', (\d+)\)|process\.env\.([A-Z0-9_]+) \?\? (\d+)\)/g)].map((m) => [m[1] ?? m[3]!, Number(m[2] ?? m[4])]),
);
const DEFAULTS = { ...LOCAL_DEFAULTS, ...(parseConfig(REQUIRED) as unknown as Record<string, unknown>) };
const CONFIG_SOURCE = read('lib/kernel/config.ts');
/** Whether lib/kernel/config.ts or the local platform reads the setting (optional ones are absent from the parsed defaults). */
const isSetting = (name: string) => name in DEFAULTS || new RegExp(`^\\s+${name}:`, 'm').test(CONFIG_SOURCE);

const UNITS: Record<string, number> = { GiB: 2 ** 30, MiB: 2 ** 20, KiB: 2 ** 10, GB: 1e9, MB: 1e6, KB: 1e3, M: 1e6, k: 1e3 };
/** `5 MiB` → 5242880; `600` → 600; units of time are the setting's own (`885 s`). */
const quantities = (text: string): number[] =>
  [...text.matchAll(/(\d+(?:\.\d+)?)\s*(GiB|MiB|KiB|GB|MB|KB|M|k)?(?![\w])/g)].map((m) => Number(m[1]) * (m[2] ? UNITS[m[2]]! : 1));

/** Words a table writes for an empty default. */
const EMPTY_WORDS = /^(none|unset\b.*|off)$/;
const isEmpty = (v: unknown) => v === undefined || v === '' || v === false || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && Object.keys(v).length === 0);
const literal = (v: unknown) => (Array.isArray(v) ? v.join(',') : String(v));

export interface SettingFigures {
  /** `page: NAME = said` for each default compared. */
  checked: string[];
  wrong: string[];
}

/** The defaults a page's settings tables (`| \`NAME\` | default | … |`) give, against config.ts's. */
export function settingTables(page: string, text: string, defaults: Record<string, unknown>): SettingFigures {
  const out: SettingFigures = { checked: [], wrong: [] };
  for (const m of text.matchAll(/^\| ((?:`[A-Z][A-Z0-9_]+`(?:, )?)+) \| ([^|\n]+) \|/gm)) {
    const names = [...m[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((n) => n[1]!);
    if (!names.every(isSetting)) continue; // described, not a value (the data folder, the development key)
    const cell = m[2]!.replace(/\([^)]*\)/g, '').trim();
    const compare = (name: string, said: string, ok: boolean) => (ok ? out.checked : out.wrong).push(`${page}: ${name} = ${said} (config.ts: ${JSON.stringify(defaults[name])})`);
    const code = /^`([^`]+)`$/.exec(cell);
    if (code && names.length === 1 && !isEmpty(defaults[names[0]!])) compare(names[0]!, code[1]!, literal(defaults[names[0]!]) === code[1]);
    else if (EMPTY_WORDS.test(cell)) for (const name of names) compare(name, cell, isEmpty(defaults[name]));
    else if (!code && /^\d/.test(cell)) {
      const said = quantities(cell);
      if (said.length !== names.length) out.wrong.push(`${page}: ${names.join(', ')}: "${cell}" gives ${said.length} value(s) for ${names.length} setting(s)`);
      else names.forEach((name, i) => compare(name, String(said[i]), defaults[name] === said[i]));
    }
  }
  return out;
}

/** "`NAME` (value", "`NAME`, value" and "value (`NAME`" in prose, against config.ts's default. */
export function settingProse(page: string, text: string, defaults: Record<string, unknown>): SettingFigures {
  const out: SettingFigures = { checked: [], wrong: [] };
  const value = String.raw`(\d[\d.]*(?: ?(?:GiB|MiB|KiB|GB|MB|KB))?)`;
  const forms = [new RegExp(String.raw`\`([A-Z][A-Z0-9_]{3,})\`(?: \(|, )${value}(?![\d\w])`, 'g'), new RegExp(String.raw`${value}(?: s)? \(\`([A-Z][A-Z0-9_]{3,})\``, 'g')];
  for (const [i, form] of forms.entries()) {
    for (const m of text.replace(/\s+/g, ' ').matchAll(form)) {
      const [name, said] = i === 0 ? [m[1]!, m[2]!] : [m[2]!, m[1]!];
      if (!isSetting(name)) continue;
      (defaults[name] === quantities(said)[0] ? out.checked : out.wrong).push(`${page}: ${name} = ${said} (config.ts: ${JSON.stringify(defaults[name])})`);
    }
  }
  return out;
}

const yml = parse(read('serverless.yml')) as {
  provider: { logRetentionInDays: number };
  functions: Record<string, { events?: { schedule?: string }[] }>;
  resources: { Resources: Record<string, { Properties: { RedrivePolicy?: { maxReceiveCount: number } } }> };
};
/** `${env:SWEEP_RATE, 'rate(5 minutes)'}` → 5. */
const sweepMinutes = () => Number(/rate\((\d+) minutes?\)/.exec(String(yml.functions.sweeper!.events!.find((e) => e.schedule)!.schedule))![1]);

/** A figure of one page, read by `pattern`'s groups, and what the source says it is. */
interface Claim {
  page: string;
  pattern: RegExp;
  truth: () => number[];
}

export const CLAIMS: Record<string, Claim> = {
  "the README's local address (scripts/start.ts, PORT)": { page: 'README.md', pattern: /the whole platform on http:\/\/localhost:(\d+)/, truth: () => [LOCAL_DEFAULTS.PORT!] },
  'retry delays (lib/adapters/queue/consumer.ts backoff)': {
    page: 'docs/using/file-api.md',
    pattern: /come again after (\d+) s, (\d+) s, (\d+) s, (\d+) s/,
    truth: () => [1, 2, 3, 4].map(backoff),
  },
  "deliveries before the dead-letter queue (serverless.yml's maxReceiveCount)": {
    page: 'docs/using/file-api.md',
    pattern: /after (\d+) deliveries the dead-letter consumer/,
    truth: () => [yml.resources.Resources.ImportQueue!.Properties.RedrivePolicy!.maxReceiveCount],
  },
  "the sweeper's schedule (serverless.yml)": { page: 'docs/using/file-api.md', pattern: /A sweeper \(every (\d+) minutes in the cloud/, truth: () => [sweepMinutes()] },
  'log retention (provider.logRetentionInDays)': {
    page: 'docs/operating/costs-and-limits.md',
    pattern: /logs for (\d+) days/,
    truth: () => [yml.provider.logRetentionInDays],
  },
  "a job's bounds (lib/file-api/tasks/plan.ts, runner.ts)": {
    page: 'docs/operating/costs-and-limits.md',
    pattern: /a job holds at most (\d+) tasks, a task's arguments at most (\d+) KiB of JSON, its result \(file list, metadata\) at most (\d+) KiB/,
    truth: () => [MAX_TASKS_PER_JOB, MAX_ARGUMENT_BYTES / 1024, MAX_RESULT_BYTES / 1024],
  },
  'webhook bodies through the bucket (lib/file-api/webhooks/events.ts)': {
    page: 'docs/operating/costs-and-limits.md',
    pattern: /a webhook body larger than (\d+) KiB travels through the bucket/,
    truth: () => [INLINE_BODY_BYTES / 1024],
  },
  'socket frames (lib/file-api/events/protocol.ts)': { page: 'docs/using/events.md', pattern: /\*(\d+) KB per frame\*/, truth: () => [MAX_FRAME_BYTES / 1024] },
  "a GraphQL batch's cost budget (lib/graphql/creatures/yoga.ts)": {
    page: 'docs/using/graphql.md',
    pattern: /the limit of a single operation \(([\d,]+)\).*? exceeds the limit of (\d+) for one request/,
    truth: () => [GRAPHQL_LIMITS.maxCost, GRAPHQL_LIMITS.maxCost],
  },
  "the GraphQL batch's size (GRAPHQL_BATCH_LIMIT)": {
    page: 'docs/using/graphql.md',
    pattern: /At most `GRAPHQL_BATCH_LIMIT` operations \((\d+)\); more is refused whole with `413` "Batching is limited to (\d+) operations/,
    truth: () => [DEFAULTS.GRAPHQL_BATCH_LIMIT as number, DEFAULTS.GRAPHQL_BATCH_LIMIT as number],
  },
  "the sockets' ping (SOCKET_PING_SECONDS, SOCKET_PING_TIMEOUT_SECONDS)": {
    page: 'docs/using/events.md',
    pattern: /announces a (\d+) s interval and (\d+) s timeout/,
    truth: () => [DEFAULTS.SOCKET_PING_SECONDS as number, DEFAULTS.SOCKET_PING_TIMEOUT_SECONDS as number],
  },
  'request bounds (lib/http/middleware/json-body.ts, lib/google/filter.ts)': {
    page: 'docs/security.md',
    pattern: /and (\d+) levels deep; Google filters (\d+) characters and (\d+) `\*`/,
    truth: () => [MAX_JSON_DEPTH, MAX_FILTER_LENGTH, MAX_FILTER_WILDCARDS],
  },
  "the sandbox's list (lib/file-api/sandbox/files.ts)": { page: 'docs/using/sandbox-and-regions.md', pattern: /A list holds at most (\d+) MD5s/, truth: () => [MAX_SANDBOX_FILES] },
  'the recorded GraphQL figure (bench/goals.ts)': {
    page: 'docs/contributing/benchmarks.md',
    pattern: /the figure recorded when the goal was set \((\d+) req\/s\)/,
    truth: () => [RECORDED_GRAPHQL_RPS],
  },
};

/** What `claim` reads in `text` (whitespace folded, so a figure may wrap), or undefined when the page no longer says it. */
export const said = (claim: Claim, text: string): number[] | undefined => claim.pattern.exec(text.replace(/\s+/g, ' '))?.slice(1).map((n) => Number(n.replace(/,/g, '')));

describe('settings figures against lib/kernel/config.ts', () => {
  const all = pages.map((p) => [settingTables(p, read(p), DEFAULTS), settingProse(p, read(p), DEFAULTS)] as const);

  it("every settings table's default is config.ts's", () => {
    const tables = all.map(([t]) => t);
    expect(tables.flatMap((t) => t.wrong)).toEqual([]);
    expect(tables.flatMap((t) => t.checked).length, 'defaults compared').toBeGreaterThan(40);
    expect(Object.keys(LOCAL_DEFAULTS).sort()).toEqual(['DYNAMODB_PORT', 'LAMBDA_PORT', 'PORT', 'S3_PORT', 'SQS_PORT', 'WEBSOCKET_PORT']);
  });

  it('every "`SETTING` (value)" of the prose is its default', () => {
    const prose = all.map(([, p]) => p);
    expect(prose.flatMap((p) => p.wrong)).toEqual([]);
    expect(prose.flatMap((p) => p.checked).length, 'prose figures compared').toBeGreaterThan(10);
  });

  it('sees a changed default fail, in a table and in prose', () => {
    const table = '| `RATE_LIMIT`, `RATE_LIMIT_WINDOW_SECONDS` | 600 per 60 s | x |\n| `TASK_MAX_OUTPUT_BYTES` | 512 MiB | x |\n| `ENGINES_DISABLED` | none | x |\n| `REGIONS` | `eu-central,us-east` | x |\n';
    expect(settingTables('p', table, DEFAULTS).wrong).toEqual([]);
    expect(settingTables('p', table, DEFAULTS).checked).toHaveLength(5);
    for (const [from, to, name] of [['600 per', '6000 per', 'RATE_LIMIT'], ['512 MiB', '256 MiB', 'TASK_MAX_OUTPUT_BYTES'], ['512 MiB', 'none', 'TASK_MAX_OUTPUT_BYTES'], ['us-east`', 'us-west`', 'REGIONS']] as const) {
      expect(settingTables('p', table.replace(from, to), DEFAULTS).wrong.join(), name).toContain(name);
    }
    expect(settingTables('p', table.replace('600 per 60 s', '600'), DEFAULTS).wrong.join()).toContain('gives 1 value(s) for 2 setting(s)');
    const prose = 'runs at most `TASK_MAX_SECONDS` (885 s); bodies up to `MAX_BODY_BYTES`, 5 MiB; at most 25 s (`SYNC_MAX_WAIT_SECONDS`)';
    expect(settingProse('p', prose, DEFAULTS)).toMatchObject({ wrong: [] });
    expect(settingProse('p', prose, DEFAULTS).checked).toHaveLength(3);
    expect(settingProse('p', prose.replace('885 s', '900 s'), DEFAULTS).wrong.join()).toContain('TASK_MAX_SECONDS = 900');
    expect(settingProse('p', prose.replace('5 MiB', '6 MiB'), DEFAULTS).wrong.join()).toContain('MAX_BODY_BYTES = 6 MiB');
    expect(settingProse('p', prose.replace('25 s (', '20 s ('), DEFAULTS).wrong.join()).toContain('SYNC_MAX_WAIT_SECONDS = 20');
  });
});

describe('figures the source decides', () => {
  it.each(Object.entries(CLAIMS))('%s', (_, claim) => {
    const figures = said(claim, read(claim.page));
    expect(figures, `${claim.page} no longer says ${String(claim.pattern)}: change the claim with the page`).toBeDefined();
    expect(figures).toEqual(claim.truth());
  });

  it('sees a changed figure fail', () => {
    for (const claim of Object.values(CLAIMS)) {
      const text = read(claim.page).replace(/\s+/g, ' ');
      const match = claim.pattern.exec(text)!;
      const changed = text.replace(match[0], match[0].replace(match[1]!, `${Number(match[1]!.replace(/,/g, '')) + 1}`));
      expect(said(claim, changed), claim.page).not.toEqual(claim.truth());
    }
  });
});

/** A measured figure's mark: "measured <date> with `<command>`" (docs/contributing/tests.md). */
const MARK = /measured (\d{4}-\d{2}-\d{2}) with `([^`]+)`/gi;
const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts);
const benchSections = [...read('bench/run.ts').matchAll(/wanted\('(\w+)'\)/g)].map((m) => m[1]!);

/** Why `command` cannot regenerate a figure (a script, bench section or test file that is not there), or undefined. */
export function unrunnable(command: string): string | undefined {
  const env = [...command.matchAll(/(?:^|\s)([A-Z_]+)=(\S*)/g)];
  const rest = command.replace(/(?:^|\s)[A-Z_]+=\S*/g, '').trim();
  const only = env.find((e) => e[1] === 'BENCH_ONLY')?.[2]?.split(',') ?? [];
  const missing = only.filter((s) => !benchSections.includes(s));
  if (missing.length) return `no bench section ${missing.join(', ')} (bench/run.ts)`;
  const npm = /^npm (?:run (?:-s )?)?([\w:-]+)/.exec(rest);
  if (npm) return npm[1] === 'test' || npm[1] === 'start' || scripts.includes(npm[1]!) ? undefined : `no npm script ${npm[1]}`;
  const vitest = /^npx vitest run ([\w./-]+)$/.exec(rest);
  if (vitest) return existsSync(path.join(ROOT, vitest[1]!)) ? undefined : `no file ${vitest[1]}`;
  return `"${rest}" is neither an npm script nor \`npx vitest run <file>\``;
}

describe('measured figures', () => {
  const marks = pages.flatMap((p) => [...read(p).replace(/\s+/g, ' ').matchAll(MARK)].map((m) => ({ page: p, date: m[1]!, command: m[2]! })));

  it('name a date and a command that can measure them again', () => {
    expect(marks.length, 'marked measurements').toBeGreaterThanOrEqual(5);
    for (const { page, date, command } of marks) {
      expect(Number.isNaN(Date.parse(date)) || Date.parse(date) > Date.now(), `${page}: ${date}`).toBe(false);
      expect(unrunnable(command), `${page}: ${command}`).toBeUndefined();
    }
  });

  it('sees a mark whose command is gone fail', () => {
    expect(unrunnable('BENCH_ONLY=graphql npm run bench')).toBeUndefined();
    expect(unrunnable('BENCH_ONLY=ocr npm run bench')).toContain('no bench section ocr');
    expect(unrunnable('npm run ci:gone')).toContain('no npm script ci:gone');
    expect(unrunnable('npx vitest run test/security/sign-in-throttle.test.ts')).toBeUndefined();
    expect(unrunnable('npx vitest run test/security/gone.test.ts')).toContain('no file');
    expect(unrunnable('curl localhost')).toContain('neither');
  });
});
