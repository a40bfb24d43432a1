/**
 * What the dead-letter consumer does with a message, so that no job waits forever for a message
 * that will never be handled:
 * - a step queue's message (`{taskId}`) that failed every delivery ends its task in `error`;
 * - an upload event that the upload function failed on every attempt (Lambda's on-failure record,
 *   through the failed-invocations queue) ends the import/upload task it was for in `error`.
 * Other failed invocations (the sweeper, the stack's custom resource) are logged as errors.
 */
import * as z from 'zod';
import type { Logger } from '../../kernel/log.js';
import { uploadTaskOf } from '../operations/framework/types.js';
import type { Scheduler } from './scheduler.js';
import { stepMessage } from './step-messages.js';
import type { TaskStore } from '../records/store.js';

/** What Lambda sends to an on-failure destination after the last attempt of an asynchronous invocation. */
const failedInvocation = z.object({
  requestContext: z.object({ functionArn: z.string(), condition: z.string().optional() }),
  requestPayload: z.unknown(),
});
const objectCreated = z.object({ detail: z.object({ object: z.object({ key: z.string() }) }) });

export const deadLetter = z.union([stepMessage, failedInvocation]);

export interface DeadLetterDeps {
  store: TaskStore;
  scheduler: Scheduler;
  log: Logger;
}

export async function handleDeadLetter(message: z.output<typeof deadLetter>, deps: DeadLetterDeps): Promise<void> {
  const fail = async (taskId: string, code: string, text: string) => {
    const failed = await deps.store.fail(taskId, { code, message: text }, { from: ['waiting', 'processing'] });
    if (failed) await deps.scheduler.afterEnd(failed);
    return Boolean(failed);
  };
  if ('taskId' in message) {
    if (await fail(message.taskId, 'INTERNAL_ERROR', 'The task could not be completed; it failed on every attempt.')) {
      deps.log.warn('task ended from the dead-letter queue', { taskId: message.taskId });
    }
    return;
  }
  const { functionArn, condition } = message.requestContext;
  const upload = objectCreated.safeParse(message.requestPayload);
  const taskId = upload.success ? uploadTaskOf(upload.data.detail.object.key)?.taskId : undefined;
  if (taskId) {
    if (await fail(taskId, 'UPLOAD_FAILED', 'The uploaded file could not be taken in; upload it again with a new task.')) {
      deps.log.warn('upload task ended after its upload event failed', { taskId, condition });
    }
    return;
  }
  deps.log.error('an asynchronous invocation failed on every attempt', { functionArn, condition });
}
