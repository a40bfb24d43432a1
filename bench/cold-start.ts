/**
 * Cold import of every HTTP function as Lambda loads it: each function's packaged zip
 * (.serverless/<function>.zip) unzipped into an empty folder outside the repository, its handler bundle
 * required in a fresh `node` with the template's environment (NODE_OPTIONS included), timed from
 * inside that process (wall clock and CPU), median of BENCH_COLD_RUNS (3) runs. Runs
 * `serverless package` first when .serverless is missing or older than the sources, and says so.
 *
 *   npm run bench (one section of it), or alone: tsx bench/cold-start.ts
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { checkTemplate, type FunctionRow, type Template } from '../scripts/ci/check-template.js';
import { extractZip } from '../scripts/ci/zip.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const TEMPLATE = 'cloudformation-template-update-stack.json';

/** The newest modification time below the given paths (files or folders). */
function newest(paths: string[]): number {
  let latest = 0;
  const visit = (p: string) => {
    if (!existsSync(p)) return;
    const s = statSync(p);
    if (s.isDirectory()) {
      for (const name of readdirSync(p)) visit(path.join(p, name));
    } else {
      latest = Math.max(latest, s.mtimeMs);
    }
  };
  paths.forEach(visit);
  return latest;
}

/** Makes sure `dir` holds a package of the current sources; returns why it was (re)built, if it was. */
export async function ensurePackage(dir = path.join(root, '.serverless')): Promise<string | undefined> {
  const template = path.join(dir, TEMPLATE);
  const sources = ['functions', 'lib', 'serverless.yml', 'package-lock.json', 'scripts/serverless-graphiql-assets.cjs'].map((p) => path.join(root, p));
  const reason = !existsSync(template)
    ? `${path.relative(root, dir)} is missing`
    : newest(sources) > statSync(template).mtimeMs
      ? `${path.relative(root, dir)} is older than the sources`
      : undefined;
  if (!reason) return undefined;
  const require = createRequire(import.meta.url);
  const serverless = require.resolve('serverless/bin/serverless.js', { paths: [root] });
  await run(process.execPath, [serverless, 'package', ...(path.resolve(dir) === path.join(root, '.serverless') ? [] : ['--package', dir])], {
    cwd: root,
    env: { ...process.env, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off' },
    maxBuffer: 64 * 1024 * 1024,
  });
  return reason;
}

/** Unzips a function's artifact into a new folder outside the repository (no node_modules above it). */
async function unzipTo(zip: string): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'cold-start-'));
  await extractZip(zip, dir);
  return dir;
}

/** The function's environment as Lambda would set it: the template's plain values, placeholders for references. */
function lambdaEnvironment(fn: { name: string; environment: Record<string, unknown> }, dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, LAMBDA_TASK_ROOT: dir, AWS_LAMBDA_FUNCTION_NAME: fn.name };
  for (const [name, value] of Object.entries(fn.environment)) env[name] = typeof value === 'string' ? value : `bench-${name.toLowerCase()}`;
  Object.assign(env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_SESSION_TOKEN: 'bench',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
  return env;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? NaN;

export interface ColdStart extends FunctionRow {
  importMs: number;
  importCpuMs: number;
  nodeOptions: string;
}

/** Times the handler import of every HTTP function of a package folder. */
export async function measureColdStarts(opts: { dir?: string; runs?: number; only?: (name: string) => boolean } = {}): Promise<ColdStart[]> {
  const dir = opts.dir ?? path.join(root, '.serverless');
  const runs = opts.runs ?? Number(process.env.BENCH_COLD_RUNS ?? 3);
  const template = JSON.parse(readFileSync(path.join(dir, TEMPLATE), 'utf8')) as Template;
  const { functions } = await checkTemplate(template, dir);
  const out: ColdStart[] = [];
  for (const fn of functions.filter((f) => f.http && f.zip && f.bundleName && (opts.only?.(f.name) ?? true))) {
    const folder = await unzipTo(fn.zip!);
    try {
      const env = lambdaEnvironment(fn, folder);
      const script =
        'const w = process.hrtime.bigint(), c = process.cpuUsage();' +
        `const m = require(${JSON.stringify(path.join(folder, fn.bundleName!))});` +
        "if (typeof m.handler !== 'function') throw new Error('no handler export');" +
        'const d = process.cpuUsage(c);' +
        'console.log(JSON.stringify({ wall: Number(process.hrtime.bigint() - w) / 1e6, cpu: (d.user + d.system) / 1e3 }));';
      const walls: number[] = [];
      const cpus: number[] = [];
      for (let i = 0; i < runs; i++) {
        const { stdout } = await run(process.execPath, ['-e', script], { cwd: folder, env });
        const t = JSON.parse(stdout.trim().split('\n').pop()!) as { wall: number; cpu: number };
        walls.push(t.wall);
        cpus.push(t.cpu);
      }
      out.push({ ...fn, importMs: median(walls), importCpuMs: median(cpus), nodeOptions: String(env.NODE_OPTIONS ?? '') });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }
  return out;
}

export function coldStartTable(rows: ColdStart[]): string {
  const mb = (b: number | undefined) => (b === undefined ? '-' : (b / 1e6).toFixed(2));
  const head = ['HTTP function', 'zip MB', 'unzipped MB', 'bundle MB', 'import ms', 'import CPU ms'];
  const body = rows.map((r) => [r.name, mb(r.zipped), mb(r.unzipped), mb(r.bundle), r.importMs.toFixed(0), r.importCpuMs.toFixed(0)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), ...body.map(line)].join('\n');
}

/** The section `npm run bench` prints: packages when needed, then one row per HTTP function. */
export async function coldStartReport(): Promise<string> {
  const rebuilt = await ensurePackage();
  const rows = await measureColdStarts();
  const runs = Number(process.env.BENCH_COLD_RUNS ?? 3);
  const options = [...new Set(rows.map((r) => r.nodeOptions))].join(', ') || 'none';
  return [
    '',
    rebuilt ? `cold starts: ran \`serverless package\` first (${rebuilt})` : 'cold starts: measured on the existing .serverless package',
    `handler require() in a fresh node ${process.version} per run, median of ${runs}, unzipped artifact only (NODE_OPTIONS: ${options}):`,
    coldStartTable(rows),
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  console.log(await coldStartReport());
}
