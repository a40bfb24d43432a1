// One Lambda execution environment for scripts/ci/lambda-artifacts.ts, with Node builtins only: it is
// copied outside the repository and started with the unzipped artifact as its working directory.
// Like the Node.js runtime it loads `_HANDLER` (`path/to/module.export`, trying .js, .mjs, .cjs under
// LAMBDA_TASK_ROOT) once, then runs one invocation at a time: the parent sends
// `{ type: 'invoke', id, event, deadline, requestId }` over IPC and gets `{ type: 'result', id, ok, payload | error }`.
// An uncaught exception fails the invocation in progress and ends the process, as in Lambda.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const env = process.env;
const spec = env._HANDLER || '';
const dot = spec.lastIndexOf('.');
const modulePath = spec.slice(0, dot);
const exportName = spec.slice(dot + 1);

const errorOf = (err, type) => ({
  errorType: type || (err && err.name) || 'Error',
  errorMessage: err && err.message !== undefined ? String(err.message) : String(err),
  trace: err && err.stack ? String(err.stack).split('\n') : [],
});

async function load() {
  for (const ext of ['.js', '.mjs', '.cjs']) {
    const file = path.join(env.LAMBDA_TASK_ROOT, modulePath + ext);
    if (!fs.existsSync(file)) continue;
    let mod;
    if (ext === '.mjs') mod = await import(pathToFileURL(file).href);
    else {
      try {
        mod = require(file);
      } catch (err) {
        if (!err || err.code !== 'ERR_REQUIRE_ESM') throw err;
        mod = await import(pathToFileURL(file).href);
      }
    }
    const handler = mod[exportName];
    if (typeof handler !== 'function') throw Object.assign(new Error(`${spec} is undefined or not exported`), { name: 'Runtime.HandlerNotFound' });
    return handler;
  }
  throw Object.assign(new Error(`Cannot find module '${modulePath}'`), { name: 'Runtime.ImportModuleError' });
}

let current; // the id of the invocation in progress
const send = (message) => new Promise((resolve) => process.send(message, resolve));

process.on('uncaughtException', async (err) => {
  console.error(`Uncaught exception: ${err && err.stack ? err.stack : err}`);
  if (current !== undefined) await send({ type: 'result', id: current, ok: false, error: errorOf(err, 'Runtime.UncaughtException') });
  process.exit(129);
});

function invoke(handler, message) {
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName: env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: env.AWS_LAMBDA_FUNCTION_VERSION,
    invokedFunctionArn: `arn:aws:lambda:${env.AWS_REGION}:000000000000:function:${env.AWS_LAMBDA_FUNCTION_NAME}`,
    memoryLimitInMB: env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: message.requestId,
    logGroupName: env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: env.AWS_LAMBDA_LOG_STREAM_NAME,
    getRemainingTimeInMillis: () => Math.max(0, message.deadline - Date.now()),
  };
  return new Promise((resolve, reject) => {
    const callback = (err, payload) => (err ? reject(err) : resolve(payload));
    Object.assign(context, { done: callback, succeed: (p) => resolve(p), fail: (e) => reject(e) });
    const returned = handler(message.event, context, callback);
    if (returned && typeof returned.then === 'function') returned.then(resolve, reject);
  });
}

(async () => {
  const started = Date.now();
  let handler;
  try {
    handler = await load();
  } catch (err) {
    console.error(`Init error: ${err && err.stack ? err.stack : err}`);
    await send({ type: 'init-error', error: errorOf(err) });
    process.exit(1);
  }
  process.on('message', async (message) => {
    if (!message || message.type !== 'invoke') return;
    current = message.id;
    let reply;
    try {
      const payload = await invoke(handler, message);
      let serialized;
      try {
        // What the runtime sends back is JSON: what does not survive JSON.stringify does not reach the caller.
        serialized = payload === undefined ? null : JSON.parse(JSON.stringify(payload));
      } catch (err) {
        throw Object.assign(new Error(`Unable to stringify the response: ${err.message}`), { name: 'Runtime.MarshalError' });
      }
      reply = { type: 'result', id: message.id, ok: true, payload: serialized };
    } catch (err) {
      reply = { type: 'result', id: message.id, ok: false, error: errorOf(err) };
    }
    current = undefined;
    await send(reply);
  });
  await send({ type: 'ready', initMs: Date.now() - started });
})();
