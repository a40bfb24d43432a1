/**
 * Preloaded (`node --require`) into the serverless-offline process that the local emulator starts
 * (local/offline.ts), to make it answer as API Gateway and Lambda do in three respects, and to
 * take out per-request work that Lambda does not do. Each patch replaces one CommonJS export before
 * serverless-offline's ES modules import it (an ES module importing a CommonJS one reads its exports
 * then), and refuses to start when that export is not what it was written for.
 *
 * 1. No response compression. serverless-offline serves the HTTP API with hapi, and hapi gzips every
 *    response over 1 KB for a client that accepts gzip, which every fetch client does. An API Gateway
 *    HTTP API never compresses a response: locally clients got an encoding the cloud never sends, and
 *    every response paid for the compression (the creature catalogue, 62 KB of JSON, went from about
 *    100 to about 280 requests a second through serverless-offline once it was off; `npm run bench`
 *    shows the figures). serverless-offline has no setting for it, so hapi gets `compression: false`.
 *
 * 2. Idle client connections stay open 65 s, as behind API Gateway, instead of Node's 5 s: with 5 s,
 *    a client that reuses a connection just as the server drops it gets "other side closed" (undici
 *    reuses idle connections for up to 4 s by its own clock, which runs late on a loaded machine).
 *
 * 3. A function's handler module is loaded once, as Lambda loads it once per execution environment.
 *    serverless-offline's in-process runner resolves the handler anew at every invocation
 *    (UserFunction.js `load`: file-existence checks, the nearest package.json read and parsed, then a
 *    dynamic `import()` whose resolution goes through tsx's loader thread): about a sixth of the
 *    process's time per cached GraphQL answer in a CPU profile under `npm run bench`'s load. The
 *    module itself was already evaluated once (the ES module cache), so every call returned the same
 *    function: keeping it changes nothing a handler or a client can see. A failed load is not kept,
 *    so the next invocation tries again, as Lambda retries a failed init.
 *
 * 4. A function that fails or runs out of time fails as in Lambda, and an HTTP API answers it as API
 *    Gateway does. serverless-offline answered an HTTP API (payload 2.0) request whose function threw
 *    or timed out with 200 and the error as the body (`{"errorMessage":"[504] - Lambda timeout.",…}`),
 *    which a client reads as a success; API Gateway answers 500 `{"message":"Internal Server Error"}`.
 *    And its timeout raced each invocation against a timer that was never cleared, which kept every
 *    result reachable until the function's whole timeout had passed (29 s for the API, 900 s for the
 *    queue consumers): under load, memory grew with requests × timeout × response size. So the local
 *    emulator runs it with `--noTimeout` (local/offline.ts), and the handler kept in 3 is wrapped
 *    here: it races the function's remaining time (the context's, from the function's `timeout`) with
 *    a timer cleared as soon as the handler settles. A function out of time fails with Lambda's message
 *    ("Task timed out after 29.00 seconds"); as in Lambda, the error is logged. What the handler still
 *    does after its time is up goes on in this process (Lambda would freeze it).
 */
/* global setTimeout, clearTimeout */
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const offlineDir = path.join(__dirname, '..', 'node_modules', 'serverless-offline');
/** The version these patches were written against (package.json pins it); any other is refused. */
const OFFLINE_VERSION = '14.8.2';

const offlineVersion = JSON.parse(fs.readFileSync(path.join(offlineDir, 'package.json'), 'utf8')).version;
if (offlineVersion !== OFFLINE_VERSION) {
  throw new Error(
    `scripts/serverless-offline-http.cjs was written for serverless-offline ${OFFLINE_VERSION}, found ${offlineVersion}: ` +
      'check each patch against the new version and update OFFLINE_VERSION',
  );
}

// 1 and 2: hapi's server.
const hapi = require(require.resolve('@hapi/hapi', { paths: [offlineDir] }));
const HapiServer = hapi.Server;

const IDLE_CONNECTION_MS = 65_000;

function Server(options) {
  const server = new HapiServer({ ...options, compression: false });
  server.listener.keepAliveTimeout = IDLE_CONNECTION_MS;
  server.listener.headersTimeout = IDLE_CONNECTION_MS + 1000;
  return server;
}

hapi.Server = Server;
hapi.server = Server;

// 3: the in-process runner's handler loader, `load(appRoot, handlerString)` → the handler function.
const userFunction = require(path.join(offlineDir, 'src/lambda/handler-runner/in-process-runner/aws-lambda-ric/UserFunction.js'));
const load = userFunction.load;
if (typeof load !== 'function' || load.length !== 2) {
  throw new Error('serverless-offline UserFunction.js no longer exports load(appRoot, handlerString): update scripts/serverless-offline-http.cjs');
}
const handlers = new Map();
userFunction.load = async function loadOnce(appRoot, handlerString) {
  const key = `${appRoot}\0${handlerString}`;
  let handler = handlers.get(key);
  if (handler === undefined) {
    handler = asInLambda(await load(appRoot, handlerString), handlerString);
    handlers.set(key, handler);
  }
  return handler;
};

// 4: failures and timeouts as Lambda and API Gateway have them.
const HTTP_API_ERROR = Object.freeze({
  statusCode: 500,
  headers: { 'content-type': 'application/json' },
  body: '{"message":"Internal Server Error"}',
});

/** An HTTP API (payload 2.0) request: what API Gateway turns a function's failure into a 500 for. */
const isHttpApiEvent = (event) => event !== null && typeof event === 'object' && event.version === '2.0' && typeof event.requestContext?.http === 'object';

class TimedOut extends Error {
  constructor(ms) {
    super(`Task timed out after ${(ms / 1000).toFixed(2)} seconds`);
    this.name = 'Sandbox.Timedout';
  }
}

function asInLambda(handler, handlerString) {
  return function lambdaHandler(event, context) {
    const ms = context.getRemainingTimeInMillis();
    let timer;
    const outOfTime = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new TimedOut(ms)), ms);
    });
    const run = new Promise((resolve, reject) => {
      // A callback-style handler settles through the callback; an async one through its promise.
      const settled = handler(event, context, (err, value) => (err ? reject(err) : resolve(value)));
      if (settled && typeof settled.then === 'function') settled.then(resolve, reject);
    });
    return Promise.race([run, outOfTime])
      .catch((err) => {
        console.error(`${handlerString}: ${err instanceof TimedOut ? err.message : `Invoke Error ${err && err.stack ? err.stack : err}`}`);
        if (isHttpApiEvent(event)) return HTTP_API_ERROR;
        throw err;
      })
      .finally(() => clearTimeout(timer));
  };
}
