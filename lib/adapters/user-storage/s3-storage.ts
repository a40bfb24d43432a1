/**
 * User storage on S3 or any S3-compatible service (`@aws-sdk/client-s3`; multipart uploads through
 * `@aws-sdk/lib-storage`). Every connection goes through the address guard: a custom `endpoint` is
 * checked (with DNS) before use and every socket the SDK opens is checked again when it connects.
 * Every request is signed with the user's own keys, never the function's role (`npm run ci:roles`
 * leaves these requests out of the role's needs and checks that each client here is given credentials):
 * @aws-credentials user
 */
import {
  GetObjectCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
  type ObjectCannedACL,
  type ServerSideEncryption,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Readable } from 'node:stream';
import { checkUrlResolved, createGuardedAgents, FetchFailedError, type AddressPolicy } from '../net/guarded-fetch.js';
import { retryableNetworkCode, retryableStatus } from '../net/retry.js';
import { type StorageErrorInfo, type StoredObject, type UserStorage } from './port.js';

export interface S3Connection {
  bucket: string;
  region: string;
  /** A custom endpoint (any S3-compatible service); the AWS endpoint of `region` when absent. */
  endpoint?: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** How exported objects are written. */
export interface S3WriteOptions {
  acl?: ObjectCannedACL;
  cacheControl?: string;
  contentDisposition?: string;
  /** Overrides the content type derived from each file. */
  contentType?: string;
  metadata?: Record<string, string>;
  serverSideEncryption?: ServerSideEncryption;
  tagging?: Record<string, string>;
}

/** Multipart part size: bounded memory (two parts in flight) for bodies of any length. */
export const S3_PART_SIZE = 8 * 1024 * 1024;

export class S3Storage implements UserStorage {
  readonly service = 'S3';
  private readonly client: S3Client;

  private constructor(
    private readonly conn: S3Connection,
    private readonly write: S3WriteOptions,
    policy: AddressPolicy,
  ) {
    const { httpAgent, httpsAgent } = createGuardedAgents(policy, { keepAlive: true });
    this.client = new S3Client({
      region: conn.region,
      endpoint: conn.endpoint,
      // Compatible services (MinIO, s3rver, Ceph…) rarely serve virtual-hosted bucket names.
      forcePathStyle: Boolean(conn.endpoint),
      credentials: { accessKeyId: conn.accessKeyId, secretAccessKey: conn.secretAccessKey, sessionToken: conn.sessionToken },
      // A streamed PutObject with the default checksums is sent aws-chunked, which compatible
      // services may store verbatim (see lib/adapters/file-store/s3-file-store.ts).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // An idle minute ends a call; a long transfer that keeps moving is not cut (lib/kernel/call-limits.ts).
      requestHandler: { httpAgent, httpsAgent, connectionTimeout: 10_000, socketTimeout: 60_000 },
      maxAttempts: 3,
    });
  }

  /** Checks a custom endpoint against the address policy (DNS included), then connects lazily. */
  static async open(conn: S3Connection, opts: { policy: AddressPolicy; write?: S3WriteOptions }): Promise<S3Storage> {
    if (conn.endpoint) await checkUrlResolved(conn.endpoint, opts.policy);
    return new S3Storage(conn, opts.write ?? {}, opts.policy);
  }

  async put(upload: { name: string; body: Readable; size: number; contentType: string }, signal: AbortSignal): Promise<void> {
    const w = this.write;
    const abortController = new AbortController();
    const onAbort = () => abortController.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await new Upload({
        client: this.client,
        params: {
          Bucket: this.conn.bucket,
          Key: upload.name,
          Body: upload.body,
          ContentLength: upload.size,
          ContentType: w.contentType ?? upload.contentType,
          ACL: w.acl,
          CacheControl: w.cacheControl,
          ContentDisposition: w.contentDisposition,
          Metadata: w.metadata,
          ServerSideEncryption: w.serverSideEncryption,
        },
        // Applied with PutObjectTagging once the object exists (single and multipart uploads alike).
        tags: w.tagging ? Object.entries(w.tagging).map(([Key, Value]) => ({ Key, Value })) : undefined,
        partSize: S3_PART_SIZE,
        queueSize: 2,
        abortController,
      }).done();
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  async get(name: string, signal: AbortSignal) {
    const out = await this.client.send(new GetObjectCommand({ Bucket: this.conn.bucket, Key: name }), { abortSignal: signal });
    return { body: out.Body as Readable, size: out.ContentLength, contentType: out.ContentType };
  }

  async *list(prefix: string, signal: AbortSignal): AsyncIterable<StoredObject> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.conn.bucket, Prefix: prefix, ContinuationToken: token }),
        { abortSignal: signal },
      );
      for (const o of page.Contents ?? []) if (o.Key !== undefined) yield { name: o.Key, size: o.Size };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  describe(err: unknown): StorageErrorInfo {
    return describeS3Error(err);
  }

  close(): void {
    this.client.destroy();
  }
}

/** The service's code, status and message of an S3 SDK error; network failures by their code. */
export function describeS3Error(err: unknown): StorageErrorInfo {
  const guard = err instanceof FetchFailedError ? err : (err as { cause?: unknown })?.cause;
  if (guard instanceof FetchFailedError) return { code: guard.failure, message: guard.message, transient: guard.retryable };
  if (err instanceof S3ServiceException) {
    const status = err.$metadata?.httpStatusCode;
    // A HEAD-style answer without a body leaves only the status ("UnknownError").
    const message = err.message && err.message !== 'UnknownError' ? err.message : `HTTP ${status ?? 'error'}`;
    return { code: err.name, status, message, transient: retryableStatus(status) || err.$retryable !== undefined };
  }
  const e = err as { name?: string; code?: string; message?: string } | undefined;
  const code = e?.code ?? (e?.name === 'TimeoutError' ? 'ETIMEDOUT' : undefined);
  return {
    code: code ?? e?.name,
    message: e?.message || 'The request failed.',
    transient: retryableNetworkCode(code) || e?.name === 'TimeoutError',
  };
}
