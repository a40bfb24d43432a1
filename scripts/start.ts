/**
 * `npm start`: the whole platform on this machine, the service on port 4000 (PORT), live events
 * (socket.io over serverless-offline's WebSocket API) on 4001 (WEBSOCKET_PORT), data kept
 * under .data/ (DATA_DIR). Prints the base URL and a development API key (API_KEY, when set, is
 * used as that key). The Google APIs are open (any token) unless GOOGLE_AUTH_MODE=enforced; the
 * banner says which, lists the engines found (with versions) and the missing ones with how to add
 * them, as the functions see them (the same settings), the formats counted (`npm run formats` for
 * them per family) with the format families missing here and how to add them, and what confinement
 * they run under. Ctrl-C
 * stops everything.
 */
import { parseEngineConfig } from '#lib/kernel/config.js';
import { confinement } from '#lib/engines/core/confine.js';
import { newEngineRegistry } from '#lib/file-api/operations/engines.js';
import { confinementBannerLine, engineBannerLines } from '../local/engine-setup.js';
import { formatReport, missingFamilyLines } from '../local/format-report.js';
import { googleAuthBanner, startEmulator } from '../local/emulator.js';

const port = Number(process.env.PORT ?? 4000);
const dataDir = process.env.DATA_DIR ?? '.data';
const fixed = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const googleAuthMode = process.env.GOOGLE_AUTH_MODE || 'open';
if (googleAuthMode !== 'open' && googleAuthMode !== 'enforced') {
  console.error(`GOOGLE_AUTH_MODE must be open or enforced, not "${googleAuthMode}"`);
  process.exit(1);
}

console.log('starting the local platform (dynalite, s3rver, queues, serverless-offline)…');
const started = Date.now();
const platform = await startEmulator({
  dataDir,
  httpPort: port,
  lambdaPort: fixed('LAMBDA_PORT', 3002),
  websocketPort: fixed('WEBSOCKET_PORT', 4001),
  dynamoPort: fixed('DYNAMODB_PORT', 4567),
  s3Port: fixed('S3_PORT', 4568),
  sqsPort: fixed('SQS_PORT', 4576),
  apiKey: process.env.API_KEY || undefined,
  googleAuthMode,
  output: 'inherit',
  buildDir: '.esbuild',
});

const engineSettings = parseEngineConfig({ ...process.env, ...platform.env });
const engines = newEngineRegistry(engineSettings);
console.log(`
  ready in ${((Date.now() - started) / 1000).toFixed(1)} s
  base URL     ${platform.baseUrl}
  GraphQL      ${platform.baseUrl}/graphql
  file API     ${platform.baseUrl}/v2   (Authorization: Bearer <key>)
  Google APIs  ${platform.baseUrl}/v2beta/limits/label, ${platform.baseUrl}/v1/projects/…
  Google auth  ${googleAuthBanner(platform.googleAuthMode)}
  live events  ${platform.socketUrl}   (socket.io: cloudConvert.socket = io('${platform.socketUrl}', { transports: ['websocket'] }))
  OAuth 2.0    ${platform.baseUrl}/oauth/authorize, /oauth/token, /oauth/revoke   (npm run oauth -- clients create …)
  console      ${platform.signInUrl}
               (opens the console signed in to the built-in account; this run and this machine only)
  account      ${platform.baseUrl}/account   (npm run users -- create …, or users -- password 1 for this account)
  API key      ${platform.apiKey}   (every scope: file API and Google APIs)
  data         ${dataDir}/
${engineBannerLines(engines).join('\n')}
${missingFamilyLines(formatReport(engines)).join('\n')}
${confinementBannerLine(confinement(engineSettings), '  confinement  ')}
`);

let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  console.log('stopping…');
  await platform.stop();
  process.exit(0);
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
