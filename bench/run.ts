/**
 * `npm run bench`: each scenario is measured through serverless-offline (the gateway emulation,
 * as clients see it) and against a bare baseline in the same run, and reported as a ratio.
 * Numbers depend on the machine; the ratios are what to compare between runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startPlatform } from '#lib/local/platform.js';
import { call } from '../test/support/lambda.js';
import { coldStartReport } from './cold-start.js';
import { engineScenarios, startBenchSite } from './engines.js';
import { graphqlScenario, startBareGraphqlServer } from './graphql.js';
import { largeFileRun } from './large-file.js';
import { liveEventScenario } from './live-events.js';
import { measure, table, type Result } from './measure.js';
import { pipelineScenarios } from './pipeline.js';
import { shippedEngineRatios } from './shipped-engines.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);

const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-'));
// The page capture-website benchmarks; the platform may reach its host.
const benchSite = await startBenchSite();
const platform = await startPlatform({
  dataDir,
  output: 'ignore',
  env: { LOG_LEVEL: 'warn', RATE_LIMIT: '100000000', FETCH_ALLOW_HOSTS: benchSite.host },
});
const rows: Result[] = [];
const ratios: string[] = [];

try {
  // The in-process handler talks to the same backends as the functions under serverless-offline.
  Object.assign(process.env, platform.env, { LOG_LEVEL: 'warn' });
  const { handler: usersMe } = await import('#functions/account/users-me.js');
  const auth = { authorization: `Bearer ${platform.apiKey}` };

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

  // GraphQL: the same yoga instance behind a bare node:http server, and the Lambda through serverless-offline.
  const scenario = await graphqlScenario();
  const bare = await startBareGraphqlServer();
  const gqlRequests = Math.max(100, Math.floor(REQUESTS / 4));
  const post = (base: string) => async () => {
    const res = await fetch(`${base}${scenario.path}`, { method: 'POST', headers: scenario.headers, body: scenario.body });
    const text = await res.text();
    if (!scenario.check(text)) throw new Error(`bad GraphQL answer from ${base}: ${text.slice(0, 200)}`);
  };
  try {
    const gqlBare = await measure('POST /graphql all creatures, bare node:http', post(bare.url), {
      requests: gqlRequests,
      concurrency: CONCURRENCY,
    });
    const gqlOffline = await measure('POST /graphql all creatures, serverless-offline', post(platform.baseUrl), {
      requests: gqlRequests,
      concurrency: CONCURRENCY,
    });
    rows.push(gqlBare, gqlOffline);
    ratios.push(
      `graphql: serverless-offline reaches ${((gqlOffline.rps / gqlBare.rps) * 100).toFixed(1)}% of the bare server's throughput ` +
        `(p99 ${(gqlOffline.p99 / gqlBare.p99).toFixed(2)}x)`,
    );
  } finally {
    await bare.close();
  }
  // Cold starts of every HTTP function, GraphQL included, from the packaged artifacts.
  ratios.push(await coldStartReport());
  ratios.push(...(await pipelineScenarios(platform)));
  ratios.push(...(await liveEventScenario(platform)));
  ratios.push(...(await engineScenarios(platform, benchSite)));
  ratios.push(...(await shippedEngineRatios()));
  const large = await largeFileRun(Number(process.env.BENCH_LARGE_MIB ?? 1024));
  ratios.push(
    `${large.mib} MiB import/url → export/url → download: ${large.seconds.toFixed(1)} s, intact ${large.intact}; peak RSS ` +
      `${large.importPeakRssMiB.toFixed(0)} MiB (import consumer), ${large.exportPeakRssMiB.toFixed(0)} MiB (export consumer), each alone in its process`,
  );

  console.log(`\n${REQUESTS} requests per scenario, ${CONCURRENCY} concurrent, Node ${process.version}\n`);
  console.log(table(rows));
  console.log('\n' + ratios.join('\n'));
} finally {
  await platform.stop();
  await benchSite.close();
  rmSync(dataDir, { recursive: true, force: true });
}
