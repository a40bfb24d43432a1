/** The operations of the local SQS server, by the name the X-Amz-Target header gives, over one QueueModel. */
import { FREEFORM_ATTRIBUTES, INTEGER_ATTRIBUTES, MAX_MESSAGE_SIZE, MAX_VISIBILITY_TIMEOUT, READ_ONLY_ATTRIBUTES } from './limits.js';
import {
  batchEntries,
  batchError,
  forEachEntry,
  invalidParameter,
  missingParameter,
  optInt,
  optString,
  optStringList,
  optStringMap,
  queueDoesNotExist,
  reqString,
  SqsError,
  type Json,
} from './protocol.js';
import { parseRedrivePolicy, type Queue, type QueueModel, type RequestContext } from './queue-model.js';

export type Operation = (model: QueueModel, input: Json, ctx: RequestContext) => Json | Promise<Json>;

const validQueueName = (name: string) => {
  if (name.endsWith('.fifo')) {
    throw new SqsError('UnsupportedOperation', 'This local SQS server supports standard queues only.', 'AWS.SimpleQueueService.UnsupportedOperation');
  }
  if (!/^[A-Za-z0-9_-]{1,80}$/.test(name)) {
    throw invalidParameter('Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length');
  }
  return name;
};

export const operations: Record<string, Operation> = {
  CreateQueue(model, input) {
    const name = validQueueName(reqString(input, 'QueueName'));
    const attributes = model.normaliseAttributes(name, optStringMap(input, 'Attributes'));
    const existing = model.queues.get(name);
    if (existing) {
      // Idempotent when every given attribute matches the existing queue's value (defaults included).
      const current = model.allAttributes(existing);
      for (const [key, value] of Object.entries(attributes)) {
        if ((current[key] ?? '') !== value) {
          throw new SqsError('QueueNameExists', `A queue already exists with the same name and a different value for attribute ${key}`, 'QueueAlreadyExists');
        }
      }
      return { QueueUrl: model.queueUrl(name) };
    }
    const t = Math.floor(Date.now() / 1000);
    const queue: Queue = { name, attributes: {}, tags: optStringMap(input, 'tags'), createdTimestamp: t, lastModifiedTimestamp: t, messages: new Map(), waiters: new Set() };
    model.applyAttributes(queue, attributes);
    model.queues.set(name, queue);
    model.changed();
    return { QueueUrl: model.queueUrl(name) };
  },

  GetQueueUrl(model, input) {
    const name = reqString(input, 'QueueName');
    if (!model.queues.has(name)) throw queueDoesNotExist();
    return { QueueUrl: model.queueUrl(name) };
  },

  ListQueues(model, input) {
    const prefix = optString(input, 'QueueNamePrefix') ?? '';
    const maxResults = optInt(input, 'MaxResults', 1, 1000);
    const after = optString(input, 'NextToken');
    let names = [...model.queues.keys()].filter((n) => n.startsWith(prefix)).sort();
    if (after !== undefined) {
      const last = Buffer.from(after, 'base64url').toString('utf8');
      names = names.filter((n) => n > last);
    }
    const result: Json = {};
    const page = maxResults === undefined ? names.slice(0, 1000) : names.slice(0, maxResults);
    if (page.length > 0) result.QueueUrls = page.map((n) => model.queueUrl(n));
    // Like SQS, NextToken is only used when MaxResults is given.
    if (maxResults !== undefined && names.length > page.length) result.NextToken = Buffer.from(page.at(-1)!, 'utf8').toString('base64url');
    return result;
  },

  DeleteQueue(model, input) {
    // SQS takes up to 60 s to delete a queue; here it is gone at once and pending polls are answered empty.
    model.dropQueue(model.queueFromUrl(input));
    model.changed();
    return {};
  },

  PurgeQueue(model, input) {
    // SQS refuses a second purge within 60 s (PurgeQueueInProgress); we do not.
    model.queueFromUrl(input).messages.clear();
    model.changed();
    return {};
  },

  GetQueueAttributes(model, input) {
    const queue = model.queueFromUrl(input);
    const names = optStringList(input, 'AttributeNames');
    if (names.length === 0) return {};
    const all = model.allAttributes(queue);
    if (names.includes('All')) return { Attributes: all };
    const known = new Set([...Object.keys(INTEGER_ATTRIBUTES), ...FREEFORM_ATTRIBUTES, ...READ_ONLY_ATTRIBUTES, 'RedrivePolicy', 'FifoQueue', 'ContentBasedDeduplication', 'DeduplicationScope', 'FifoThroughputLimit']);
    const attributes: Record<string, string> = {};
    for (const name of names) {
      if (!known.has(name)) throw new SqsError('InvalidAttributeName', `Unknown Attribute ${name}.`);
      if (all[name] !== undefined) attributes[name] = all[name];
    }
    return { Attributes: attributes };
  },

  SetQueueAttributes(model, input) {
    const queue = model.queueFromUrl(input);
    const given = optStringMap(input, 'Attributes');
    if (Object.keys(given).length === 0) throw missingParameter('Attributes');
    model.applyAttributes(queue, model.normaliseAttributes(queue.name, given));
    queue.lastModifiedTimestamp = Math.floor(Date.now() / 1000);
    model.changed();
    // A shorter delay can make messages visible earlier than the armed timer thinks; a redrive change matters too.
    model.serveWaiters(queue);
    return {};
  },

  SendMessage(model, input, ctx) {
    const queue = model.queueFromUrl(input);
    const result = model.enqueue(queue, input, ctx.senderId);
    model.changed();
    model.serveWaiters(queue);
    return result;
  },

  SendMessageBatch(model, input, ctx) {
    const queue = model.queueFromUrl(input);
    const entries = batchEntries(input);
    const total = entries.reduce((sum, e) => sum + (typeof e.MessageBody === 'string' ? Buffer.byteLength(e.MessageBody, 'utf8') : 0), 0);
    if (total > MAX_MESSAGE_SIZE) {
      throw batchError('BatchRequestTooLong', `Batch requests cannot be longer than ${MAX_MESSAGE_SIZE} bytes. You have sent ${total} bytes.`);
    }
    const result = forEachEntry(entries, (entry) => model.enqueue(queue, entry, ctx.senderId));
    model.changed();
    model.serveWaiters(queue);
    return result;
  },

  ReceiveMessage(model, input, ctx) {
    return model.receive(model.queueFromUrl(input), input, ctx);
  },

  DeleteMessage(model, input) {
    model.deleteByHandle(model.queueFromUrl(input), reqString(input, 'ReceiptHandle'));
    model.changed();
    return {};
  },

  DeleteMessageBatch(model, input) {
    const queue = model.queueFromUrl(input);
    const result = forEachEntry(batchEntries(input), (entry) => {
      model.deleteByHandle(queue, reqString(entry, 'ReceiptHandle'));
      return {};
    });
    model.changed();
    return result;
  },

  ChangeMessageVisibility(model, input) {
    const queue = model.queueFromUrl(input);
    const handle = reqString(input, 'ReceiptHandle');
    const timeout = optInt(input, 'VisibilityTimeout', 0, MAX_VISIBILITY_TIMEOUT);
    if (timeout === undefined) throw missingParameter('VisibilityTimeout');
    model.changeVisibility(queue, handle, timeout);
    model.changed();
    model.serveWaiters(queue);
    return {};
  },

  ChangeMessageVisibilityBatch(model, input) {
    const queue = model.queueFromUrl(input);
    const result = forEachEntry(batchEntries(input), (entry) => {
      const timeout = optInt(entry, 'VisibilityTimeout', 0, MAX_VISIBILITY_TIMEOUT);
      if (timeout === undefined) throw missingParameter('VisibilityTimeout');
      model.changeVisibility(queue, reqString(entry, 'ReceiptHandle'), timeout);
      return {};
    });
    model.changed();
    model.serveWaiters(queue);
    return result;
  },

  ListDeadLetterSourceQueues(model, input) {
    const arn = model.queueArn(model.queueFromUrl(input).name);
    const sources = [...model.queues.values()]
      .filter((q) => parseRedrivePolicy(q.attributes.RedrivePolicy)?.deadLetterTargetArn === arn)
      .map((q) => model.queueUrl(q.name))
      .sort();
    return { queueUrls: sources };
  },

  ListQueueTags(model, input) {
    const tags = model.queueFromUrl(input).tags;
    return Object.keys(tags).length > 0 ? { Tags: tags } : {};
  },

  TagQueue(model, input) {
    Object.assign(model.queueFromUrl(input).tags, optStringMap(input, 'Tags'));
    model.changed();
    return {};
  },

  UntagQueue(model, input) {
    const queue = model.queueFromUrl(input);
    for (const key of optStringList(input, 'TagKeys')) delete queue.tags[key];
    model.changed();
    return {};
  },
};

export const unsupported = new Set(['AddPermission', 'RemovePermission', 'StartMessageMoveTask', 'CancelMessageMoveTask', 'ListMessageMoveTasks']);
