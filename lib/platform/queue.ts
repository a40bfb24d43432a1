/** The queue singleton (SQS), kept apart from the other clients so only functions that send bundle it. */
import { SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../config.js';
import { SqsQueue } from '../queue/sqs.js';

let queue: SqsQueue | undefined;

export function queueClient(): SqsQueue {
  if (!queue) {
    const c = config();
    const sqs = new SQSClient({ region: c.AWS_REGION, endpoint: c.AWS_ENDPOINT_URL_SQS });
    queue = new SqsQueue(sqs, {
      import: c.IMPORT_QUEUE,
      process: c.PROCESS_QUEUE,
      export: c.EXPORT_QUEUE,
      operations: c.OPERATIONS_QUEUE,
      webhooks: c.WEBHOOKS_QUEUE,
    });
  }
  return queue;
}
