/**
 * Benchmark pieces for the creature GraphQL API, for bench/run.ts to combine:
 *
 * - `graphqlScenario()`: the request "all 150 creatures with attacks and evolutions" and a check of
 *   its response; send it to serverless-offline (`POST <baseUrl>/graphql`) and to the bare server.
 * - `startBareGraphqlServer()`: `node:http` around a yoga instance built exactly like the Lambda's
 *   (the baseline: no gateway emulation, no Lambda adapter).
 * - `measureHandlerColdImport()`: bundles functions/graphql/handler.ts with esbuild the way
 *   serverless-esbuild does, then imports it in fresh Node processes and times the import and the
 *   first invocation (the creatures query). Run alone (`npx tsx bench/graphql.ts`); `npm run bench`
 *   measures every HTTP function's packaged artifact instead (cold-start.ts).
 */
import { execFile, spawn } from 'node:child_process';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { createCreatureYoga, type CreatureYogaOptions } from '#lib/graphql/creatures/yoga.js';
import { createLogger } from '#lib/kernel/log.js';
import type { StateStore } from '#lib/adapters/state/port.js';
import { measure, type Result } from './measure.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));

export const CREATURES_BENCH_QUERY = `query AllCreatures {
  creatures {
    id number name types
    attacks {
      fast { name type damage }
      special { name type damage }
    }
    evolutions { id number name }
  }
}`;

export interface GraphqlScenario {
  name: string;
  method: 'POST';
  path: '/graphql';
  headers: Record<string, string>;
  /** The JSON request body. */
  body: string;
  query: string;
  /** True when a response body is the full, error-free answer (150 creatures with attacks). */
  check(responseText: string): boolean;
}

export async function graphqlScenario(): Promise<GraphqlScenario> {
  return {
    name: 'POST /graphql: all 150 creatures with attacks and evolutions',
    method: 'POST',
    path: '/graphql',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query: CREATURES_BENCH_QUERY, operationName: 'AllCreatures' }),
    query: CREATURES_BENCH_QUERY,
    check(responseText) {
      try {
        const parsed = JSON.parse(responseText) as {
          errors?: unknown;
          data?: { creatures?: Array<{ attacks?: { fast?: unknown[]; special?: unknown[] }; evolutions?: unknown[] }> };
        };
        const creatures = parsed.data?.creatures;
        return (
          !parsed.errors &&
          creatures?.length === 150 &&
          creatures.every((c) => (c.attacks?.fast?.length ?? 0) > 0 && (c.attacks?.special?.length ?? 0) > 0 && Array.isArray(c.evolutions))
        );
      } catch {
        return false;
      }
    },
  };
}

/** The creatures query never touches the store; messages would need a real one. */
const unusedStore = new Proxy({} as StateStore, {
  get: () => () => Promise.reject(new Error('the benchmark server has no state store')),
});

/** The yoga configurations the benchmark compares, each on bare `node:http`. */
export const GRAPHQL_VARIANTS = {
  /** yoga with nothing kept between requests. */
  plain: () => ({ responseCache: false, parseCache: false }),
  /** yoga's defaults: parsed and validated documents kept (the function's configuration before the response cache). */
  parseCache: () => ({ responseCache: false }),
  /** …and each operation compiled by graphql-jit. */
  jit: () => ({ responseCache: false, execution: useGraphQlJit() }),
  /** …and the response cache instead: the function's configuration. */
  deployed: () => ({}),
  /** Both. */
  cacheAndJit: () => ({ execution: useGraphQlJit() }),
} satisfies Record<string, () => Pick<CreatureYogaOptions, 'responseCache' | 'execution' | 'parseCache'>>;
export type GraphqlVariant = keyof typeof GRAPHQL_VARIANTS;

/** `node:http` around a yoga instance configured like the Lambda's (or as `variant` says), on a free port. */
export async function startBareGraphqlServer(
  opts: { store?: StateStore; variant?: GraphqlVariant } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const yoga = createCreatureYoga({
    store: opts.store ?? unusedStore,
    logger: createLogger({}, { level: 'warn' }),
    ...GRAPHQL_VARIANTS[opts.variant ?? 'deployed'](),
  });
  const server = createServer(yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Every variant's bare server in a process of its own, as serverless-offline runs in its own: a
 * server sharing the load generator's event loop would be slowed by it, and the comparison with
 * serverless-offline would flatter the gateway emulation.
 */
export async function startBareGraphqlServers(): Promise<{ urls: Record<GraphqlVariant, string>; close(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--serve'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const close = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
      });
      child.once('exit', (code) => reject(new Error(`the bare GraphQL servers exited with code ${code}`)));
    });
    return { urls: JSON.parse(line) as Record<GraphqlVariant, string>, close };
  } catch (err) {
    await close();
    throw err;
  }
}

