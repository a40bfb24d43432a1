/** Messages of the local SQS server: their attributes (validated, digested), receipt handles, and how a receive renders one. */
import { createHash, randomUUID } from 'node:crypto';
import { MAX_MESSAGE_ATTRIBUTES } from './limits.js';
import { invalidParameter, invalidValue, isObject, SqsError, type Json } from './protocol.js';


/** A message attribute as the JSON protocol carries it (binary values base64-encoded). */
export interface MessageAttributeValue {
  DataType: string;
  StringValue?: string;
  BinaryValue?: string;
}

export interface StoredMessage {
  messageId: string;
  body: string;
  md5OfBody: string;
  messageAttributes: Record<string, MessageAttributeValue>;
  /** Only AWSTraceHeader can be sent. */
  systemAttributes: Record<string, MessageAttributeValue>;
  senderId: string;
  /** Epoch ms. */
  sentTimestamp: number;
  /** Epoch ms from which the message can be received (end of its delay or of its visibility timeout). */
  visibleAt: number;
  receiveCount: number;
  firstReceiveTimestamp?: number;
  /** The handle given by the latest receive; older handles of the same message no longer act on it. */
  receiptHandle?: string;
  /** Set when the message was moved here by a redrive policy. */
  deadLetterSourceArn?: string;
}


export const md5Hex = (data: string | Buffer) => createHash('md5').update(data).digest('hex');

/**
 * MD5OfMessageAttributes as SQS documents it: attributes sorted by name, and for each one the name, the data type
 * and the value, every part preceded by its length as a 4-byte big-endian integer, with a transport byte between
 * type and value (1 for String and Number values, 2 for Binary ones, which are hashed as raw bytes).
 * Undefined when there are no attributes (SQS then omits the field).
 */
export function md5OfMessageAttributes(attributes: Record<string, MessageAttributeValue>): string | undefined {
  const names = Object.keys(attributes).sort();
  if (names.length === 0) return undefined;
  const hash = createHash('md5');
  const lengthPrefixed = (bytes: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    hash.update(length).update(bytes);
  };
  for (const name of names) {
    const attribute = attributes[name]!;
    lengthPrefixed(Buffer.from(name, 'utf8'));
    lengthPrefixed(Buffer.from(attribute.DataType, 'utf8'));
    if (baseDataType(attribute.DataType) === 'Binary') {
      hash.update(Buffer.of(2));
      lengthPrefixed(Buffer.from(attribute.BinaryValue ?? '', 'base64'));
    } else {
      hash.update(Buffer.of(1));
      lengthPrefixed(Buffer.from(attribute.StringValue ?? '', 'utf8'));
    }
  }
  return hash.digest('hex');
}

export const baseDataType = (dataType: string) => dataType.split('.', 1)[0];

/** The characters SQS accepts in bodies and string attribute values (XML 1.0's Char production). */
export const INVALID_CHARACTER = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

export function checkCharacters(text: string, where: string): void {
  const bad = INVALID_CHARACTER.exec(text);
  if (bad) {
    const code = bad[0].codePointAt(0)!.toString(16).toUpperCase();
    throw new SqsError(
      'InvalidMessageContents',
      `Invalid binary character '#x${code}' was found in ${where}, the set of allowed characters is #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF`,
    );
  }
}

