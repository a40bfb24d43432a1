/**
 * S3 → EventBridge "Object Created" events, locally: s3rver emits an S3 notification (`{Records: […]}`) on
 * every object change; this turns the object-created ones for one bucket (and key prefix) into the events
 * S3 sends to EventBridge when the bucket has `EventBridgeConfiguration: { EventBridgeEnabled: true }`, and
 * hands them to `deliver` — one at a time per object key, in arrival order, retried with back-off.
 *
 * s3rver reports a completed multipart upload as `ObjectCreated:Post`, like a form upload, and leaves the
 * ETag out of copy events. To give the right `reason` and `etag`, the store of the s3rver instance is
 * tapped (its `putObjectMultipart` and `copyObject` results are noted) while a forwarder is subscribed.
 */
import type { EventBridgeEvent } from 'aws-lambda';
import { randomBytes, randomUUID } from 'node:crypto';
import type S3rver from 's3rver';

export type S3ObjectCreatedReason = 'PutObject' | 'POST Object' | 'CopyObject' | 'CompleteMultipartUpload';

/** The `detail` of S3's EventBridge "Object Created" event (`version-id` only on versioned buckets). */
export interface S3ObjectCreatedDetail {
  version: '0';
  bucket: { name: string };
  object: {
    /** URL-encoded as in every S3 notification: `tasks/t1/my report.pdf` → `tasks/t1/my+report.pdf`. */
    key: string;
    size: number;
    etag: string;
    'version-id'?: string;
    sequencer: string;
  };
  'request-id': string;
  requester: string;
  'source-ip-address': string;
  reason: S3ObjectCreatedReason;
}

/**
 * The EventBridge event S3 sends on object creation. Structurally the `aws-lambda` package's
 * `S3ObjectCreatedNotificationEvent`, except that `version-id` is optional (unversioned buckets have none).
 */
export type EventBridgeS3ObjectCreated = EventBridgeEvent<'Object Created', S3ObjectCreatedDetail> & { source: 'aws.s3' };

/** One record of the notification s3rver emits (its `S3Event` model). */
export interface S3rverEventRecord {
  eventVersion?: string;
  eventSource?: string;
  awsRegion?: string;
  eventTime?: string;
  eventName: string;
  requestParameters?: { sourceIPAddress?: string };
  responseElements?: Record<string, string | undefined>;
  s3: {
    bucket: { name: string; arn?: string };
    object: { key: string; size?: number; eTag?: string; sequencer?: string };
  };
}

export interface S3rverNotification {
  Records: S3rverEventRecord[];
}

type NotificationListener = (notification: S3rverNotification) => void;

/** What is needed of the S3rver instance: it is a Koa application, hence an EventEmitter. */
export interface S3rverEventSource {
  on(event: 'event', listener: NotificationListener): unknown;
  off(event: 'event', listener: NotificationListener): unknown;
  /** The s3rver FilesystemStore (tapped for multipart completions and copies when present). */
  store?: unknown;
}

export interface ForwardS3EventsOptions {
  bucket: string;
  /** Only keys starting with this (the plain key, not URL-encoded). */
  prefix?: string;
  deliver: (event: EventBridgeS3ObjectCreated) => Promise<void>;
  log?: (line: string) => void;
  /** Default `us-east-1`. */
  region?: string;
  /** The bucket owner's account id; default `000000000000`. */
  account?: string;
  /** Retries after a failed delivery (default 4), waiting `retryDelayMs` (default 250) doubled each time. */
  retries?: number;
  retryDelayMs?: number;
}

/** Unsubscribes; `idle()` settles once every event received so far has been delivered or given up on. */
export type S3EventForwarder = (() => void) & { idle(): Promise<void> };

/**
 * A key as S3 writes it into notifications: form-URL-encoded (space → `+`, UTF-8 percent-escapes) except
 * that `/` stays. Undo with {@link decodeS3EventKey}.
 */
export function encodeS3EventKey(key: string): string {
  let out = '';
  for (const byte of Buffer.from(key, 'utf8')) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-_.*/]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export const decodeS3EventKey = (key: string) => decodeURIComponent(key.replace(/\+/g, ' '));

