/**
 * The queue model of the local SQS server: standard queues in memory, their attributes, sending, receiving
 * (short and long polls, visibility timeouts, redrive to a dead-letter queue) and receipt handles.
 * Not implemented (on purpose): FIFO queues, permissions, message move tasks, the 60 s PurgeQueue / DeleteQueue delays.
 */
import { randomUUID } from 'node:crypto';
import { FREEFORM_ATTRIBUTES, INTEGER_ATTRIBUTES, MAX_BATCH_ENTRIES, MAX_DELAY_SECONDS, MAX_TIMER_MS, MAX_VISIBILITY_TIMEOUT, MAX_WAIT_TIME_SECONDS } from './limits.js';
import {
  attributeNameFilter,
  checkCharacters,
  makeReceiptHandle,
  md5Hex,
  md5OfMessageAttributes,
  parseReceiptHandle,
  readMessageAttributes,
  renderMessage,
  type ReceiveParams,
  type StoredMessage,
} from './messages.js';
import { invalidParameter, invalidValue, isObject, missingParameter, optInt, optStringList, queueDoesNotExist, receiptHandleIsInvalid, reqString, SqsError, type Json } from './protocol.js';

/** What the tests may look at without going through the protocol. */
export interface QueueStats {
  /** Receivable now. */
  visible: number;
  /** Received and still inside their visibility timeout. */
  inFlight: number;
  /** Never received yet, still inside their delay. */
  delayed: number;
}

export interface Waiter {
  params: ReceiveParams;
  finish(messages: Json[]): void;
}

export interface Queue {
  name: string;
  /** The settable attributes that were set explicitly (defaults are applied on read). */
  attributes: Record<string, string>;
  tags: Record<string, string>;
  /** Epoch seconds, as SQS reports them. */
  createdTimestamp: number;
  lastModifiedTimestamp: number;
  /** In send order; a Map keeps insertion order, so receives hand out the oldest visible messages first. */
  messages: Map<string, StoredMessage>;
  /** Pending long polls, served in arrival order. */
  waiters: Set<Waiter>;
  /** Fires when the next delayed or in-flight message becomes visible, while someone is waiting. */
  wakeTimer?: NodeJS.Timeout;
}

export interface RedrivePolicy {
  deadLetterTargetArn: string;
  maxReceiveCount: number;
}

/** The queue name is the last part of an ARN (arn:aws:sqs:<region>:<account>:<name>). */
export const queueNameFromArn = (arn: string) => arn.split(':').at(-1) ?? '';

/** Reads a stored (already validated and normalised) policy. */
export const parseRedrivePolicy = (text: string | undefined): RedrivePolicy | undefined =>
  text ? (JSON.parse(text) as RedrivePolicy) : undefined;

export interface RequestContext {
  /** Aborted when the client goes away before it got its answer (ends a long poll without taking messages). */
  signal: AbortSignal;
  senderId: string;
}

/** The queues of one server, by name. `changed` is called after every change a snapshot must hold. */
export class QueueModel {
  readonly queues = new Map<string, Queue>();
  /** While the server closes, long polls are not started nor woken. */
  closing = false;

  constructor(
    readonly queueUrl: (name: string) => string,
    readonly queueArn: (name: string) => string,
    readonly changed: () => void,
  ) {}

  // --- queue lookup and attributes ---------------------------------------------------------------------------

  queueFromUrl(input: Json): Queue {
    const url = reqString(input, 'QueueUrl');
    // Any URL form is accepted (another host, localstack style, a bare path): the last path segment is the name.
    let path = url;
    try {
      path = new URL(url).pathname;
    } catch {
      // not an absolute URL: use it as a path
    }
    const name = decodeURIComponent(path.split('/').filter(Boolean).at(-1) ?? '');
    const queue = this.queues.get(name);
    if (!queue) throw queueDoesNotExist();
    return queue;
  }

  intAttribute(queue: Queue, name: string): number {
    return Number(queue.attributes[name] ?? INTEGER_ATTRIBUTES[name]![2]);
  }

