/**
 * ENGINE_ISOLATION=function, the step function's side in Lambda: its family's engine function invoked
 * synchronously (lib/file-api/operations/engine-function.ts). Apart from engine-functions.ts, so that the engine
 * functions' bundles carry no AWS SDK client.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { config } from '../kernel/config.js';
import type { EngineInvoker, EngineRequest } from '../file-api/operations/engine-function.js';

/** Lambda's synchronous Invoke of `functionName`: the engine function's answer, or an error when it crashed or timed out. */
export function lambdaEngineInvoker(functionName: string): EngineInvoker {
  const c = config();
  // A task runs up to 15 minutes: no idle limit on the socket of this one call (the signal ends it).
  const lambda = new LambdaClient({ region: c.AWS_REGION, endpoint: c.AWS_ENDPOINT_URL_LAMBDA, requestHandler: { connectionTimeout: 5_000, socketTimeout: 0 }, maxAttempts: 1 });
  return {
    async invoke(request: EngineRequest, signal: AbortSignal): Promise<unknown> {
      const out = await lambda.send(new InvokeCommand({ FunctionName: functionName, InvocationType: 'RequestResponse', Payload: JSON.stringify(request) }), { abortSignal: signal });
      const body = out.Payload ? Buffer.from(out.Payload).toString('utf8') : '';
      if (out.FunctionError) throw new Error(`engine function ${functionName} failed (${out.FunctionError}): ${body.slice(0, 500)}`);
      return JSON.parse(body) as unknown;
    },
  };
}
