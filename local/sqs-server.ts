/**
 * A small local SQS server for `npm start` and the tests: standard queues only, in memory, optionally
 * persisted to a JSON file.
 *
 * It speaks the AWS JSON 1.0 protocol exactly as `@aws-sdk/client-sqs` 3.x sends it:
 *   POST /   Content-Type: application/x-amz-json-1.0   X-Amz-Target: AmazonSQS.<Operation>   JSON body
 * and answers with a JSON body. Errors are HTTP 4xx with `{"__type":"com.amazonaws.sqs#<Name>","message":…}`
 * plus the `x-amzn-query-error: <query code>;Sender` header: the SDK is configured "awsQueryCompatible", reads
 * the code from that header first and maps it back to its modelled exception (`err.name === 'QueueDoesNotExist'`).
 *
 * Not implemented (on purpose): FIFO queues, request signature checks (any credentials are accepted),
 * permissions (AddPermission/RemovePermission), message move tasks, the 60 s PurgeQueue / DeleteQueue delays.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { keepIdleConnections } from './idle.js';

export interface SqsServerOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** When set, queues and messages are saved to this JSON file and loaded from it on start. */
  persistFile?: string;
  /** Used in queue ARNs; default us-east-1. */
  region?: string;
  /** Used in queue URLs and ARNs; default 000000000000. */
  accountId?: string;
}

/** What the tests may look at without going through the protocol. */
export interface QueueStats {
  /** Receivable now. */
  visible: number;
  /** Received and still inside their visibility timeout. */
  inFlight: number;
  /** Never received yet, still inside their delay. */
  delayed: number;
}

