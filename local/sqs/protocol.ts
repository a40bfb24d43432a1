/**
 * The wire side of the local SQS server: the AWS JSON 1.0 protocol exactly as `@aws-sdk/client-sqs` 3.x sends it:
 *   POST /   Content-Type: application/x-amz-json-1.0   X-Amz-Target: AmazonSQS.<Operation>   JSON body
 * and answers with a JSON body. Errors are HTTP 4xx with `{"__type":"com.amazonaws.sqs#<Name>","message":…}`
 * plus the `x-amzn-query-error: <query code>;Sender` header: the SDK is configured "awsQueryCompatible", reads
 * the code from that header first and maps it back to its modelled exception (`err.name === 'QueueDoesNotExist'`).
 * Here: the errors, the readers of the JSON input, and the HTTP answer.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_BATCH_ENTRIES, MAX_REQUEST_BYTES } from './limits.js';

// ---------------------------------------------------------------------------------------------------------------
// Errors in the JSON protocol's shape

export class SqsError extends Error {
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

export const queueDoesNotExist = () =>
  new SqsError('QueueDoesNotExist', 'The specified queue does not exist.', 'AWS.SimpleQueueService.NonExistentQueue');
export const invalidParameter = (message: string) => new SqsError('InvalidParameterValue', message);
export const invalidValue = (name: string, value: unknown, reason: string) =>
  invalidParameter(`Value ${String(value)} for parameter ${name} is invalid. Reason: ${reason}`);
export const missingParameter = (name: string) =>
  new SqsError('MissingParameter', `The request must contain the parameter ${name}.`);
export const receiptHandleIsInvalid = (handle: string) =>
  new SqsError('ReceiptHandleIsInvalid', `The input receipt handle "${handle}" is not a valid receipt handle.`, 'ReceiptHandleIsInvalid', 404);
export const batchError = (type: string, message: string) => new SqsError(type, message, `AWS.SimpleQueueService.${type}`);

// ---------------------------------------------------------------------------------------------------------------
// Reading the JSON input

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function optString(input: Json, name: string): string | undefined {
  const v = input[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalidValue(name, JSON.stringify(v), 'must be a string.');
  return v;
}

export function reqString(input: Json, name: string): string {
  const v = optString(input, name);
  if (v === undefined || v === '') throw missingParameter(name);
  return v;
}

export function optInt(input: Json, name: string, min: number, max: number): number | undefined {
  const v = input[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw invalidValue(name, JSON.stringify(v), 'must be an integer.');
  if (v < min || v > max) throw invalidValue(name, v, `Must be between ${min} and ${max}, if provided.`);
  return v;
}

export function optStringList(input: Json, name: string): string[] {
  const v = input[name];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) throw invalidValue(name, JSON.stringify(v), 'must be a list of strings.');
  return v as string[];
}

export function optStringMap(input: Json, name: string): Record<string, string> {
  const v = input[name];
  if (v === undefined || v === null) return {};
  if (!isObject(v) || !Object.values(v).every((s) => typeof s === 'string')) {
    throw invalidValue(name, JSON.stringify(v), 'must be a map of strings.');
  }
  return v as Record<string, string>;
}

export function batchEntries(input: Json): Json[] {
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

/** Runs `action` for each batch entry, collecting Successful and Failed as the batch APIs report them. */
export function forEachEntry(entries: Json[], action: (entry: Json) => Json): Json {
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

// ---------------------------------------------------------------------------------------------------------------
// HTTP

/** `closing`: the server is closing, so the answer ends its keep-alive connection. */
export function send(res: ServerResponse, closing: boolean, status: number, body: Json, headers: Record<string, string> = {}): void {
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

export function sendError(res: ServerResponse, closing: boolean, err: SqsError): void {
  const type = err.type.includes('#') ? err.type : `com.amazonaws.sqs#${err.type}`;
  const headers: Record<string, string> = err.queryCode ? { 'x-amzn-query-error': `${err.queryCode};${err.fault}` } : {};
  send(res, closing, err.status, { __type: type, message: err.message }, headers);
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) throw new SqsError('com.amazon.coral.service#SerializationException', 'Request body too large.', '', 413);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
