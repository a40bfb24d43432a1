/**
 * ENGINE_ISOLATION=function in Lambda, the engine function's handler (functions/engines/<family>.ts):
 * one task per invocation (lib/operations/engine-function-host.ts), then it reaps (lib/engines/reaper.ts).
 * It calls no AWS service (the step function's side, engine-invoker.ts, invokes it).
 */
import { tmpdir } from 'node:os';
import type { Context } from 'aws-lambda';
import { parseConfig, type Config } from '../config.js';
import { reap } from '../engines/reaper.js';
import { createLogger, type Logger } from '../log.js';
import type { EngineRequest, EngineResponse } from '../operations/engine-function.js';
import { serveEngineRequest } from '../operations/engine-function-host.js';
import type { ImplementationTable } from '../operations/steps.js';

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

/**
 * The Lambda handler of an engine function: one task per invocation; then no process and no file of it
 * is left. Set up on the first invocation (the step functions import the same module for its
 * implementations, and must keep their own environment).
 */
export function engineFunctionHandler(implementations: ImplementationTable, env: Record<string, string | undefined> = process.env) {
  let ready: Promise<{ c: Config; log: Logger; cleanUp: () => Promise<void> }> | undefined;
  const setUp = async () => {
    const c = engineFunctionConfig(env);
    const log = createLogger({ service: c.SERVICE_NAME, stage: c.STAGE, family: c.ENGINE_FAMILY }, { level: c.LOG_LEVEL });
    // The role's session grants nothing but logs and traces, and nothing here calls AWS: not even that
    // stays in the environment the engines' processes could inherit.
    if (c.ENGINE_REAP) for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN']) delete env[name];
    const cleanUp = async () => {
      if (!c.ENGINE_REAP) return;
      const reaped = await reap({ tmpDir: c.ENGINE_TMP_DIR || tmpdir() });
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
      return await serveEngineRequest(request, { implementations, config: c, log });
    } finally {
      await cleanUp();
    }
  };
}