export interface SqsServer {
  /** e.g. http://127.0.0.1:41234, the endpoint to give an SQSClient. */
  url: string;
  port: number;
  region: string;
  accountId: string;
  queueUrl(queueName: string): string;
  queueArn(queueName: string): string;
  /** Names of the existing queues, sorted. */
  queueNames(): string[];
  /** Message counts of a queue, or undefined when there is no such queue. */
  stats(queueName: string): QueueStats | undefined;
  /** Writes the persistence snapshot now (no-op without `persistFile`). */
  flush(): Promise<void>;
  /** Answers pending long polls (with no messages), stops listening, clears timers and writes a final snapshot. */
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------------------------
// Limits and defaults (as documented for SQS standard queues)

const MAX_BATCH_ENTRIES = 10;
const MAX_MESSAGE_ATTRIBUTES = 10;
const MAX_VISIBILITY_TIMEOUT = 43_200;
const MAX_DELAY_SECONDS = 900;
const MAX_WAIT_TIME_SECONDS = 20;
/** SQS raised the maximum message (and batch) size to 1 MiB in 2025; it is also the new default. */
const MAX_MESSAGE_SIZE = 1_048_576;
/** A request body larger than this is refused before parsing (a full batch, JSON-escaped, fits easily). */
const MAX_REQUEST_BYTES = 8 * 1024 * 1024;
/** Delay between a change and the snapshot write; changes within it are written together. */
const PERSIST_DEBOUNCE_MS = 100;
/** setTimeout's largest delay; longer waits are re-armed. */
const MAX_TIMER_MS = 2_147_483_647;

/** Settable integer attributes: [min, max, default]. */
const INTEGER_ATTRIBUTES: Record<string, readonly [number, number, number]> = {
  DelaySeconds: [0, MAX_DELAY_SECONDS, 0],
  MaximumMessageSize: [1024, MAX_MESSAGE_SIZE, MAX_MESSAGE_SIZE],
  MessageRetentionPeriod: [60, 1_209_600, 345_600],
  ReceiveMessageWaitTimeSeconds: [0, MAX_WAIT_TIME_SECONDS, 0],
  VisibilityTimeout: [0, MAX_VISIBILITY_TIMEOUT, 30],
  KmsDataKeyReusePeriodSeconds: [60, 86_400, 300],
};
/** Settable attributes kept as given (we do not enforce policies or encrypt anything). */
const FREEFORM_ATTRIBUTES = new Set(['Policy', 'RedriveAllowPolicy', 'KmsMasterKeyId', 'SqsManagedSseEnabled']);
/** Computed attributes: readable, never settable. */
const READ_ONLY_ATTRIBUTES = [
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesNotVisible',
  'ApproximateNumberOfMessagesDelayed',
  'CreatedTimestamp',
  'LastModifiedTimestamp',
  'QueueArn',
] as const;

// ---------------------------------------------------------------------------------------------------------------
// Errors in the JSON protocol's shape

class SqsError extends Error {
  /**
   * @param type      the shape name, sent as `__type: com.amazonaws.sqs#<type>`
   * @param queryCode the legacy query-protocol code, sent in `x-amzn-query-error` (the SDK maps it back to `type`)
   * @param status    HTTP status, as modelled in the SDK for that error
   */
  constructor(
    readonly type: string,
    message: string,
    readonly queryCode: string = type,
    readonly status = 400,
    readonly fault: 'Sender' | 'Receiver' = 'Sender',
  ) {
    super(message);
  }
}

const queueDoesNotExist = () =>
  new SqsError('QueueDoesNotExist', 'The specified queue does not exist.', 'AWS.SimpleQueueService.NonExistentQueue');
const invalidParameter = (message: string) => new SqsError('InvalidParameterValue', message);
const invalidValue = (name: string, value: unknown, reason: string) =>
  invalidParameter(`Value ${String(value)} for parameter ${name} is invalid. Reason: ${reason}`);
const missingParameter = (name: string) =>
  new SqsError('MissingParameter', `The request must contain the parameter ${name}.`);
const receiptHandleIsInvalid = (handle: string) =>
  new SqsError('ReceiptHandleIsInvalid', `The input receipt handle "${handle}" is not a valid receipt handle.`, 'ReceiptHandleIsInvalid', 404);
const batchError = (type: string, message: string) => new SqsError(type, message, `AWS.SimpleQueueService.${type}`);

// ---------------------------------------------------------------------------------------------------------------
// Reading the JSON input

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function optString(input: Json, name: string): string | undefined {
  const v = input[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalidValue(name, JSON.stringify(v), 'must be a string.');
  return v;
}

function reqString(input: Json, name: string): string {
  const v = optString(input, name);
  if (v === undefined || v === '') throw missingParameter(name);
  return v;
}

function optInt(input: Json, name: string, min: number, max: number): number | undefined {
  const v = input[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw invalidValue(name, JSON.stringify(v), 'must be an integer.');
  if (v < min || v > max) throw invalidValue(name, v, `Must be between ${min} and ${max}, if provided.`);
  return v;
}

function optStringList(input: Json, name: string): string[] {
  const v = input[name];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) throw invalidValue(name, JSON.stringify(v), 'must be a list of strings.');
  return v as string[];
}

function optStringMap(input: Json, name: string): Record<string, string> {
  const v = input[name];
  if (v === undefined || v === null) return {};
  if (!isObject(v) || !Object.values(v).every((s) => typeof s === 'string')) {
    throw invalidValue(name, JSON.stringify(v), 'must be a map of strings.');
  }
  return v as Record<string, string>;
}

function batchEntries(input: Json): Json[] {
  const v = input.Entries;
  if (v === undefined || v === null) throw missingParameter('Entries');
  if (!Array.isArray(v) || !v.every(isObject)) throw invalidValue('Entries', JSON.stringify(v), 'must be a list of entries.');
  if (v.length === 0) throw batchError('EmptyBatchRequest', 'There should be at least one entry in the request.');
  if (v.length > MAX_BATCH_ENTRIES) {
    throw batchError('TooManyEntriesInBatchRequest', `Maximum number of entries per request are ${MAX_BATCH_ENTRIES}. You have sent ${v.length}.`);
  }
  const seen = new Set<string>();
  for (const entry of v) {
    const id = entry.Id;
    if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,80}$/.test(id)) {
      throw batchError('InvalidBatchEntryId', 'A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.');
    }
    if (seen.has(id)) throw batchError('BatchEntryIdsNotDistinct', `Id ${id} repeated.`);
    seen.add(id);
  }
  return v;
}

// ---------------------------------------------------------------------------------------------------------------
// Messages

/** A message attribute as the JSON protocol carries it (binary values base64-encoded). */
export interface MessageAttributeValue {
  DataType: string;
  StringValue?: string;
  BinaryValue?: string;
}

