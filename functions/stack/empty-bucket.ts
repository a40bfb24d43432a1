/**
 * CloudFormation custom resource `Custom::EmptyBucket`: when the stack is deleted (`serverless
 * remove`), the files bucket is emptied so that CloudFormation can delete it. Creation and updates
 * do nothing. CloudFormation waits for the answer at the presigned `ResponseURL`, so every path ends
 * with one, failures included (a stack never hangs on this resource).
 */
import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import { fileStore } from '#lib/wiring/files.js';
import { rootLogger } from '#lib/kernel/root-logger.js';

type Answer = { Status: 'SUCCESS' | 'FAILED'; Reason?: string };

async function respond(event: CloudFormationCustomResourceEvent, context: Context, answer: Answer): Promise<void> {
  const body = JSON.stringify({
    ...answer,
    Reason: answer.Reason ?? `See CloudWatch log stream ${context.logStreamName}`,
    PhysicalResourceId: 'PhysicalResourceId' in event ? event.PhysicalResourceId : `empty-bucket-${event.LogicalResourceId}`,
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
  });
  // The presigned URL is signed for an empty content type.
  const res = await fetch(event.ResponseURL, { method: 'PUT', body, headers: { 'content-type': '' } });
  if (!res.ok) throw new Error(`CloudFormation did not take the answer: HTTP ${res.status}`);
}

export async function handler(event: CloudFormationCustomResourceEvent, context: Context): Promise<void> {
  const log = rootLogger().child({ function: 'empty-bucket', requestType: event.RequestType });
  let answer: Answer = { Status: 'SUCCESS' };
  if (event.RequestType === 'Delete') {
    try {
      let deleted = 0;
      // Objects written while a round runs are caught by the next one; a few rounds are plenty.
      for (let round = 0; round < 5; round++) {
        const n = await fileStore().deletePrefix('');
        deleted += n;
        if (n === 0) break;
      }
      log.info('files bucket emptied', { deleted });
    } catch (err) {
      log.error('could not empty the files bucket', { error: err });
      answer = { Status: 'FAILED', Reason: `Could not empty the files bucket: ${(err as Error).message}` };
    }
  }
  await respond(event, context, answer);
}
