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
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { createCreatureYoga } from '#lib/creatures/yoga.js';
import { createLogger } from '#lib/log.js';
import type { StateStore } from '#lib/state/port.js';

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

/** `node:http` around a yoga instance configured like the Lambda's, on a free port. */
export async function startBareGraphqlServer(opts: { store?: StateStore } = {}): Promise<{ url: string; close(): Promise<void> }> {
  const yoga = createCreatureYoga({ store: opts.store ?? unusedStore, logger: createLogger({}, { level: 'warn' }) });
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

/** `npx tsx bench/graphql.ts`: the cold-import figures on their own. */
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  console.log('bundled as serverless-esbuild does by default:');
  console.log(JSON.stringify(await measureHandlerColdImport(), null, 2));
  console.log('with external: ["@graphql-yoga/render-graphiql"] (the explorer assets loaded from node_modules on first use):');
  console.log(JSON.stringify(await measureHandlerColdImport({ external: ['@graphql-yoga/render-graphiql'] }), null, 2));
}
