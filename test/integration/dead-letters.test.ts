/**
 * The dead-letter consumer: a step message that failed every delivery ends its task; an upload event
 * that the upload function failed on every attempt (Lambda's on-failure record) ends the upload task;
 * anything else is only logged, and nothing that already ended is touched.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '#lib/kernel/log.js';
import { handleDeadLetter, deadLetter } from '#lib/file-api/tasks/dead-letters.js';
import { planJob } from '#lib/file-api/tasks/plan.js';
import { useTaskBackends, wireTasks } from '../support/task-harness.js';

const backends = useTaskBackends();
const lines: string[] = [];
const log = createLogger({}, { level: 'info', write: (line) => lines.push(line) });

function setup() {
  const { queue, store, scheduler, service } = wireTasks(backends, { log });
  return { queue, store, scheduler, service, deps: { store, scheduler, log } };
}

/** The record Lambda sends to an on-failure destination for an EventBridge "Object Created" event. */
const failedUploadEvent = (key: string) =>
  deadLetter.parse({
    version: '1.0',
    timestamp: new Date().toISOString(),
    requestContext: { requestId: 'r1', functionArn: 'arn:aws:lambda:us-east-1:1:function:uploadReceived:$LATEST', condition: 'RetriesExhausted', approximateInvokeCount: 3 },
    requestPayload: { 'detail-type': 'Object Created', source: 'aws.s3', detail: { bucket: { name: 'files' }, object: { key, size: 3 } } },
    responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    responsePayload: { errorType: 'Error', errorMessage: 'boom' },
  });

describe('dead letters', () => {
  it('ends a task whose step message failed every delivery, and the job with it', async () => {
    const { service, store, deps } = setup();
    const { job, tasks } = await service.createJob(1, planJob({ tasks: { raw: { operation: 'import/raw', file: 'abc', filename: 'a.txt' } } }));
    await handleDeadLetter(deadLetter.parse({ taskId: tasks[0]!.id }), deps);
    expect(await store.getTask(tasks[0]!.id)).toMatchObject({ status: 'error', code: 'INTERNAL_ERROR' });
    expect(await store.getJob(job.id)).toMatchObject({ status: 'error' });
  });

  it('ends the upload task of an upload event that failed every attempt', async () => {
    const { service, store, deps } = setup();
    const { tasks } = await service.createJob(1, planJob({ tasks: { up: { operation: 'import/upload' } } }));
    const id = tasks[0]!.id;
    expect((await store.getTask(id))!.status).toBe('waiting');
    await handleDeadLetter(failedUploadEvent(`uploads/${id}/report.pdf`), deps);
    expect(await store.getTask(id)).toMatchObject({ status: 'error', code: 'UPLOAD_FAILED' });
  });

  it('leaves finished tasks alone and only logs failed invocations it cannot place', async () => {
    const { service, store, deps } = setup();
    const { tasks } = await service.createJob(1, planJob({ tasks: { up: { operation: 'import/upload' } } }));
    const id = tasks[0]!.id;
    await store.finishWaiting(id, { files: [{ filename: 'a.txt', size: 3 }] });
    await handleDeadLetter(failedUploadEvent(`uploads/${id}/a.txt`), deps);
    expect((await store.getTask(id))!.status).toBe('finished');

    lines.length = 0;
    await handleDeadLetter(
      deadLetter.parse({ requestContext: { functionArn: 'arn:aws:lambda:us-east-1:1:function:sweeper', condition: 'RetriesExhausted' }, requestPayload: {} }),
      deps,
    );
    expect(lines.map((l) => JSON.parse(l))).toMatchObject([{ level: 'error', msg: 'an asynchronous invocation failed on every attempt', functionArn: expect.stringContaining('sweeper') }]);
  });
});
