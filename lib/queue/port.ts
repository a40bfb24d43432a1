/** The queue port: messages to the step consumers, delivered at least once. */

/** Logical queues; each has one consumer function and a dead-letter queue. */
export type QueueName = 'import' | 'process' | 'export' | 'operations' | 'webhooks';

export interface SendOptions {
  /** Delivery delay, 0–900 seconds. */
  delaySeconds?: number;
}

export interface Queue {
  send(queue: QueueName, message: unknown, opts?: SendOptions): Promise<void>;
  sendMany(queue: QueueName, messages: unknown[], opts?: SendOptions): Promise<void>;
}
