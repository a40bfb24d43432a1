/**
 * User storage in a Google Cloud Storage bucket (`@google-cloud/storage`), authenticated as the
 * user's service account: the client signs a JWT with the account's private key and exchanges it for
 * an access token (OAuth 2.0 JWT-bearer grant), then sends that token with every request.
 *
 * The JSON API endpoint and the token endpoint are the operator's (`GCS_API_ENDPOINT`,
 * `GCS_TOKEN_URL`; Google's when unset); the user names only the project, bucket and objects.
 */
import { ApiError, Storage, type Bucket } from '@google-cloud/storage';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { retryableNetworkCode, retryableStatus } from '../net/retry.js';
import { type StorageErrorInfo, type StoredObject, type UserStorage } from './port.js';
import { trimEnd } from '../../kernel/text.js';

export interface GcsConnection {
  projectId: string;
  bucket: string;
  clientEmail: string;
  /** PEM; `\n` escapes (as pasted from a key file) are accepted. */
  privateKey: string;
  /** JSON API endpoint, e.g. `http://127.0.0.1:4443`; Google's when absent. */
  apiEndpoint?: string;
  /** OAuth 2.0 token endpoint for the JWT-bearer exchange; Google's when absent. */
  tokenUrl?: string;
}

/** The token URLs the Google auth libraries post to. */
const GOOGLE_TOKEN_URLS = new Set(['https://www.googleapis.com/oauth2/v4/token', 'https://oauth2.googleapis.com/token']);

interface TransporterRequest {
  url?: string;
  method?: string;
  data?: unknown;
  headers?: Record<string, string>;
}

/**
 * A transporter for the auth library that sends the JWT-bearer token request to `tokenUrl` instead
 * of Google's endpoint (which the library does not let one configure), answering in the shape the
 * library reads (`data`, `response.data` on errors).
 */
export function tokenTransporter(tokenUrl: string) {
  return {
    async request(opts: TransporterRequest) {
      if (!opts.url || !GOOGLE_TOKEN_URLS.has(opts.url)) throw new Error('Only the token request is sent through this transporter.');
      const form =
        opts.data instanceof URLSearchParams
          ? opts.data
          : new URLSearchParams(typeof opts.data === 'string' ? opts.data : (opts.data as Record<string, string>));
      const res = await fetch(tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch {
        data = {};
      }
      if (!res.ok) {
        throw Object.assign(new Error(`The token endpoint answered HTTP ${res.status}.`), { code: String(res.status), response: { status: res.status, data } });
      }
      return { data, status: res.status, statusText: res.statusText, headers: {}, config: opts };
    },
  };
}

export class GcsStorage implements UserStorage {
  readonly service = 'Google Cloud Storage';
  private readonly bucket: Bucket;

  constructor(conn: GcsConnection) {
    const storage = new Storage({
      projectId: conn.projectId,
      credentials: { client_email: conn.clientEmail, private_key: conn.privateKey.replace(/\\n/g, '\n') },
      ...(conn.apiEndpoint ? { apiEndpoint: trimEnd(conn.apiEndpoint, '/'), useAuthWithCustomEndpoint: true } : {}),
      ...(conn.tokenUrl ? { clientOptions: { transporter: tokenTransporter(conn.tokenUrl) } as never } : {}),
      retryOptions: { autoRetry: true, maxRetries: 2, totalTimeout: 120 },
    });
    this.bucket = storage.bucket(conn.bucket);
  }

  async put(upload: { name: string; body: Readable; size: number; contentType: string }, signal: AbortSignal): Promise<void> {
    // One streamed multipart request per object; the client checks the CRC32C the service reports.
    const target = this.bucket.file(upload.name).createWriteStream({
      resumable: false,
      contentType: upload.contentType,
      validation: 'crc32c',
    });
    await pipeline(upload.body, target, { signal });
  }

  async get(name: string, signal: AbortSignal) {
    const file = this.bucket.file(name);
    const [metadata] = await file.getMetadata();
    const body = file.createReadStream();
    const onAbort = () => body.destroy(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    body.once('close', () => signal.removeEventListener('abort', onAbort));
    return { body, size: metadata.size === undefined ? undefined : Number(metadata.size), contentType: metadata.contentType };
  }

  async *list(prefix: string, signal: AbortSignal): AsyncIterable<StoredObject> {
    let pageToken: string | undefined;
    do {
      signal.throwIfAborted();
      const [files, next] = await this.bucket.getFiles({ prefix: prefix || undefined, autoPaginate: false, pageToken });
      for (const f of files) {
        yield { name: f.name, size: f.metadata.size === undefined ? undefined : Number(f.metadata.size), contentType: f.metadata.contentType };
      }
      pageToken = (next as { pageToken?: string } | null | undefined)?.pageToken;
    } while (pageToken);
  }

  describe(err: unknown): StorageErrorInfo {
    return describeGcsError(err);
  }

  close(): void {
    // Connections belong to the library's shared agent.
  }
}

/** The JSON API's reason, status and message; token-exchange failures by the token endpoint's error. */
export function describeGcsError(err: unknown): StorageErrorInfo {
  if (err instanceof ApiError) {
    const status = typeof err.code === 'number' ? err.code : undefined;
    const reason = err.errors?.[0]?.reason;
    return { code: reason ?? (status ? `HTTP_${status}` : undefined), status, message: err.message || `HTTP ${status}`, transient: retryableStatus(status) };
  }
  const e = err as { name?: string; code?: string | number; message?: string; response?: { status?: number } } | undefined;
  const status = e?.response?.status ?? (typeof e?.code === 'number' ? e.code : undefined);
  const code = typeof e?.code === 'string' ? e.code : undefined;
  if (e?.name === 'AbortError') return { code: 'ABORTED', message: 'The transfer was aborted.', transient: false };
  return {
    code: code ?? e?.name,
    status,
    message: e?.message || 'The request failed.',
    transient: retryableStatus(status) || retryableNetworkCode(code),
  };
}
