/**
 * ENGINE_ISOLATION=function in Lambda, the engine function's handler (functions/engines/<family>.ts):
 * one task per invocation (lib/file-api/operations/engine-function-host.ts), then it reaps (lib/engines/core/reaper.ts).
 * It calls no AWS service (the step function's side, engine-invoker.ts, invokes it).
 */
import { fork } from 'node:child_process';
import { tmpdir } from 'node:os';
import type { Context } from 'aws-lambda';
import { parseConfig, type Config } from '../kernel/config.js';
import { reap } from '../engines/core/reaper.js';
import { unpackedTools } from '../engines/core/shipped.js';
import { createLogger, type Logger } from '../kernel/log.js';
import type { EngineRequest, EngineResponse } from '../file-api/operations/engine-function.js';
import { serveEngineRequest } from '../file-api/operations/engine-function-host.js';
import type { ImplementationTable } from '../file-api/operations/steps.js';
import type { EngineFamily } from '../engines/core/families.js';

/**
 * The engine function's configuration: its engine settings from its environment, which holds no
 * resource of the stack (scripts/serverless-engine-functions.cjs keeps only engine settings there).
 * The names the schema requires are placeholders nothing here uses; engines run inline here.
 */
export function engineFunctionConfig(env: Record<string, string | undefined>): Config {
  const none = 'none';
  return parseConfig({
    ...env,
    STATE_TABLE: none,
    FILES_BUCKET: none,
    IMPORT_QUEUE: none,
    PROCESS_QUEUE: none,
    EXPORT_QUEUE: none,
    OPERATIONS_QUEUE: none,
    WEBHOOKS_QUEUE: none,
    ENGINE_ISOLATION: 'inline',
  });
}

/** Time kept back from the invocation's own end to reap and answer (a timed-out invocation could do neither). */
const ANSWER_MARGIN_MS = 20_000;

type Env = Record<string, string | undefined>;

/**
 * The task runs in a worker process (this module again, with ENGINE_WORKER set to its family), never
 * in the runtime's own process: sharp, pdf-lib and Chromium's driver decode untrusted files in-process,
 * and a runtime process compromised that way would take every later invocation. The worker gets this
 * environment without AWS_* (no credential, no runtime API address) and is reaped with the rest.
 */
function inWorker(moduleFile: string, family: string, request: EngineRequest, env: Env): Promise<EngineResponse> {
  const workerEnv = Object.fromEntries(Object.entries(env).filter(([k, v]) => v !== undefined && !k.startsWith('AWS_') && !k.startsWith('_X_AMZN'))) as Record<string, string>;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (response: EngineResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(response);
    };
    const child = fork(moduleFile, [], { env: { ...workerEnv, ENGINE_WORKER: family }, execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'json' });
    // Past its deadline (and a little for its own answer), the worker is ended; the reaper makes sure.
    const timer = setTimeout(() => child.kill('SIGKILL'), Math.max(0, request.deadline - Date.now()) + 5_000);
    child.once('message', (message) => settle(message as EngineResponse));
    child.once('error', (err) => settle({ ok: false, error: `the engine worker could not start: ${err.message}` }));
    // 'close', not 'exit': the worker exits as soon as its answer is written, and under load 'exit' can
    // come before the answer is read from the channel; 'close' waits for the channel too.
    child.once('close', (code, signal) => settle({ ok: false, error: `the engine worker ended (${signal ?? code}) without an answer` }));
    child.send(request);
  });
}

/** In the worker: serves the one request its engine function sends, answers, and ends. */
function serveAsWorker(implementations: ImplementationTable, env: Env): void {
  process.once('message', (request: unknown) => {
    const c = engineFunctionConfig(env);
    const log = createLogger({ service: c.SERVICE_NAME, stage: c.STAGE, family: c.ENGINE_FAMILY, worker: true }, { level: c.LOG_LEVEL });
    void serveEngineRequest(request, { implementations, config: c, log }).then((response) => process.send!(response, () => process.exit(0)));
  });
}

/**
 * The Lambda handler of an engine function: one task per invocation; then no process and no file of it
 * is left. Set up on the first invocation (the step functions import the same module for its
 * implementations, and must keep their own environment). `moduleFile`: the module that calls this
 * (its worker runs it again). Where it may reap (ENGINE_REAP) the task runs in a worker process;
 * elsewhere (tests that call the handler in their own process) in this one.
 */
export function engineFunctionHandler(family: EngineFamily, implementations: ImplementationTable, moduleFile: string, env: Env = process.env) {
  if (env.ENGINE_WORKER === family && process.send) serveAsWorker(implementations, env);
  let ready: Promise<{ c: Config; log: Logger; cleanUp: () => Promise<void> }> | undefined;
  const setUp = async () => {
    const c = engineFunctionConfig(env);
    const log = createLogger({ service: c.SERVICE_NAME, stage: c.STAGE, family: c.ENGINE_FAMILY }, { level: c.LOG_LEVEL });
    // The role's session grants nothing but logs and traces, and nothing here calls AWS: not even that
    // stays in the environment the engines' processes could inherit.
    if (c.ENGINE_REAP) for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN']) delete env[name];
    const cleanUp = async () => {
      if (!c.ENGINE_REAP) return;
      // The ffprobe unpacked from the zip stays (0.6 s to unpack again): the next task's worker checks its digest before it runs it.
      const reaped = await reap({ tmpDir: c.ENGINE_TMP_DIR || tmpdir(), keep: unpackedTools() });
      log.info('engine function reaped', { ...reaped });
    };
    // Before the first task: what a crashed or timed-out earlier runtime of this environment left.
    await cleanUp();
    return { c, log, cleanUp };
  };
  return async (event: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<EngineResponse> => {
    const { c, log, cleanUp } = await (ready ??= setUp());
    const request = { ...(event as EngineRequest) };
    if (context && typeof request.deadline === 'number') request.deadline = Math.min(request.deadline, Date.now() + context.getRemainingTimeInMillis() - ANSWER_MARGIN_MS);
    try {
      return c.ENGINE_REAP ? await inWorker(moduleFile, family, request, env) : await serveEngineRequest(request, { implementations, config: c, log });
    } finally {
      await cleanUp();
    }
  };
}