interface StoredMessage {
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

interface Waiter {
  params: ReceiveParams;
  finish(messages: Json[]): void;
}

interface Queue {
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

const md5Hex = (data: string | Buffer) => createHash('md5').update(data).digest('hex');

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

const baseDataType = (dataType: string) => dataType.split('.', 1)[0];

/** The characters SQS accepts in bodies and string attribute values (XML 1.0's Char production). */
const INVALID_CHARACTER = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

function checkCharacters(text: string, where: string): void {
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
function readMessageAttributes(
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
function attributeNameFilter(requested: string[]): (name: string) => boolean {
  if (requested.some((n) => n === 'All' || n === '.*')) return () => true;
  const exact = new Set(requested.filter((n) => !n.endsWith('.*')));
  const prefixes = requested.filter((n) => n.endsWith('.*')).map((n) => n.slice(0, -1));
  return (name) => exact.has(name) || prefixes.some((p) => name.startsWith(p));
}

// Receipt handles: opaque to clients, but they encode which queue and message they belong to, so that a handle from
// another queue, or garbage, is told apart from a well-formed handle whose message is gone or was received again.
const makeReceiptHandle = (queueName: string, messageId: string) =>
  Buffer.from(`${queueName}\n${messageId}\n${randomUUID()}`, 'utf8').toString('base64url');

function parseReceiptHandle(handle: string): { queueName: string; messageId: string } | undefined {
  const parts = Buffer.from(handle, 'base64url').toString('utf8').split('\n');
  if (parts.length !== 3 || !parts[0] || !parts[1] || !parts[2]) return undefined;
  return { queueName: parts[0], messageId: parts[1] };
}

// ---------------------------------------------------------------------------------------------------------------
// Redrive policy

interface RedrivePolicy {
  deadLetterTargetArn: string;
  maxReceiveCount: number;
}

/** The queue name is the last part of an ARN (arn:aws:sqs:<region>:<account>:<name>). */
const queueNameFromArn = (arn: string) => arn.split(':').at(-1) ?? '';

/** Reads a stored (already validated and normalised) policy. */
const parseRedrivePolicy = (text: string | undefined): RedrivePolicy | undefined =>
  text ? (JSON.parse(text) as RedrivePolicy) : undefined;

// ---------------------------------------------------------------------------------------------------------------
// Persistence: a JSON snapshot, written after changes (debounced), atomically (temp file + rename).

interface Snapshot {
  version: 1;
  queues: Array<Omit<Queue, 'messages' | 'waiters' | 'wakeTimer'> & { messages: StoredMessage[] }>;
}

class SnapshotWriter {
  #timer?: NodeJS.Timeout;
  #writing?: Promise<void>;
  #dirty = false;

  constructor(
    private readonly file: string,
    private readonly snapshot: () => Snapshot,
  ) {}

  /** Something changed: write soon. */
  changed(): void {
    this.#dirty = true;
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.flush().catch((err: unknown) => console.error(`[sqs] could not write ${this.file}:`, err));
    }, PERSIST_DEBOUNCE_MS);
  }

  /** Writes now if anything changed since the last write; one write at a time. */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#writing) await this.#writing;
    if (!this.#dirty) return;
    this.#dirty = false;
    this.#writing = this.#write().finally(() => (this.#writing = undefined));
    await this.#writing;
  }

  async #write(): Promise<void> {
    // Serialise synchronously, so the snapshot is one consistent moment even if the file write is slow.
    const text = JSON.stringify(this.snapshot());
    const temp = `${this.file}.${process.pid}.tmp`;
    await mkdir(dirname(this.file), { recursive: true });
    await writeFile(temp, text, 'utf8');
    await rename(temp, this.file);
  }
}

async function loadSnapshot(file: string): Promise<Snapshot | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const snapshot = JSON.parse(text) as Snapshot;
  if (snapshot.version !== 1 || !Array.isArray(snapshot.queues)) throw new Error(`${file} is not an SQS snapshot this server understands`);
  return snapshot;
}

// ---------------------------------------------------------------------------------------------------------------
// The server

interface ReceiveParams {
  max: number;
  visibilityTimeout: number;
  systemAttributes: (name: string) => boolean;
  messageAttributes: (name: string) => boolean;
}

interface RequestContext {
  /** Aborted when the client goes away before it got its answer (ends a long poll without taking messages). */
  signal: AbortSignal;
  senderId: string;
}

type Operation = (input: Json, ctx: RequestContext) => Json | Promise<Json>;