  /** Validates settable attributes and returns them normalised (as GetQueueAttributes will report them). */
  normaliseAttributes(queueName: string, given: Record<string, string>): Record<string, string> {
    const result: Record<string, string> = {};
    for (const [name, value] of Object.entries(given)) {
      const range = INTEGER_ATTRIBUTES[name];
      if (range) {
        const n = Number(value);
        if (value.trim() === '' || !Number.isInteger(n) || n < range[0] || n > range[1]) {
          throw new SqsError('InvalidAttributeValue', `Invalid value for the parameter ${name}. Reason: must be an integer between ${range[0]} and ${range[1]}.`);
        }
        result[name] = String(n);
      } else if (name === 'RedrivePolicy') {
        result[name] = value === '' ? '' : this.normaliseRedrivePolicy(queueName, value);
      } else if (name === 'FifoQueue' || name === 'ContentBasedDeduplication' || name === 'DeduplicationScope' || name === 'FifoThroughputLimit') {
        if (name === 'FifoQueue' && value === 'false') continue;
        throw new SqsError('UnsupportedOperation', `This local SQS server supports standard queues only (attribute ${name}).`, 'AWS.SimpleQueueService.UnsupportedOperation');
      } else if (FREEFORM_ATTRIBUTES.has(name)) {
        result[name] = value;
      } else {
        throw new SqsError('InvalidAttributeName', `Unknown Attribute ${name}.`);
      }
    }
    return result;
  }

