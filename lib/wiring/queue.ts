/** The queue singleton (SQS), kept apart from the other clients so only functions that send bundle it. */
import { SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../kernel/config.js';
import { SqsQueue } from '../adapters/queue/sqs.js';
import { BACKEND_CALL_LIMITS } from '../kernel/call-limits.js';

let queue: SqsQueue | undefined;

export function queueClient(): SqsQueue {
  if (!queue) {
    const c = config();
    const sqs = new SQSClient({ region: c.AWS_REGION, endpoint: c.AWS_ENDPOINT_URL_SQS, requestHandler: BACKEND_CALL_LIMITS });
    queue = new SqsQueue(sqs, {
      import: c.IMPORT_QUEUE,
      process: c.PROCESS_QUEUE,
      'process-media': c.PROCESS_MEDIA_QUEUE || `${c.PROCESS_QUEUE}-media`,
      'process-pdf': c.PROCESS_PDF_QUEUE || `${c.PROCESS_QUEUE}-pdf`,
      'process-chromium': c.PROCESS_CHROMIUM_QUEUE || `${c.PROCESS_QUEUE}-chromium`,
      'process-office': c.PROCESS_OFFICE_QUEUE || `${c.PROCESS_QUEUE}-office`,
      export: c.EXPORT_QUEUE,
      operations: c.OPERATIONS_QUEUE,
      webhooks: c.WEBHOOKS_QUEUE,
    });
  }
  return queue;
}
