/**
 * The user-storage port: a bucket or container of the user's, reached with the credentials of one
 * task. One adapter per cloud SDK or protocol (`s3-storage.ts`, `azure-blob-storage.ts`, `gcs-storage.ts`,
 * `sftp-storage.ts`, `swift-storage.ts`), each in its own file, so a function bundles or loads only the
 * SDK it uses. Adapters move streams; they never read whole files.
 */
import type { Readable } from 'node:stream';

export interface StoredObject {
  /** The object's full name (key, blob or file name) in the bucket or container. */
  name: string;
  size?: number;
  contentType?: string;
}

export interface ObjectUpload {
  name: string;
  body: Readable;
  /** Length of `body` in bytes. */
  size: number;
  contentType: string;
}

/** What a storage error says, with nothing of the request's credentials. */
export interface StorageErrorInfo {
  /** The service's own error code (`AccessDenied`, `ContainerNotFound`, `ECONNREFUSED`…), if any. */
  code?: string;
  /** HTTP status of the service's answer, if there was one. */
  status?: number;
  message: string;
  /** Network trouble, throttling, a 5xx: trying again may help (the one rule: lib/adapters/net/retry.ts). */
  transient: boolean;
}

export interface UserStorage {
  /** Name of the service, for messages: `S3`, `Azure Blob Storage`, `Google Cloud Storage`. */
  readonly service: string;
  /** Streams one object into storage (multipart/blocks for large bodies). */
  put(upload: ObjectUpload, signal: AbortSignal): Promise<void>;
  /** Streams one object out of storage. */
  get(name: string, signal: AbortSignal): Promise<{ body: Readable; size?: number; contentType?: string }>;
  /** Every object whose name starts with `prefix`, in name order. */
  list(prefix: string, signal: AbortSignal): AsyncIterable<StoredObject>;
  /** Reads an error thrown by this adapter's SDK. */
  describe(err: unknown): StorageErrorInfo;
  /** Releases connections. */
  close(): void;
}

/** A valid Azure storage account name (it becomes part of the blob endpoint's host name). */
export const AZURE_ACCOUNT_NAME = /^[a-z0-9]{3,24}$/;
