/** A step consumer Lambda: queue messages `{taskId}` run through `runTask` with the step's operations. */
import { config } from '../kernel/config.js';
import { useEngineInvoker, type EngineInvoker } from '../file-api/operations/engine-function.js';
import type { Implementation } from '../file-api/operations/framework/types.js';
import { once } from './clients.js';
import { rootLogger } from '../kernel/root-logger.js';
import { queueClient } from './queue.js';
import { inlineRunsFor, runnerDeps } from './inline-runs.js';
import { backoff, sqsConsumer } from '../adapters/queue/consumer.js';
import type { QueueName } from '../adapters/queue/port.js';
import type { Step } from '../file-api/records/model.js';
import { runTask } from '../file-api/tasks/runner.js';
import { stepMessage } from '../file-api/tasks/step-messages.js';

/** `queue`: the queue this consumer reads, where a task it must look at later goes back (a process family's queue for the process step). */
/**
 * `engines`: how a process step reaches its family's engine function (ENGINE_ISOLATION=function,
 * lib/file-api/operations/engine-function.ts), given by the process functions only, so that no other step
 * function carries a Lambda client (or the role to invoke).
 */
export function stepConsumer(step: Step, implementations: Record<string, Implementation>, queue: QueueName = step, engines?: (functionName: string) => EngineInvoker) {
  // Engine operations run in the family's engine function: its invoker, made once.
  const invoker = once(() => {
    const c = config();
    if (engines && c.ENGINE_ISOLATION === 'function' && c.ENGINE_FUNCTION_NAME) useEngineInvoker(engines(c.ENGINE_FUNCTION_NAME));
  });
  return sqsConsumer({
    schema: stepMessage,
    log: () => rootLogger().child({ step, ...(queue === step ? {} : { queue }) }),
    // A run that failed for a passing reason (network, a 5xx) is tried again soon, not after the
    // step queue's 90-minute visibility timeout.
    retry: { delaySeconds: backoff, postpone: (record, seconds) => queueClient().postpone(record.eventSourceARN, record.receiptHandle, seconds) },
    handle: (message, { log, deadlineMs }) => (
      invoker(),
      runTask(message.taskId, {
        ...runnerDeps(log, implementations, deadlineMs),
        requeue: (task, delaySeconds) => queueClient().send(queue, { taskId: task.id, ...(message.hops ? { hops: message.hops } : {}) }, { delaySeconds }),
        forward: (task, to, hops) => queueClient().send(to, { taskId: task.id, hops }),
        queue,
        hops: message.hops,
        // A dependant that needs no engine (export/url after a convert) runs in this invocation.
        inline: inlineRunsFor(log, deadlineMs),
      })
    ),
  });
}