export async function startSqsServer(opts: SqsServerOptions = {}): Promise<SqsServer> {
  const host = opts.host ?? '127.0.0.1';
  const region = opts.region ?? 'us-east-1';
  const accountId = opts.accountId ?? '000000000000';
  const queues = new Map<string, Queue>();
  let baseUrl = '';
  let closing = false;

  const queueUrl = (name: string) => `${baseUrl}/${accountId}/${name}`;
  const queueArn = (name: string) => `arn:aws:sqs:${region}:${accountId}:${name}`;
  const now = () => Date.now();

  const writer = opts.persistFile
    ? new SnapshotWriter(opts.persistFile, () => ({
        version: 1,
        queues: [...queues.values()].map(({ messages, waiters: _w, wakeTimer: _t, ...rest }) => ({ ...rest, messages: [...messages.values()] })),
      }))
    : undefined;
  const changed = () => writer?.changed();

  if (opts.persistFile) {
    const snapshot = await loadSnapshot(opts.persistFile);
    const t = now();
    for (const saved of snapshot?.queues ?? []) {
      const messages = new Map<string, StoredMessage>();
      for (const m of saved.messages) {
        // Whoever held an in-flight message went away with the previous process: make it receivable again
        // (its receive count stays, so a redrive policy still applies). Delayed messages keep their delay.
        if (m.receiptHandle && m.visibleAt > t) m.visibleAt = t;
        delete m.receiptHandle;
        messages.set(m.messageId, m);
      }
      queues.set(saved.name, { ...saved, messages, waiters: new Set() });
    }
  }

  // --- queue lookup and attributes ---------------------------------------------------------------------------

  function queueFromUrl(input: Json): Queue {
    const url = reqString(input, 'QueueUrl');
    // Any URL form is accepted (another host, localstack style, a bare path): the last path segment is the name.
    let path = url;
    try {
      path = new URL(url).pathname;
    } catch {
      // not an absolute URL: use it as a path
    }
    const name = decodeURIComponent(path.split('/').filter(Boolean).at(-1) ?? '');
    const queue = queues.get(name);
    if (!queue) throw queueDoesNotExist();
    return queue;
  }

  const intAttribute = (queue: Queue, name: string): number => Number(queue.attributes[name] ?? INTEGER_ATTRIBUTES[name]![2]);

  /** Validates settable attributes and returns them normalised (as GetQueueAttributes will report them). */
  function normaliseAttributes(queueName: string, given: Record<string, string>): Record<string, string> {
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
        result[name] = value === '' ? '' : normaliseRedrivePolicy(queueName, value);
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

  function normaliseRedrivePolicy(queueName: string, text: string): string {
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
    if (!queues.has(target)) throw invalid('Dead letter target does not exist.');
    const policy: RedrivePolicy = { deadLetterTargetArn: raw.deadLetterTargetArn, maxReceiveCount: count };
    return JSON.stringify(policy);
  }

  function applyAttributes(queue: Queue, attributes: Record<string, string>): void {
    for (const [name, value] of Object.entries(attributes)) {
      // Setting RedrivePolicy (or Policy…) to "" removes it, as in SQS.
      if (value === '') delete queue.attributes[name];
      else queue.attributes[name] = value;
    }
  }

  function countMessages(queue: Queue): QueueStats {
    const t = now();
    expireMessages(queue, t);
    const stats: QueueStats = { visible: 0, inFlight: 0, delayed: 0 };
    for (const m of queue.messages.values()) {
      if (m.visibleAt <= t) stats.visible++;
      else if (m.receiveCount > 0) stats.inFlight++;
      else stats.delayed++;
    }
    return stats;
  }

  function allAttributes(queue: Queue): Record<string, string> {
    const stats = countMessages(queue);
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
    result.QueueArn = queueArn(queue.name);
    return result;
  }

  // --- sending ---------------------------------------------------------------------------------------------

  /** Validates one SendMessage(-Batch entry) input and stores the message. */
  function enqueue(queue: Queue, input: Json, senderId: string): Json {
    const body = input.MessageBody;
    if (body === undefined || body === null || body === '') throw missingParameter('MessageBody');
    if (typeof body !== 'string') throw invalidValue('MessageBody', JSON.stringify(body), 'must be a string.');
    checkCharacters(body, 'the message body');
    const delay = optInt(input, 'DelaySeconds', 0, MAX_DELAY_SECONDS) ?? intAttribute(queue, 'DelaySeconds');
    const user = readMessageAttributes(input, 'MessageAttributes');
    const system = readMessageAttributes(input, 'MessageSystemAttributes');
    const size = Buffer.byteLength(body, 'utf8') + user.bytes;
    const maxSize = intAttribute(queue, 'MaximumMessageSize');
    if (size > maxSize) throw invalidParameter(`One or more parameters are invalid. Reason: Message must be shorter than ${maxSize} bytes.`);
    // Standard queues accept MessageGroupId (fair queues) and we ignore it; deduplication ids are FIFO only.
    if (input.MessageDeduplicationId !== undefined) {
      throw invalidParameter('The request include parameter that is not valid for this queue type. Reason: MessageDeduplicationId is only valid for FIFO queues.');
    }
    const t = now();
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
  function expireMessages(queue: Queue, t: number): void {
    const retentionMs = intAttribute(queue, 'MessageRetentionPeriod') * 1000;
    for (const m of queue.messages.values()) {
      if (m.sentTimestamp + retentionMs <= t) {
        queue.messages.delete(m.messageId);
        changed();
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
  function takeMessages(queue: Queue, params: ReceiveParams): Json[] {
    const t = now();
    expireMessages(queue, t);
    const redrive = parseRedrivePolicy(queue.attributes.RedrivePolicy);
    const dlq = redrive ? queues.get(queueNameFromArn(redrive.deadLetterTargetArn)) : undefined;
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
        message.deadLetterSourceArn = queueArn(queue.name);
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
    if (taken.length > 0 || moved) changed();
    if (moved && dlq) serveWaiters(dlq);
    return taken;
  }

  function renderMessage(message: StoredMessage, params: ReceiveParams): Json {
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

  /** Hands available messages to pending long polls, oldest poll first, then re-arms the wake-up timer. */
  function serveWaiters(queue: Queue): void {
    for (const waiter of queue.waiters) {
      const messages = takeMessages(queue, waiter.params);
      if (messages.length === 0) break; // nothing visible is left for anyone
      waiter.finish(messages);
    }
    scheduleWake(queue);
  }

  /** While polls wait, wake up when the next delayed or in-flight message becomes visible. */
  function scheduleWake(queue: Queue): void {
    clearTimeout(queue.wakeTimer);
    queue.wakeTimer = undefined;
    if (queue.waiters.size === 0 || closing) return;
    const t = now();
    let next = Infinity;
    for (const m of queue.messages.values()) if (m.visibleAt > t && m.visibleAt < next) next = m.visibleAt;
    if (next === Infinity) return;
    queue.wakeTimer = setTimeout(() => {
      queue.wakeTimer = undefined;
      serveWaiters(queue);
    }, Math.min(next - t, MAX_TIMER_MS));
  }

  function dropQueue(queue: Queue): void {
    queues.delete(queue.name);
    for (const waiter of queue.waiters) waiter.finish([]);
    clearTimeout(queue.wakeTimer);
    queue.wakeTimer = undefined;
  }

  function receive(queue: Queue, input: Json, ctx: RequestContext): Json | Promise<Json> {
    const max = optInt(input, 'MaxNumberOfMessages', 1, MAX_BATCH_ENTRIES) ?? 1;
    const visibilityTimeout = optInt(input, 'VisibilityTimeout', 0, MAX_VISIBILITY_TIMEOUT) ?? intAttribute(queue, 'VisibilityTimeout');
    const wait = optInt(input, 'WaitTimeSeconds', 0, MAX_WAIT_TIME_SECONDS) ?? intAttribute(queue, 'ReceiveMessageWaitTimeSeconds');
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
    if (wait === 0 || closing || ctx.signal.aborted) return reply(takeMessages(queue, params));
    // A long poll arriving while others already wait queues up behind them (they are served in arrival order).
    if (queue.waiters.size === 0) {
      const messages = takeMessages(queue, params);
      if (messages.length > 0) return reply(messages);
    }

    // Long polling: answer as soon as a message is available, or with nothing when the wait is over.
    return new Promise<Json>((resolve) => {
      const timer = setTimeout(() => waiter.finish([]), wait * 1000);
      const onAbort = () => waiter.finish([]);
      let finished = false;
      const waiter: Waiter = {
        params,
        finish(taken) {
          if (finished) return;
          finished = true;
          clearTimeout(timer);
          ctx.signal.removeEventListener('abort', onAbort);
          queue.waiters.delete(waiter);
          scheduleWake(queue);
          resolve(reply(taken));
        },
      };
      queue.waiters.add(waiter);
      ctx.signal.addEventListener('abort', onAbort);
      serveWaiters(queue);
    });
  }

  // --- receipt handles ---------------------------------------------------------------------------------------

  /**
   * Finds the message a receipt handle refers to. A malformed handle, or one from another queue, is
   * ReceiptHandleIsInvalid. A well-formed handle whose message was deleted, or was received again since (so this
   * handle is stale), yields undefined: SQS documents that deleting with such a handle succeeds without deleting.
   */
  function messageByHandle(queue: Queue, handle: string): StoredMessage | undefined {
    const parsed = parseReceiptHandle(handle);
    if (!parsed || parsed.queueName !== queue.name) throw receiptHandleIsInvalid(handle);
    const message = queue.messages.get(parsed.messageId);
    return message?.receiptHandle === handle ? message : undefined;
  }

  function deleteByHandle(queue: Queue, handle: string): void {
    const message = messageByHandle(queue, handle);
    if (message) queue.messages.delete(message.messageId);
  }

  function changeVisibility(queue: Queue, handle: string, timeout: number): void {
    const message = messageByHandle(queue, handle);
    if (!message) {
      throw invalidValue('ReceiptHandle', handle, 'Message does not exist or is not available for visibility timeout change.');
    }
    const t = now();
    // Once the timeout has run out the message is back in the queue: extending it is no longer possible.
    if (message.visibleAt <= t) throw new SqsError('MessageNotInflight', 'The message referred to is not in flight.', 'AWS.SimpleQueueService.MessageNotInflight');
    message.visibleAt = t + timeout * 1000;
  }

  /** Runs `action` for each batch entry, collecting Successful and Failed as the batch APIs report them. */
  function forEachEntry(entries: Json[], action: (entry: Json) => Json): Json {
    const successful: Json[] = [];
    const failed: Json[] = [];
    for (const entry of entries) {
      try {
        successful.push({ Id: entry.Id, ...action(entry) });
      } catch (err) {
        if (!(err instanceof SqsError)) throw err;
        failed.push({ Id: entry.Id, SenderFault: err.fault === 'Sender', Code: err.queryCode, Message: err.message });
      }
    }
    return { Successful: successful, Failed: failed };
  }

  // --- operations ------------------------------------------------------------------------------------------

  const validQueueName = (name: string) => {
    if (name.endsWith('.fifo')) {
      throw new SqsError('UnsupportedOperation', 'This local SQS server supports standard queues only.', 'AWS.SimpleQueueService.UnsupportedOperation');
    }
    if (!/^[A-Za-z0-9_-]{1,80}$/.test(name)) {
      throw invalidParameter('Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length');
    }
    return name;
  };

  const operations: Record<string, Operation> = {
    CreateQueue(input) {
      const name = validQueueName(reqString(input, 'QueueName'));
      const attributes = normaliseAttributes(name, optStringMap(input, 'Attributes'));
      const existing = queues.get(name);
      if (existing) {
        // Idempotent when every given attribute matches the existing queue's value (defaults included).
        const current = allAttributes(existing);
        for (const [key, value] of Object.entries(attributes)) {
          if ((current[key] ?? '') !== value) {
            throw new SqsError('QueueNameExists', `A queue already exists with the same name and a different value for attribute ${key}`, 'QueueAlreadyExists');
          }
        }
        return { QueueUrl: queueUrl(name) };
      }
      const t = Math.floor(now() / 1000);
      const queue: Queue = { name, attributes: {}, tags: optStringMap(input, 'tags'), createdTimestamp: t, lastModifiedTimestamp: t, messages: new Map(), waiters: new Set() };
      applyAttributes(queue, attributes);
      queues.set(name, queue);
      changed();
      return { QueueUrl: queueUrl(name) };
    },

    GetQueueUrl(input) {
      const name = reqString(input, 'QueueName');
      if (!queues.has(name)) throw queueDoesNotExist();
      return { QueueUrl: queueUrl(name) };
    },

    ListQueues(input) {
      const prefix = optString(input, 'QueueNamePrefix') ?? '';
      const maxResults = optInt(input, 'MaxResults', 1, 1000);
      const after = optString(input, 'NextToken');
      let names = [...queues.keys()].filter((n) => n.startsWith(prefix)).sort();
      if (after !== undefined) {
        const last = Buffer.from(after, 'base64url').toString('utf8');
        names = names.filter((n) => n > last);
      }
      const result: Json = {};
      const page = maxResults === undefined ? names.slice(0, 1000) : names.slice(0, maxResults);
      if (page.length > 0) result.QueueUrls = page.map(queueUrl);
      // Like SQS, NextToken is only used when MaxResults is given.
      if (maxResults !== undefined && names.length > page.length) result.NextToken = Buffer.from(page.at(-1)!, 'utf8').toString('base64url');
      return result;
    },

    DeleteQueue(input) {
      // SQS takes up to 60 s to delete a queue; here it is gone at once and pending polls are answered empty.
      dropQueue(queueFromUrl(input));
      changed();
      return {};
    },

    PurgeQueue(input) {
      // SQS refuses a second purge within 60 s (PurgeQueueInProgress); we do not.
      queueFromUrl(input).messages.clear();
      changed();
      return {};
    },

    GetQueueAttributes(input) {
      const queue = queueFromUrl(input);
      const names = optStringList(input, 'AttributeNames');
      if (names.length === 0) return {};
      const all = allAttributes(queue);
      if (names.includes('All')) return { Attributes: all };
      const known = new Set([...Object.keys(INTEGER_ATTRIBUTES), ...FREEFORM_ATTRIBUTES, ...READ_ONLY_ATTRIBUTES, 'RedrivePolicy', 'FifoQueue', 'ContentBasedDeduplication', 'DeduplicationScope', 'FifoThroughputLimit']);
      const attributes: Record<string, string> = {};
      for (const name of names) {
        if (!known.has(name)) throw new SqsError('InvalidAttributeName', `Unknown Attribute ${name}.`);
        if (all[name] !== undefined) attributes[name] = all[name];
      }
      return { Attributes: attributes };
    },

    SetQueueAttributes(input) {
      const queue = queueFromUrl(input);
      const given = optStringMap(input, 'Attributes');
      if (Object.keys(given).length === 0) throw missingParameter('Attributes');
      applyAttributes(queue, normaliseAttributes(queue.name, given));
      queue.lastModifiedTimestamp = Math.floor(now() / 1000);
      changed();
      // A shorter delay can make messages visible earlier than the armed timer thinks; a redrive change matters too.
      serveWaiters(queue);
      return {};
    },

    SendMessage(input, ctx) {
      const queue = queueFromUrl(input);
      const result = enqueue(queue, input, ctx.senderId);
      changed();
      serveWaiters(queue);
      return result;
    },

    SendMessageBatch(input, ctx) {
      const queue = queueFromUrl(input);
      const entries = batchEntries(input);
      const total = entries.reduce((sum, e) => sum + (typeof e.MessageBody === 'string' ? Buffer.byteLength(e.MessageBody, 'utf8') : 0), 0);
      if (total > MAX_MESSAGE_SIZE) {
        throw batchError('BatchRequestTooLong', `Batch requests cannot be longer than ${MAX_MESSAGE_SIZE} bytes. You have sent ${total} bytes.`);
      }
      const result = forEachEntry(entries, (entry) => enqueue(queue, entry, ctx.senderId));
      changed();
      serveWaiters(queue);
      return result;
    },

    ReceiveMessage(input, ctx) {
      return receive(queueFromUrl(input), input, ctx);
    },

    DeleteMessage(input) {
      deleteByHandle(queueFromUrl(input), reqString(input, 'ReceiptHandle'));
      changed();
      return {};
    },

    DeleteMessageBatch(input) {
      const queue = queueFromUrl(input);
      const result = forEachEntry(batchEntries(input), (entry) => {
        deleteByHandle(queue, reqString(entry, 'ReceiptHandle'));
        return {};
      });
      changed();
      return result;
    },

    ChangeMessageVisibility(input) {
      const queue = queueFromUrl(input);
      const handle = reqString(input, 'ReceiptHandle');
      const timeout = optInt(input, 'VisibilityTimeout', 0, MAX_VISIBILITY_TIMEOUT);
      if (timeout === undefined) throw missingParameter('VisibilityTimeout');
      changeVisibility(queue, handle, timeout);
      changed();
      serveWaiters(queue);
      return {};
    },

    ChangeMessageVisibilityBatch(input) {
      const queue = queueFromUrl(input);
      const result = forEachEntry(batchEntries(input), (entry) => {
        const timeout = optInt(entry, 'VisibilityTimeout', 0, MAX_VISIBILITY_TIMEOUT);
        if (timeout === undefined) throw missingParameter('VisibilityTimeout');
        changeVisibility(queue, reqString(entry, 'ReceiptHandle'), timeout);
        return {};
      });
      changed();
      serveWaiters(queue);
      return result;
    },

    ListDeadLetterSourceQueues(input) {
      const arn = queueArn(queueFromUrl(input).name);
      const sources = [...queues.values()]
        .filter((q) => parseRedrivePolicy(q.attributes.RedrivePolicy)?.deadLetterTargetArn === arn)
        .map((q) => queueUrl(q.name))
        .sort();
      return { queueUrls: sources };
    },

    ListQueueTags(input) {
      const tags = queueFromUrl(input).tags;
      return Object.keys(tags).length > 0 ? { Tags: tags } : {};
    },

    TagQueue(input) {
      Object.assign(queueFromUrl(input).tags, optStringMap(input, 'Tags'));
      changed();
      return {};
    },

    UntagQueue(input) {
      const queue = queueFromUrl(input);
      for (const key of optStringList(input, 'TagKeys')) delete queue.tags[key];
      changed();
      return {};
    },
  };

  const unsupported = new Set(['AddPermission', 'RemovePermission', 'StartMessageMoveTask', 'CancelMessageMoveTask', 'ListMessageMoveTasks']);

  // --- HTTP ------------------------------------------------------------------------------------------------

  function send(res: ServerResponse, status: number, body: Json, headers: Record<string, string> = {}): void {
    if (res.destroyed || res.writableEnded) return;
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/x-amz-json-1.0',
      'content-length': Buffer.byteLength(text),
      'x-amzn-requestid': randomUUID(),
      // While closing, answers (e.g. to the long polls being cut short) end their keep-alive connection.
      ...(closing && { connection: 'close' }),
      ...headers,
    });
    res.end(text);
  }

  function sendError(res: ServerResponse, err: SqsError): void {
    const type = err.type.includes('#') ? err.type : `com.amazonaws.sqs#${err.type}`;
    const headers: Record<string, string> = err.queryCode ? { 'x-amzn-query-error': `${err.queryCode};${err.fault}` } : {};
    send(res, err.status, { __type: type, message: err.message }, headers);
  }

  async function readBody(req: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) throw new SqsError('com.amazon.coral.service#SerializationException', 'Request body too large.', '', 413);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    try {
      if (req.method !== 'POST') throw new SqsError('com.amazon.coral.service#UnknownOperationException', `${req.method ?? ''} is not supported: POST a JSON request.`, '', 405);
      const contentType = req.headers['content-type'] ?? '';
      const target = req.headers['x-amz-target'];
      if (typeof target !== 'string' || !contentType.startsWith('application/x-amz-json-1.0')) {
        // e.g. sqslite-era clients using the query protocol (form-encoded Action=…).
        throw new SqsError(
          'com.amazon.coral.service#UnknownOperationException',
          'This local SQS server speaks the AWS JSON 1.0 protocol only (X-Amz-Target: AmazonSQS.<Operation>, Content-Type: application/x-amz-json-1.0).',
          '',
        );
      }
      const name = target.startsWith('AmazonSQS.') ? target.slice('AmazonSQS.'.length) : '';
      const text = await readBody(req);
      let input: unknown;
      try {
        input = text === '' ? {} : JSON.parse(text);
      } catch {
        throw new SqsError('com.amazon.coral.service#SerializationException', 'The request body is not valid JSON.', '');
      }
      if (!isObject(input)) throw new SqsError('com.amazon.coral.service#SerializationException', 'The request body must be a JSON object.', '');
      if (unsupported.has(name)) {
        throw new SqsError('UnsupportedOperation', `${name} is not supported by this local SQS server.`, 'AWS.SimpleQueueService.UnsupportedOperation');
      }
      const operation = Object.hasOwn(operations, name) ? operations[name] : undefined;
      if (!operation) throw new SqsError('com.amazon.coral.service#UnknownOperationException', `Unknown operation ${target}.`, '');
      // SenderId: the caller's access key id, taken (unverified) from the SigV4 Authorization header.
      const credential = /Credential=([^/,\s]+)\//.exec(req.headers.authorization ?? '');
      send(res, 200, await operation(input, { signal: abort.signal, senderId: credential?.[1] ?? accountId }));
    } catch (err) {
      if (err instanceof SqsError) {
        sendError(res, err);
      } else {
        console.error('[sqs] internal error:', err);
        sendError(res, new SqsError('InternalError', 'We encountered an internal error. Please try again.', 'InternalError', 500, 'Receiver'));
      }
    }
  }

  const server = keepIdleConnections(createServer((req, res) => void handle(req, res)));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  baseUrl = `http://${urlHost}:${port}`;

  let closed: Promise<void> | undefined;

  return {
    url: baseUrl,
    port,
    region,
    accountId,
    queueUrl,
    queueArn,
    queueNames: () => [...queues.keys()].sort(),
    stats(name) {
      const queue = queues.get(name);
      return queue && countMessages(queue);
    },
    flush: async () => writer?.flush(),
    close() {
      closed ??= (async () => {
        closing = true;
        for (const queue of queues.values()) {
          for (const waiter of queue.waiters) waiter.finish([]);
          clearTimeout(queue.wakeTimer);
          queue.wakeTimer = undefined;
        }
        await new Promise<void>((resolve) => {
          // Keep-alive connections would hold close() open: idle ones are closed now, busy ones after a grace period.
          const force = setTimeout(() => server.closeAllConnections(), 1000);
          server.close(() => {
            clearTimeout(force);
            resolve();
          });
          server.closeIdleConnections();
        });
        await writer?.flush();
      })();
      return closed;
    },
  };
}
