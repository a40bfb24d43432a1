/**
 * User storage in an Azure Blob Storage container (`@azure/storage-blob`), with the account's access
 * key or a shared-access-signature token. Large blobs are uploaded in blocks from the stream.
 *
 * The blob endpoint is the operator's template (`https://{account}.blob.core.windows.net` unless
 * `AZURE_BLOB_ENDPOINT` says otherwise); the user names only the account, which must be a valid
 * account name, so it cannot steer requests to another host.
 */
import {
  AnonymousCredential,
  ContainerClient,
  RestError,
  StorageSharedKeyCredential,
  type StoragePipelineOptions,
} from '@azure/storage-blob';
import type { Readable } from 'node:stream';
import { retryableNetworkCode, retryableStatus } from '../net/retry.js';
import { AZURE_ACCOUNT_NAME, type StorageErrorInfo, type StoredObject, type UserStorage } from './port.js';
import { trimEnd } from '../../kernel/text.js';
export const DEFAULT_AZURE_BLOB_ENDPOINT = 'https://{account}.blob.core.windows.net';

export interface AzureBlobConnection {
  account: string;
  container: string;
  /** The account key (base64), or… */
  accessKey?: string;
  /** …a SAS token (`sv=…&sig=…`, with or without the leading `?`). Neither: anonymous (public containers). */
  sasToken?: string;
  /** Endpoint template with `{account}`. */
  endpointTemplate?: string;
}

export interface AzureWriteOptions {
  metadata?: Record<string, string>;
}

/** Block size and blocks in flight: bounded memory for blobs of any length. */
export const AZURE_BLOCK_SIZE = 8 * 1024 * 1024;

/** The container's URL for an account (no credentials in it). */
export function containerUrl(conn: Pick<AzureBlobConnection, 'account' | 'container' | 'endpointTemplate'>): string {
  if (!AZURE_ACCOUNT_NAME.test(conn.account)) throw new TypeError('storage_account must be 3 to 24 lower-case letters and digits');
  const base = trimEnd((conn.endpointTemplate || DEFAULT_AZURE_BLOB_ENDPOINT).replaceAll('{account}', conn.account), '/');
  return `${base}/${encodeURIComponent(conn.container)}`;
}

export class AzureBlobStorage implements UserStorage {
  readonly service = 'Azure Blob Storage';
  private readonly container: ContainerClient;

  constructor(
    conn: AzureBlobConnection,
    private readonly write: AzureWriteOptions = {},
  ) {
    const url = containerUrl(conn);
    const options: StoragePipelineOptions = { retryOptions: { maxTries: 3, retryDelayInMs: 500, maxRetryDelayInMs: 5000 } };
    if (conn.accessKey) {
      this.container = new ContainerClient(url, new StorageSharedKeyCredential(conn.account, conn.accessKey), options);
    } else if (conn.sasToken) {
      this.container = new ContainerClient(`${url}?${conn.sasToken.replace(/^\?/, '')}`, new AnonymousCredential(), options);
    } else {
      this.container = new ContainerClient(url, new AnonymousCredential(), options);
    }
  }

  async put(upload: { name: string; body: Readable; size: number; contentType: string }, signal: AbortSignal): Promise<void> {
    const blob = this.container.getBlockBlobClient(upload.name);
    await blob.uploadStream(upload.body, AZURE_BLOCK_SIZE, 2, {
      blobHTTPHeaders: { blobContentType: upload.contentType },
      metadata: this.write.metadata,
      abortSignal: signal,
    });
  }

  async get(name: string, signal: AbortSignal) {
    const out = await this.container.getBlobClient(name).download(0, undefined, { abortSignal: signal });
    if (!out.readableStreamBody) throw new Error('The blob service answered without a body.');
    return { body: out.readableStreamBody as Readable, size: out.contentLength, contentType: out.contentType };
  }

  async *list(prefix: string, signal: AbortSignal): AsyncIterable<StoredObject> {
    for await (const blob of this.container.listBlobsFlat({ prefix: prefix || undefined, abortSignal: signal })) {
      yield { name: blob.name, size: blob.properties.contentLength, contentType: blob.properties.contentType };
    }
  }

  describe(err: unknown): StorageErrorInfo {
    return describeAzureError(err);
  }

  close(): void {
    // The pipeline's keep-alive agent is shared by the SDK; nothing to release per client.
  }
}

/** Azure's error code (`x-ms-error-code`), status and the first line of its message. */
export function describeAzureError(err: unknown): StorageErrorInfo {
  if (err instanceof RestError || (err as { name?: string })?.name === 'RestError') {
    const e = err as RestError;
    const status = e.statusCode;
    // Storage messages go on with "RequestId:…" and "Time:…" lines.
    const message = (e.message || '').split('\n')[0]!.trim() || `HTTP ${status ?? 'error'}`;
    const code = e.code === 'REQUEST_SEND_ERROR' ? networkCode(e) ?? e.code : e.code;
    const transient = status === undefined ? e.code === 'REQUEST_SEND_ERROR' || retryableNetworkCode(code) : retryableStatus(status);
    return { code, status, message, transient };
  }
  const e = err as { name?: string; code?: string; message?: string } | undefined;
  if (e?.name === 'AbortError') return { code: 'ABORTED', message: 'The transfer was aborted.', transient: false };
  return { code: e?.code ?? e?.name, message: e?.message || 'The request failed.', transient: retryableNetworkCode(e?.code) };
}

function networkCode(e: RestError): string | undefined {
  const match = /\b(E[A-Z]{4,})\b/.exec(e.message ?? '');
  return match?.[1];
}
