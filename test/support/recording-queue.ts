/** A queue port that records what is sent, so tests can deliver messages by hand. */
import type { Queue, QueueName } from '#lib/adapters/queue/port.js';

export class RecordingQueue implements Queue {
  sent: Array<{ queue: QueueName; message: any; delaySeconds?: number }> = [];

  async send(queue: QueueName, message: unknown, opts: { delaySeconds?: number } = {}) {
    this.sent.push({ queue, message, delaySeconds: opts.delaySeconds });
  }

  async sendMany(queue: QueueName, messages: unknown[]) {
    for (const m of messages) await this.send(queue, m);
  }

  /** Removes and returns the messages sent to one queue. */
  take(queue: QueueName) {
    const out = this.sent.filter((s) => s.queue === queue);
    this.sent = this.sent.filter((s) => s.queue !== queue);
    return out;
  }
}

/** Settings for tests that build services by hand (no environment involved). */
export const TEST_CONFIG_ENV = {
  STATE_TABLE: 'state',
  FILES_BUCKET: 'files',
  IMPORT_QUEUE: 'i',
  PROCESS_QUEUE: 'p',
  EXPORT_QUEUE: 'e',
  OPERATIONS_QUEUE: 'o',
  WEBHOOKS_QUEUE: 'w',
} as const;