// ---------------------------------------------------------------------------------------------------------
// The store tap

interface StoreTap {
  refs: number;
  /** Recent multipart completions: s3rver emits them as `ObjectCreated:Post`. */
  multipart: Array<{ bucket: string; etag: string; size: number }>;
  /** ETags of recent copies, by `bucket/key`: s3rver's copy events carry none. */
  copies: Map<string, string>;
  release(): void;
}

const taps = new WeakMap<object, StoreTap>();
const unquote = (etag: unknown) => (typeof etag === 'string' ? etag.replace(/^"|"$/g, '') : '');

function acquireTap(source: S3rverEventSource): StoreTap | undefined {
  const store = source.store;
  if (typeof store !== 'object' || store === null) return undefined;
  const existing = taps.get(store);
  if (existing) {
    existing.refs++;
    return existing;
  }
  const methods = store as Record<string, unknown>;
  const putObjectMultipart = methods.putObjectMultipart;
  const copyObject = methods.copyObject;
  if (typeof putObjectMultipart !== 'function' || typeof copyObject !== 'function') return undefined;

  const tap: StoreTap = {
    refs: 1,
    multipart: [],
    copies: new Map(),
    release() {
      if (--tap.refs > 0) return;
      taps.delete(store);
      // The originals live on the prototype: removing the own wrappers restores them.
      if (methods.putObjectMultipart === tappedMultipart) delete methods.putObjectMultipart;
      if (methods.copyObject === tappedCopy) delete methods.copyObject;
    },
  };
  const tappedMultipart = async function (this: unknown, ...args: unknown[]) {
    const result = (await (putObjectMultipart as (...a: unknown[]) => Promise<unknown>).apply(this, args)) as { md5?: unknown; size?: unknown } | undefined;
    if (typeof args[0] === 'string' && typeof result?.md5 === 'string') {
      tap.multipart.push({ bucket: args[0], etag: result.md5, size: Number(result.size) });
      if (tap.multipart.length > 100) tap.multipart.shift();
    }
    return result;
  };
  const tappedCopy = async function (this: unknown, ...args: unknown[]) {
    const metadata = (await (copyObject as (...a: unknown[]) => Promise<unknown>).apply(this, args)) as { etag?: unknown } | undefined;
    const [, , destBucket, destKey] = args;
    if (typeof destBucket === 'string' && typeof destKey === 'string') {
      tap.copies.set(`${destBucket}/${destKey}`, unquote(metadata?.etag));
      if (tap.copies.size > 100) tap.copies.delete(tap.copies.keys().next().value!);
    }
    return metadata;
  };
  methods.putObjectMultipart = tappedMultipart;
  methods.copyObject = tappedCopy;
  taps.set(store, tap);
  return tap;
}

// ---------------------------------------------------------------------------------------------------------

let lastSequence = 0n;
/** Hex sequencers that grow with every event (S3's are compared as hex strings of equal length). */
function nextSequencer(): string {
  const now = BigInt(Date.now()) * 4096n;
  lastSequence = now > lastSequence ? now : lastSequence + 1n;
  return lastSequence.toString(16).toUpperCase().padStart(18, '0');
}

const ebTime = (iso: string | undefined) => {
  const t = iso ? Date.parse(iso) : NaN;
  return (Number.isNaN(t) ? new Date() : new Date(t)).toISOString().replace(/\.\d{3}Z$/, 'Z');
};

/**
 * Subscribes to an s3rver instance's notifications. `s3rver` may be the `S3rver` itself: its typings in
 * types/backends.d.ts leave out that it is a Koa application (an EventEmitter), which it is at run time.
 */