/** Validates `MessageAttributes` (or `MessageSystemAttributes`) and returns them normalised, with their size. */
export function readMessageAttributes(
  input: Json,
  field: 'MessageAttributes' | 'MessageSystemAttributes',
): { attributes: Record<string, MessageAttributeValue>; bytes: number } {
  const raw = input[field];
  const attributes: Record<string, MessageAttributeValue> = {};
  let bytes = 0;
  if (raw === undefined || raw === null) return { attributes, bytes };
  if (!isObject(raw)) throw invalidValue(field, JSON.stringify(raw), 'must be a map.');
  const entries = Object.entries(raw);
  if (field === 'MessageAttributes' && entries.length > MAX_MESSAGE_ATTRIBUTES) {
    throw invalidParameter(`Number of message attributes [${entries.length}] exceeds the allowed maximum [${MAX_MESSAGE_ATTRIBUTES}].`);
  }
  for (const [name, value] of entries) {
    if (field === 'MessageSystemAttributes') {
      if (name !== 'AWSTraceHeader') throw invalidParameter(`Message system attribute name '${name}' is invalid.`);
    } else if (
      name.length > 256 ||
      !/^[A-Za-z0-9_.-]+$/.test(name) ||
      /^(aws\.|amazon\.)/i.test(name) ||
      name.startsWith('.') ||
      name.endsWith('.') ||
      name.includes('..')
    ) {
      throw invalidParameter(`Message (user) attribute name '${name}' is invalid.`);
    }
    if (!isObject(value) || typeof value.DataType !== 'string' || value.DataType === '') {
      throw invalidParameter(`The message attribute '${name}' must contain a non-empty message attribute type.`);
    }
    const dataType = value.DataType;
    const base = baseDataType(dataType);
    if ((base !== 'String' && base !== 'Number' && base !== 'Binary') || dataType.length > 256) {
      throw invalidParameter(
        `The type of message (user) attribute '${name}' is invalid. You must use only the following supported type prefixes: Binary, Number, String.`,
      );
    }
    if (base === 'Binary') {
      const binary = value.BinaryValue;
      if (typeof binary !== 'string' || binary === '') {
        throw invalidParameter(`The message attribute '${name}' with type 'Binary' must use field 'Binary'.`);
      }
      attributes[name] = { DataType: dataType, BinaryValue: binary };
      bytes += Buffer.byteLength(binary, 'base64');
    } else {
      const text = value.StringValue;
      if (typeof text !== 'string' || text === '') {
        throw invalidParameter(`The message attribute '${name}' with type '${base}' must use field 'String'.`);
      }
      if (base === 'Number' && (text.trim() === '' || !Number.isFinite(Number(text)))) {
        throw invalidParameter(`Can't cast the value of message (user) attribute '${name}' to a number.`);
      }
      checkCharacters(text, `message attribute '${name}'`);
      attributes[name] = { DataType: dataType, StringValue: text };
      bytes += Buffer.byteLength(text, 'utf8');
    }
    bytes += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(dataType, 'utf8');
  }
  return { attributes, bytes };
}

/** Matches `MessageAttributeNames`: "All", ".*", exact names, or "prefix.*" for every name under that prefix. */
export function attributeNameFilter(requested: string[]): (name: string) => boolean {
  if (requested.some((n) => n === 'All' || n === '.*')) return () => true;
  const exact = new Set(requested.filter((n) => !n.endsWith('.*')));
  const prefixes = requested.filter((n) => n.endsWith('.*')).map((n) => n.slice(0, -1));
  return (name) => exact.has(name) || prefixes.some((p) => name.startsWith(p));
}

// Receipt handles: opaque to clients, but they encode which queue and message they belong to, so that a handle from
// another queue, or garbage, is told apart from a well-formed handle whose message is gone or was received again.
export const makeReceiptHandle = (queueName: string, messageId: string) =>
  Buffer.from(`${queueName}\n${messageId}\n${randomUUID()}`, 'utf8').toString('base64url');

export function parseReceiptHandle(handle: string): { queueName: string; messageId: string } | undefined {
  const parts = Buffer.from(handle, 'base64url').toString('utf8').split('\n');
  if (parts.length !== 3 || !parts[0] || !parts[1] || !parts[2]) return undefined;
  return { queueName: parts[0], messageId: parts[1] };
}

export interface ReceiveParams {
  max: number;
  visibilityTimeout: number;
  systemAttributes: (name: string) => boolean;
  messageAttributes: (name: string) => boolean;
}

export function renderMessage(message: StoredMessage, params: ReceiveParams): Json {
  const system: Record<string, string | undefined> = {
    SenderId: message.senderId,
    SentTimestamp: String(message.sentTimestamp),
    ApproximateReceiveCount: String(message.receiveCount),
    ApproximateFirstReceiveTimestamp: message.firstReceiveTimestamp === undefined ? undefined : String(message.firstReceiveTimestamp),
    AWSTraceHeader: message.systemAttributes.AWSTraceHeader?.StringValue,
    DeadLetterQueueSourceArn: message.deadLetterSourceArn,
  };
  const attributes: Record<string, string> = {};
  for (const [name, value] of Object.entries(system)) {
    if (value !== undefined && params.systemAttributes(name)) attributes[name] = value;
  }
  const messageAttributes: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(message.messageAttributes)) {
    if (params.messageAttributes(name)) messageAttributes[name] = value;
  }
  const rendered: Json = {
    MessageId: message.messageId,
    ReceiptHandle: message.receiptHandle,
    MD5OfBody: message.md5OfBody,
    Body: message.body,
  };
  if (Object.keys(attributes).length > 0) rendered.Attributes = attributes;
  // The digest covers the attributes returned, so that clients that verify it (Java, Go) can; it is omitted
  // when none are returned.
  const md5 = md5OfMessageAttributes(messageAttributes);
  if (md5) {
    rendered.MessageAttributes = messageAttributes;
    rendered.MD5OfMessageAttributes = md5;
  }
  return rendered;
}