export interface ColdImportResult {
  /** Size of the bundled handler, bytes. */
  bundleBytes: number;
  runs: number;
  /** `await import(bundle)` in a fresh process, ms. */
  importMs: { median: number; min: number; max: number };
  /** The first invocation after that (the creatures query), ms. */
  firstInvokeMs: { median: number; min: number; max: number };
}

const stats = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)] ?? NaN, min: sorted[0] ?? NaN, max: sorted.at(-1) ?? NaN };
};

/**
 * Bundles the handler (or takes `bundle`, e.g. serverless-esbuild's output) and times its cold import
 * and first invocation in `runs` fresh Node processes.
 */
export async function measureHandlerColdImport(
  opts: {
    runs?: number;
    /** An existing bundle to measure instead of building one. */
    bundle?: string;
    /** Packages to leave out of the bundle (serverless-esbuild's `external`). */
    external?: string[];
  } = {},
): Promise<ColdImportResult> {
  const runs = opts.runs ?? 5;
  const coldCacheDir = path.join(root, 'node_modules', '.cache', `graphql-cold-${process.pid}`);
  const dir = mkdtempSync(path.join(tmpdir(), 'graphql-cold-'));
  try {
    let bundle = opts.bundle;
    if (!bundle) {
      const esbuild = await import('esbuild');
      bundle = path.join(dir, 'handler.mjs');
      // Externals are imported from this repository's node_modules at run time, so the bundle must sit below it.
      if (opts.external?.length) bundle = path.join(coldCacheDir, 'handler.mjs');
      await esbuild.build({
        entryPoints: [path.join(root, 'functions/graphql/handler.ts')],
        outfile: bundle,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        logLevel: 'silent',
        external: opts.external ?? [],
        banner: { js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);" },
      });
    }
    const scenario = await graphqlScenario();
    const probe = path.join(dir, 'probe.mjs');
    writeFileSync(
      probe,
      `const t0 = performance.now();
const { handler } = await import(${JSON.stringify(pathToFileURL(bundle).href)});
const t1 = performance.now();
const res = await handler({
  version: '2.0', routeKey: 'POST /graphql', rawPath: '/graphql', rawQueryString: '',
  headers: ${JSON.stringify({ host: 'localhost', ...scenario.headers })},
  requestContext: { domainName: 'localhost', http: { method: 'POST', path: '/graphql' }, stage: '$default' },
  body: ${JSON.stringify(scenario.body)}, isBase64Encoded: false,
}, {});
const t2 = performance.now();
if (res.statusCode !== 200) throw new Error('first invocation answered ' + res.statusCode + ': ' + res.body);
console.log(JSON.stringify({ importMs: t1 - t0, firstInvokeMs: t2 - t1 }));
`,
    );
    // The handler reads its configuration lazily; give it a complete, harmless one.
    const env = {
      PATH: process.env.PATH ?? '',
      STATE_TABLE: 'bench',
      FILES_BUCKET: 'bench',
      IMPORT_QUEUE: 'bench',
      PROCESS_QUEUE: 'bench',
      EXPORT_QUEUE: 'bench',
      OPERATIONS_QUEUE: 'bench',
      WEBHOOKS_QUEUE: 'bench',
      LOG_LEVEL: 'warn',
      AWS_REGION: 'us-east-1',
    };
    const imports: number[] = [];
    const invokes: number[] = [];
    for (let i = 0; i < runs; i++) {
      const { stdout } = await run(process.execPath, [probe], { env, cwd: dir });
      const line = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { importMs: number; firstInvokeMs: number };
      imports.push(line.importMs);
      invokes.push(line.firstInvokeMs);
    }
    return { bundleBytes: statSync(bundle).size, runs, importMs: stats(imports), firstInvokeMs: stats(invokes) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (opts.external?.length) rmSync(coldCacheDir, { recursive: true, force: true });
  }
}

export interface GraphqlThroughputResult {
  rows: Result[];
  ratios: string[];
  /** The function through serverless-offline. */
  offline: Result;
  /** The same yoga (the deployed configuration) on bare node:http: the offline figure's baseline. */
  bare: Result;
}

/**
 * `a` and `b` measured in alternating rounds (a, b, then b, a, …), `requests` each in all: on a shared
 * machine whose load drifts over the seconds a measurement takes, two figures taken one after the other
 * compare the load as much as the servers; taken in turns, both see the same load. Each row: all its
 * rounds' requests over all their time, the median of the rounds' p50 and p99.
 */
async function interleaved(
  a: { name: string; once: () => Promise<void> },
  b: { name: string; once: () => Promise<void> },
  opts: { requests: number; concurrency: number; rounds: number },
): Promise<[Result, Result]> {
  const perRound = Math.max(opts.concurrency, Math.floor(opts.requests / opts.rounds));
  const runs: Record<'a' | 'b', Result[]> = { a: [], b: [] };
  const sides = { a, b };
  for (const side of ['a', 'b'] as const) for (let i = 0; i < 20; i++) await sides[side].once();
  for (let round = 0; round < opts.rounds; round++) {
    for (const side of round % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const)) {
      runs[side].push(await measure(sides[side].name, sides[side].once, { requests: perRound, concurrency: opts.concurrency, warmup: 0 }));
    }
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? NaN;
  const combine = (name: string, rs: Result[]): Result => {
    const requests = rs.reduce((n, r) => n + r.requests, 0);
    const seconds = rs.reduce((n, r) => n + r.seconds, 0);
    return { name, requests, seconds, rps: requests / seconds, p50: median(rs.map((r) => r.p50)), p99: median(rs.map((r) => r.p99)) };
  };
  return [combine(a.name, runs.a), combine(b.name, runs.b)];
}

/**
 * The full-catalogue query on every bare variant and through serverless-offline (the deployed
 * configuration), with the ratios the performance goals name. The deployed configuration on bare
 * `node:http` and serverless-offline, whose ratio is a goal, are measured in alternating rounds
 * (BENCH_GRAPHQL_ROUNDS, default 6); the other variants one after the other.
 */
export async function graphqlThroughput(
  baseUrl: string,
  opts: { requests: number; concurrency: number; rounds?: number },
): Promise<GraphqlThroughputResult> {
  const scenario = await graphqlScenario();
  const post = (base: string) => async () => {
    const res = await fetch(`${base}${scenario.path}`, { method: 'POST', headers: scenario.headers, body: scenario.body });
    const text = await res.text();
    if (!scenario.check(text)) throw new Error(`bad GraphQL answer from ${base}: ${text.slice(0, 200)}`);
  };
  const rounds = opts.rounds ?? 6;
  const bare = await startBareGraphqlServers();
  const rows: Result[] = [];
  const by = {} as Record<GraphqlVariant | 'offline', Result>;
  try {
    for (const variant of Object.keys(GRAPHQL_VARIANTS) as GraphqlVariant[]) {
      if (variant === 'deployed') continue;
      by[variant] = await measure(`POST /graphql all creatures, bare node:http, ${VARIANT_NAMES[variant]}`, post(bare.urls[variant]), opts);
    }
    [by.deployed, by.offline] = await interleaved(
      { name: `POST /graphql all creatures, bare node:http, ${VARIANT_NAMES.deployed}`, once: post(bare.urls.deployed) },
      { name: `POST /graphql all creatures, serverless-offline (${VARIANT_NAMES.deployed})`, once: post(baseUrl) },
      { ...opts, rounds },
    );
  } finally {
    await bare.close();
  }
  rows.push(...(Object.keys(GRAPHQL_VARIANTS) as GraphqlVariant[]).map((v) => by[v]), by.offline);
  const x = (a: Result, b: Result) => `${(a.rps / b.rps).toFixed(2)}x`;
  const ratios = [
    `graphql, bare: parse/validate cache ${x(by.parseCache, by.plain)} of none; + graphql-jit ${x(by.jit, by.parseCache)}; ` +
      `+ response cache ${x(by.deployed, by.parseCache)}; both ${x(by.cacheAndJit, by.parseCache)} (req/s against yoga's defaults)`,
    `graphql: serverless-offline reaches ${((by.offline.rps / by.deployed.rps) * 100).toFixed(1)}% of the same yoga on bare node:http ` +
      `(goal >= 80%; p99 ${(by.offline.p99 / by.deployed.p99).toFixed(2)}x; measured in ${rounds} alternating rounds)`,
    `graphql: serverless-offline now answers ${x(by.offline, by.parseCache)} the req/s of the earlier configuration on bare node:http ` +
      `(goal >= 3x the earlier serverless-offline figure, which was below its bare one)`,
  ];
  return { rows, ratios, offline: by.offline, bare: by.deployed };
}

const VARIANT_NAMES: Record<GraphqlVariant, string> = {
  plain: 'no caches',
  parseCache: 'parse/validate cache (yoga default)',
  jit: 'parse/validate cache + graphql-jit',
  deployed: 'parse/validate cache + response cache (deployed)',
  cacheAndJit: 'parse/validate cache + response cache + graphql-jit',
};

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]);

if (isMain && process.argv[2] === '--serve') {
  // The child of startBareGraphqlServers: one server per variant, their URLs on the first line.
  const servers = await Promise.all(
    (Object.keys(GRAPHQL_VARIANTS) as GraphqlVariant[]).map(async (variant) => [variant, (await startBareGraphqlServer({ variant })).url]),
  );
  process.stdout.write(`${JSON.stringify(Object.fromEntries(servers))}\n`);
  process.once('SIGTERM', () => process.exit(0));
} else if (isMain) {
  // `npx tsx bench/graphql.ts`: the cold-import figures on their own.
  console.log('bundled as serverless-esbuild does by default:');
  console.log(JSON.stringify(await measureHandlerColdImport(), null, 2));
  console.log('with external: ["@graphql-yoga/render-graphiql"] (the explorer assets loaded from node_modules on first use):');
  console.log(JSON.stringify(await measureHandlerColdImport({ external: ['@graphql-yoga/render-graphiql'] }), null, 2));
}
