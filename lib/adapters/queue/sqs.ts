/** The queue port on SQS (locally the embedded SQS-protocol server, through the same client). */
import { ChangeMessageVisibilityCommand, GetQueueUrlCommand, SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Queue, QueueName, SendOptions } from './port.js';

/** What SQS takes: one message, and one batch of at most 10 messages, of at most 256 KiB. */
export const MAX_MESSAGE_BYTES = 256 * 1024;
const MAX_BATCH_ENTRIES = 10;

/** Message bodies grouped into batches SQS accepts, in order; a body over the limit is an error. */
export function batches(bodies: string[]): Array<Array<{ body: string; index: number }>> {
  const out: Array<Array<{ body: string; index: number }>> = [];
  let current: Array<{ body: string; index: number }> = [];
  let bytes = 0;
  bodies.forEach((body, index) => {
    const size = Buffer.byteLength(body);
    if (size > MAX_MESSAGE_BYTES) throw new Error(`a ${size}-byte message is larger than a queue message may be (${MAX_MESSAGE_BYTES})`);
    if (current.length === MAX_BATCH_ENTRIES || bytes + size > MAX_MESSAGE_BYTES) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push({ body, index });
    bytes += size;
  });
  if (current.length) out.push(current);
  return out;
}

export class SqsQueue implements Queue {
  readonly #urls = new Map<string, Promise<string>>();
  readonly #byName = new Map<string, Promise<string>>();

  /** `names` maps each logical queue to its SQS queue name. */
  constructor(
    private readonly sqs: SQSClient,
    private readonly names: Record<QueueName, string>,
  ) {}

  #url(queue: QueueName): Promise<string> {
    let url = this.#urls.get(queue);
    if (!url) {
      url = this.sqs.send(new GetQueueUrlCommand({ QueueName: this.names[queue] })).then((r) => r.QueueUrl ?? '');
      // Forget a failed lookup so the next call tries again.
      url.catch(() => this.#urls.delete(queue));
      this.#urls.set(queue, url);
    }
    return url;
  }

  /**
   * Sets when a received message is delivered again: `queueArn` and `receiptHandle` as a Lambda SQS
   * record carries them (`eventSourceARN`, `receiptHandle`).
   */
  async postpone(queueArn: string, receiptHandle: string, seconds: number): Promise<void> {
    const name = queueArn.slice(queueArn.lastIndexOf(':') + 1);
    let url = this.#byName.get(name);
    if (!url) {
      url = this.sqs.send(new GetQueueUrlCommand({ QueueName: name })).then((r) => r.QueueUrl ?? '');
      url.catch(() => this.#byName.delete(name));
      this.#byName.set(name, url);
    }
    await this.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: await url, ReceiptHandle: receiptHandle, VisibilityTimeout: seconds }));
  }

  async send(queue: QueueName, message: unknown, opts: SendOptions = {}): Promise<void> {
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: await this.#url(queue),
        MessageBody: JSON.stringify(message),
        DelaySeconds: opts.delaySeconds,
      }),
    );
  }

  async sendMany(queue: QueueName, messages: unknown[], opts: SendOptions = {}): Promise<void> {
    const QueueUrl = await this.#url(queue);
    for (const batch of batches(messages.map((m) => JSON.stringify(m)))) {
      let entries = batch.map(({ body, index }) => ({ Id: String(index), MessageBody: body, DelaySeconds: opts.delaySeconds }));
      for (let attempt = 0; entries.length; attempt++) {
        if (attempt >= 5) throw new Error(`could not send ${entries.length} messages to ${queue}`);
        const out = await this.sqs.send(new SendMessageBatchCommand({ QueueUrl, Entries: entries }));
        const failed = new Set((out.Failed ?? []).filter((f) => !f.SenderFault).map((f) => f.Id));
        const rejected = (out.Failed ?? []).filter((f) => f.SenderFault);
        if (rejected.length) throw new Error(`queue ${queue} rejected messages: ${rejected.map((f) => f.Message).join('; ')}`);
        entries = entries.filter((e) => failed.has(e.Id));
      }
    }
  }
}
