/**
 * `npm run bench`: each scenario is measured through serverless-offline (the gateway emulation,
 * as clients see it) and against a bare baseline in the same run, and reported as a ratio.
 * Numbers depend on the machine; the ratios are what to compare between runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmulator } from '../local/emulator.js';
import { call } from '../test/support/lambda.js';
import { coldStartReport } from './cold-start.js';
import { consoleBench } from './console.js';
import { familyConversions } from './convert-families.js';
import { discoveryScenario } from './discovery.js';
import { engineScenarios, startBenchSite } from './engines.js';
import { fontRatios } from './fonts.js';
import { callGoals, engineGoals, goalLines, graphqlGoals, largeFileGoals, pipelineGoals, type Goal } from './goals.js';
import { graphqlThroughput } from './graphql.js';
import { hopBreakdown, hopTracing } from './hops.js';
import { callsPerJob } from './calls-per-job.js';
import { largeFileRun } from './large-file.js';
import { liveEventScenario } from './live-events.js';
import { measure, table, type Result } from './measure.js';
import { optimizeSizes } from './optimize.js';
import { officeBench } from './office.js';
import { pipelineScenarios } from './pipeline.js';
import { shippedEngineRatios } from './shipped-engines.js';
import { throughputScenario } from './throughput.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
/**
 * BENCH_ONLY=graphql,pipeline (comma-separated) runs just those sections: users, graphql, cold,
 * hops (with calls per job), pipeline, throughput (small jobs at 1, 8 and 32 concurrent clients), live, engines, shipped,
 * large, discovery (GET /v2/convert/formats), families (one conversion per format family against its engine run bare),
 * optimize (PDF optimize's sizes per profile), office (warm LibreOffice against bare soffice, and a soak),
 * console (the browser console's bundle and cold first load against the account page).
 * Unset: all of them. The goals of issue 17 whose sections ran are summed up at the end.
 */
const ONLY = new Set((process.env.BENCH_ONLY ?? '').split(',').map((s) => s.trim()).filter(Boolean));
const wanted = (section: string) => ONLY.size === 0 || ONLY.has(section);

const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-'));
// The page capture-website benchmarks; the platform may reach its host.
const benchSite = await startBenchSite();
// The functions' calls to the backends are recorded for the hop breakdown (bench/hops.ts).
const traceFile = path.join(dataDir, 'calls.jsonl');
const tracing = hopTracing(traceFile);
const platform = await startEmulator({
  dataDir,
  output: 'ignore',
  // BENCH_FUNCTIONS_NODE_ARGS (space-separated), e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, to profile the functions.
  nodeArgs: [...(tracing.nodeArgs ?? []), ...(process.env.BENCH_FUNCTIONS_NODE_ARGS ?? '').split(' ').filter(Boolean)],
  env: { LOG_LEVEL: 'warn', RATE_LIMIT: '100000000', FETCH_ALLOW_HOSTS: benchSite.host, ...tracing.env },
});
const rows: Result[] = [];
const ratios: string[] = [];
const goals: Goal[] = [];