  normaliseRedrivePolicy(queueName: string, text: string): string {
    const invalid = (reason: string) => invalidValue('RedrivePolicy', text, reason);
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw invalid('Redrive policy is not a valid JSON map.');
    }
    if (!isObject(raw) || typeof raw.deadLetterTargetArn !== 'string') throw invalid('Redrive policy does not contain mandatory attribute: deadLetterTargetArn.');
    // CloudFormation and the console send maxReceiveCount as a string, the API docs show a number: accept both.
    const count = Number(raw.maxReceiveCount);
    if (raw.maxReceiveCount === undefined || !Number.isInteger(count) || count < 1 || count > 1000) {
      throw invalid('Invalid value for maxReceiveCount: must be an integer from 1 to 1000.');
    }
    const target = queueNameFromArn(raw.deadLetterTargetArn);
    // Real SQS refuses a policy whose dead-letter queue does not exist (so create the DLQ first), and so do we.
    if (target === queueName) throw invalid('Dead letter target cannot be the queue itself.');
    if (!this.queues.has(target)) throw invalid('Dead letter target does not exist.');
    const policy: RedrivePolicy = { deadLetterTargetArn: raw.deadLetterTargetArn, maxReceiveCount: count };
    return JSON.stringify(policy);
  }

  applyAttributes(queue: Queue, attributes: Record<string, string>): void {
    for (const [name, value] of Object.entries(attributes)) {
      // Setting RedrivePolicy (or Policy…) to "" removes it, as in SQS.
      if (value === '') delete queue.attributes[name];
      else queue.attributes[name] = value;
    }
  }

  countMessages(queue: Queue): QueueStats {
    const t = Date.now();
    this.expireMessages(queue, t);
    const stats: QueueStats = { visible: 0, inFlight: 0, delayed: 0 };
    for (const m of queue.messages.values()) {
      if (m.visibleAt <= t) stats.visible++;
      else if (m.receiveCount > 0) stats.inFlight++;
      else stats.delayed++;
    }
    return stats;
  }

  allAttributes(queue: Queue): Record<string, string> {
    const stats = this.countMessages(queue);
    const result: Record<string, string> = {};
    for (const [name, [, , fallback]] of Object.entries(INTEGER_ATTRIBUTES)) {
      if (name !== 'KmsDataKeyReusePeriodSeconds' || queue.attributes.KmsMasterKeyId) result[name] = String(fallback);
    }
    // New queues get SQS-managed encryption by default (since 2022); it is only reported here.
    result.SqsManagedSseEnabled = queue.attributes.KmsMasterKeyId ? 'false' : 'true';
    Object.assign(result, queue.attributes);
    result.ApproximateNumberOfMessages = String(stats.visible);
    result.ApproximateNumberOfMessagesNotVisible = String(stats.inFlight);
    result.ApproximateNumberOfMessagesDelayed = String(stats.delayed);
    result.CreatedTimestamp = String(queue.createdTimestamp);
    result.LastModifiedTimestamp = String(queue.lastModifiedTimestamp);
    result.QueueArn = this.queueArn(queue.name);
    return result;
  }

  // --- sending ---------------------------------------------------------------------------------------------

  /** Validates one SendMessage(-Batch entry) input and stores the message. */
  enqueue(queue: Queue, input: Json, senderId: string): Json {
    const body = input.MessageBody;
    if (body === undefined || body === null || body === '') throw missingParameter('MessageBody');
    if (typeof body !== 'string') throw invalidValue('MessageBody', JSON.stringify(body), 'must be a string.');
    checkCharacters(body, 'the message body');
    const delay = optInt(input, 'DelaySeconds', 0, MAX_DELAY_SECONDS) ?? this.intAttribute(queue, 'DelaySeconds');
    const user = readMessageAttributes(input, 'MessageAttributes');
    const system = readMessageAttributes(input, 'MessageSystemAttributes');
    const size = Buffer.byteLength(body, 'utf8') + user.bytes;
    const maxSize = this.intAttribute(queue, 'MaximumMessageSize');
    if (size > maxSize) throw invalidParameter(`One or more parameters are invalid. Reason: Message must be shorter than ${maxSize} bytes.`);
    // Standard queues accept MessageGroupId (fair queues) and we ignore it; deduplication ids are FIFO only.
    if (input.MessageDeduplicationId !== undefined) {
      throw invalidParameter('The request include parameter that is not valid for this queue type. Reason: MessageDeduplicationId is only valid for FIFO queues.');
    }
    const t = Date.now();
    const message: StoredMessage = {
      messageId: randomUUID(),
      body,
      md5OfBody: md5Hex(body),
      messageAttributes: user.attributes,
      systemAttributes: system.attributes,
      senderId,
      sentTimestamp: t,
      visibleAt: t + delay * 1000,
      receiveCount: 0,
    };
    queue.messages.set(message.messageId, message);
    const result: Json = { MessageId: message.messageId, MD5OfMessageBody: message.md5OfBody };
    const md5Attributes = md5OfMessageAttributes(user.attributes);
    if (md5Attributes) result.MD5OfMessageAttributes = md5Attributes;
    const md5System = md5OfMessageAttributes(system.attributes);
    if (md5System) result.MD5OfMessageSystemAttributes = md5System;
    return result;
  }

  // --- receiving -------------------------------------------------------------------------------------------

  /** Drops messages older than the queue's retention period (SQS does so lazily too). */
  expireMessages(queue: Queue, t: number): void {
    const retentionMs = this.intAttribute(queue, 'MessageRetentionPeriod') * 1000;
    for (const m of queue.messages.values()) {
      if (m.sentTimestamp + retentionMs <= t) {
        queue.messages.delete(m.messageId);
        this.changed();
      }
    }
  }

  /**
   * Takes up to `params.max` visible messages, makes them invisible for the visibility timeout and renders them.
   *
   * Redrive: like SQS, the move to the dead-letter queue happens lazily, on the receive that would exceed
   * maxReceiveCount; the message is moved instead of being returned. It keeps its id, body, attributes and sent
   * timestamp (so retention still counts from the original send, as for SQS standard queues), gets the
   * DeadLetterQueueSourceArn attribute, and starts with a receive count of 0 in the DLQ (our choice: it keeps a DLQ
   * with its own redrive policy from passing the message straight on).
   */
  takeMessages(queue: Queue, params: ReceiveParams): Json[] {
    const t = Date.now();
    this.expireMessages(queue, t);
    const redrive = parseRedrivePolicy(queue.attributes.RedrivePolicy);
    const dlq = redrive ? this.queues.get(queueNameFromArn(redrive.deadLetterTargetArn)) : undefined;
    const taken: Json[] = [];
    let moved = false;
    for (const message of queue.messages.values()) {
      if (taken.length >= params.max) break;
      if (message.visibleAt > t) continue;
      if (redrive && dlq && message.receiveCount >= redrive.maxReceiveCount) {
        queue.messages.delete(message.messageId);
        message.receiveCount = 0;
        delete message.firstReceiveTimestamp;
        delete message.receiptHandle;
        message.visibleAt = t;
        message.deadLetterSourceArn = this.queueArn(queue.name);
        dlq.messages.set(message.messageId, message);
        moved = true;
        continue;
      }
      // (A redrive policy whose DLQ was deleted since leaves the message where it is.)
      message.receiveCount += 1;
      message.firstReceiveTimestamp ??= t;
      message.visibleAt = t + params.visibilityTimeout * 1000;
      message.receiptHandle = makeReceiptHandle(queue.name, message.messageId);
      taken.push(renderMessage(message, params));
    }
    if (taken.length > 0 || moved) this.changed();
    if (moved && dlq) this.serveWaiters(dlq);
    return taken;
  }

  /** Hands available messages to pending long polls, oldest poll first, then re-arms the wake-up timer. */
  serveWaiters(queue: Queue): void {
    for (const waiter of queue.waiters) {
      const messages = this.takeMessages(queue, waiter.params);
      if (messages.length === 0) break; // nothing visible is left for anyone
      waiter.finish(messages);
    }
    this.scheduleWake(queue);
  }

  /** While polls wait, wake up when the next delayed or in-flight message becomes visible. */
  scheduleWake(queue: Queue): void {
    clearTimeout(queue.wakeTimer);
    queue.wakeTimer = undefined;
    if (queue.waiters.size === 0 || this.closing) return;
    const t = Date.now();
    let next = Infinity;
    for (const m of queue.messages.values()) if (m.visibleAt > t && m.visibleAt < next) next = m.visibleAt;
    if (next === Infinity) return;
    queue.wakeTimer = setTimeout(() => {
      queue.wakeTimer = undefined;
      this.serveWaiters(queue);
    }, Math.min(next - t, MAX_TIMER_MS));
  }

  dropQueue(queue: Queue): void {
    this.queues.delete(queue.name);
    for (const waiter of queue.waiters) waiter.finish([]);
    clearTimeout(queue.wakeTimer);
    queue.wakeTimer = undefined;
  }

  receive(queue: Queue, input: Json, ctx: RequestContext): Json | Promise<Json> {
    const max = optInt(input, 'MaxNumberOfMessages', 1, MAX_BATCH_ENTRIES) ?? 1;
    const visibilityTimeout = optInt(input, 'VisibilityTimeout', 0, MAX_VISIBILITY_TIMEOUT) ?? this.intAttribute(queue, 'VisibilityTimeout');
    const wait = optInt(input, 'WaitTimeSeconds', 0, MAX_WAIT_TIME_SECONDS) ?? this.intAttribute(queue, 'ReceiveMessageWaitTimeSeconds');
    // AttributeNames is the deprecated spelling of MessageSystemAttributeNames; the SDK may send both. Unknown
    // names are ignored rather than refused.
    const systemNames = [...optStringList(input, 'AttributeNames'), ...optStringList(input, 'MessageSystemAttributeNames')];
    const wantsAllSystem = systemNames.includes('All');
    const params: ReceiveParams = {
      max,
      visibilityTimeout,
      systemAttributes: (name) => wantsAllSystem || systemNames.includes(name),
      messageAttributes: attributeNameFilter(optStringList(input, 'MessageAttributeNames')),
    };
    const reply = (messages: Json[]): Json => (messages.length > 0 ? { Messages: messages } : {});

    // Short poll: whatever is visible now. (Real SQS short polls sample a subset of its servers and may return
    // nothing although messages exist; with a single in-memory store we always look at everything.)
    if (wait === 0 || this.closing || ctx.signal.aborted) return reply(this.takeMessages(queue, params));
    // A long poll arriving while others already wait queues up behind them (they are served in arrival order).
    if (queue.waiters.size === 0) {
      const messages = this.takeMessages(queue, params);
      if (messages.length > 0) return reply(messages);
    }

    // Long polling: answer as soon as a message is available, or with nothing when the wait is over.
    return new Promise<Json>((resolve) => {
      const timer = setTimeout(() => waiter.finish([]), wait * 1000);
      const onAbort = () => waiter.finish([]);
      let finished = false;
      const waiter: Waiter = {
        params,
        finish: (taken) => {
          if (finished) return;
          finished = true;
          clearTimeout(timer);
          ctx.signal.removeEventListener('abort', onAbort);
          queue.waiters.delete(waiter);
          this.scheduleWake(queue);
          resolve(reply(taken));
        },
      };
      queue.waiters.add(waiter);
      ctx.signal.addEventListener('abort', onAbort);
      this.serveWaiters(queue);
    });
  }

  // --- receipt handles ---------------------------------------------------------------------------------------

  /**
   * Finds the message a receipt handle refers to. A malformed handle, or one from another queue, is
   * ReceiptHandleIsInvalid. A well-formed handle whose message was deleted, or was received again since (so this
   * handle is stale), yields undefined: SQS documents that deleting with such a handle succeeds without deleting.
   */
  messageByHandle(queue: Queue, handle: string): StoredMessage | undefined {
    const parsed = parseReceiptHandle(handle);
    if (!parsed || parsed.queueName !== queue.name) throw receiptHandleIsInvalid(handle);
    const message = queue.messages.get(parsed.messageId);
    return message?.receiptHandle === handle ? message : undefined;
  }

  deleteByHandle(queue: Queue, handle: string): void {
    const message = this.messageByHandle(queue, handle);
    if (message) queue.messages.delete(message.messageId);
  }

  changeVisibility(queue: Queue, handle: string, timeout: number): void {
    const message = this.messageByHandle(queue, handle);
    if (!message) {
      throw invalidValue('ReceiptHandle', handle, 'Message does not exist or is not available for visibility timeout change.');
    }
    const t = Date.now();
    // Once the timeout has run out the message is back in the queue: extending it is no longer possible.
    if (message.visibleAt <= t) throw new SqsError('MessageNotInflight', 'The message referred to is not in flight.', 'AWS.SimpleQueueService.MessageNotInflight');
    message.visibleAt = t + timeout * 1000;
  }
}