export function forwardS3Events(s3rver: S3rver | S3rverEventSource, opts: ForwardS3EventsOptions): S3EventForwarder {
  const source = s3rver as S3rverEventSource;
  const log = opts.log ?? ((line: string) => console.error(line));
  const region = opts.region ?? 'us-east-1';
  const account = opts.account ?? '000000000000';
  const retries = opts.retries ?? 4;
  const retryDelayMs = opts.retryDelayMs ?? 250;
  const prefix = opts.prefix ?? '';
  const tap = acquireTap(source);
  /** The tail of each key's delivery chain. */
  const chains = new Map<string, Promise<void>>();
  const sleepers = new Set<() => void>();
  let stopped = false;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      sleepers.add(wake);
    });

  const reasonOf = (record: S3rverEventRecord, key: string): S3ObjectCreatedReason | undefined => {
    switch (record.eventName) {
      case 'ObjectCreated:Put':
        return 'PutObject';
      case 'ObjectCreated:Copy':
        return 'CopyObject';
      case 'ObjectCreated:Post': {
        const i = tap?.multipart.findIndex(
          (m) => m.bucket === record.s3.bucket.name && m.etag === record.s3.object.eTag && m.size === Number(record.s3.object.size),
        );
        if (tap && i !== undefined && i >= 0) {
          tap.multipart.splice(i, 1);
          return 'CompleteMultipartUpload';
        }
        return key ? 'POST Object' : undefined;
      }
      case 'ObjectCreated:CompleteMultipartUpload':
        return 'CompleteMultipartUpload';
      default:
        return undefined;
    }
  };

  const toEvent = (record: S3rverEventRecord): EventBridgeS3ObjectCreated | undefined => {
    const bucket = record.s3?.bucket?.name;
    const key = record.s3?.object?.key;
    if (bucket !== opts.bucket || typeof key !== 'string' || !key.startsWith(prefix)) return undefined;
    const reason = reasonOf(record, key);
    if (!reason) return undefined;
    let etag = record.s3.object.eTag ?? '';
    if (reason === 'CopyObject') {
      etag = tap?.copies.get(`${bucket}/${key}`) ?? etag;
      tap?.copies.delete(`${bucket}/${key}`);
    }
    return {
      version: '0',
      id: randomUUID(),
      'detail-type': 'Object Created',
      source: 'aws.s3',
      account,
      time: ebTime(record.eventTime),
      region,
      resources: [`arn:aws:s3:::${bucket}`],
      detail: {
        version: '0',
        bucket: { name: bucket },
        object: { key: encodeS3EventKey(key), size: Number(record.s3.object.size ?? 0), etag, sequencer: nextSequencer() },
        'request-id': record.responseElements?.['x-amz-request-id'] ?? randomBytes(8).toString('hex').toUpperCase(),
        requester: account,
        'source-ip-address': (record.requestParameters?.sourceIPAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
        reason,
      },
    };
  };

  const deliver = async (event: EventBridgeS3ObjectCreated, key: string) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await opts.deliver(event);
        return;
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        if (attempt >= retries || stopped) {
          log(`s3-events: giving up on ${event.detail.reason} ${opts.bucket}/${key} after ${attempt + 1} attempt(s): ${why}`);
          return;
        }
        const delay = retryDelayMs * 2 ** attempt;
        log(`s3-events: delivering ${event.detail.reason} ${opts.bucket}/${key} failed (attempt ${attempt + 1}): ${why}; retrying in ${delay} ms`);
        await sleep(delay);
      }
    }
  };

  const enqueue = (key: string, event: EventBridgeS3ObjectCreated) => {
    const previous = chains.get(key) ?? Promise.resolve();
    const next = previous.then(() => deliver(event, key)).catch(() => {});
    chains.set(key, next);
    void next.then(() => {
      if (chains.get(key) === next) chains.delete(key);
    });
  };

  const listener: NotificationListener = (notification) => {
    // Runs inside s3rver's request handling: must never throw.
    try {
      for (const record of notification?.Records ?? []) {
        const event = toEvent(record);
        if (event) enqueue(record.s3.object.key, event);
      }
    } catch (err) {
      log(`s3-events: could not read an s3rver notification: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  source.on('event', listener);

  const unsubscribe = () => {
    if (stopped) return;
    stopped = true;
    source.off('event', listener);
    tap?.release();
    // Queued events still get one attempt each; no more waiting between retries.
    for (const wake of [...sleepers]) wake();
  };
  const idle = async () => {
    while (chains.size) await Promise.all([...chains.values()]);
  };
  return Object.assign(unsubscribe, { idle });
}
