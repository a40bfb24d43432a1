/** The queue port: messages to the step consumers, delivered at least once. */

/** The process step's queues, one per engine family (lib/engines/core/families.ts); `process` is the image family's. */
export type ProcessQueueName = 'process' | 'process-media' | 'process-pdf' | 'process-chromium' | 'process-office';

/** Logical queues; each has one consumer function and a dead-letter queue (one process queue per engine family). */
export type QueueName = 'import' | ProcessQueueName | 'export' | 'operations' | 'webhooks';

export interface SendOptions {
  /** Delivery delay, 0–900 seconds. */
  delaySeconds?: number;
}

export interface Queue {
  send(queue: QueueName, message: unknown, opts?: SendOptions): Promise<void>;
  sendMany(queue: QueueName, messages: unknown[], opts?: SendOptions): Promise<void>;
}