try {
  // The in-process handler talks to the same backends as the functions under serverless-offline.
  Object.assign(process.env, platform.env, { LOG_LEVEL: 'warn' });
  const { handler: usersMe } = await import('#functions/account/users-me.js');
  const auth = { authorization: `Bearer ${platform.apiKey}` };

  if (wanted('users')) {
    const offline = await measure(
      'GET /v2/users/me, through serverless-offline',
      async () => {
        const res = await fetch(`${platform.baseUrl}/v2/users/me`, { headers: auth });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`offline: ${res.status}`);
      },
      { requests: REQUESTS, concurrency: CONCURRENCY },
    );
    const inProcess = await measure(
      'GET /v2/users/me, handler in-process',
      async () => {
        const res = await call(usersMe, { path: '/v2/users/me', headers: auth });
        if (res.status !== 200) throw new Error(`in-process: ${res.status}`);
      },
      { requests: REQUESTS, concurrency: CONCURRENCY },
    );
    rows.push(inProcess, offline);
    ratios.push(
      `users/me: serverless-offline reaches ${((offline.rps / inProcess.rps) * 100).toFixed(1)}% of the in-process throughput ` +
        `(p99 ${(offline.p99 / inProcess.p99).toFixed(2)}x)`,
    );
  }

  // GraphQL: yoga configurations on bare node:http servers (a process of their own), and the function
  // through serverless-offline.
  if (wanted('graphql')) {
    const gql = await graphqlThroughput(platform.baseUrl, {
      requests: Math.max(100, Math.floor(REQUESTS / 4)),
      concurrency: CONCURRENCY,
      rounds: Number(process.env.BENCH_GRAPHQL_ROUNDS ?? 6),
    });
    rows.push(...gql.rows);
    ratios.push(...gql.ratios);
    goals.push(...graphqlGoals(gql));
  }
  // Cold starts of every HTTP function, GraphQL included, from the packaged artifacts.
  if (wanted('cold')) ratios.push(await coldStartReport());
  if (wanted('hops')) {
    ratios.push(...(await hopBreakdown(platform, traceFile)));
    // Calls and invocations per job, create → wait → download; writes bench/calls-per-job.json.
    const counted = await callsPerJob(platform, traceFile);
    ratios.push(...counted.lines);
    goals.push(...callGoals(counted.calls));
  }
  if (wanted('pipeline')) {
    const pipeline = await pipelineScenarios(platform);
    ratios.push(...pipeline.lines);
    goals.push(...pipelineGoals(pipeline));
  }
  if (wanted('throughput')) ratios.push(...(await throughputScenario(platform)).lines);
  if (wanted('live')) ratios.push(...(await liveEventScenario(platform)));
  if (wanted('engines')) {
    const engines = await engineScenarios(platform, benchSite);
    ratios.push(...engines.lines);
    goals.push(...engineGoals(engines));
  }
  if (wanted('shipped')) ratios.push(...(await shippedEngineRatios()));
  // BENCH_ONLY=optimize: PDF optimize's out/in sizes per profile, before and after images were re-encoded (bench/optimize.ts).
  if (wanted('optimize')) ratios.push(...(await optimizeSizes()));
  if (wanted('discovery')) {
    const discovery = await discoveryScenario(platform, { requests: REQUESTS, concurrency: CONCURRENCY });
    rows.push(...discovery.rows);
    ratios.push(...discovery.lines);
  }
  if (wanted('families')) ratios.push(...(await familyConversions(platform)));
  // BENCH_ONLY=fonts: a TTF → WOFF2 job and the font engine's child against bare wawoff2 (bench/fonts.ts).
  if (wanted('fonts')) ratios.push(...(await fontRatios(platform)));
  // BENCH_ONLY=office: docx → pdf on warm LibreOffice against bare soffice, two workers against one, and a soak (bench/office.ts).
  if (wanted('office')) {
    const office = await officeBench();
    ratios.push(...office.lines);
    goals.push(...office.goals);
  }
  // BENCH_ONLY=console: the console's bundle and its first load with an empty cache (bench/console.ts).
  if (wanted('console')) ratios.push(...(await consoleBench(platform)));
  if (wanted('large')) {
    const large = await largeFileRun(Number(process.env.BENCH_LARGE_MIB ?? 1024));
    ratios.push(
      `${large.mib} MiB import/url → export/url → download: ${large.seconds.toFixed(1)} s, intact ${large.intact}; peak RSS ` +
        `${large.importPeakRssMiB.toFixed(0)} MiB (import consumer), ${large.exportPeakRssMiB.toFixed(0)} MiB (export consumer), each alone in its process`,
    );
    goals.push(...largeFileGoals(large));
  }

  if (rows.length > 0) console.log(`\n${REQUESTS} requests per scenario, ${CONCURRENCY} concurrent, Node ${process.version}\n\n${table(rows)}`);
  else console.log(`\nNode ${process.version}`);
  console.log('\n' + ratios.join('\n'));
  if (goals.length > 0) console.log('\n' + goalLines(goals).join('\n'));
} finally {
  await platform.stop();
  await benchSite.close();
  rmSync(dataDir, { recursive: true, force: true });
}
