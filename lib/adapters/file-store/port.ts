/**
 * The files port: task files in object storage, moved as streams. Keys are derived from task ids
 * (`tasks/<taskId>/<filename>`), so a retried step overwrites its own outputs instead of adding more.
 */
import type { Readable } from 'node:stream';

export interface StoredFile {
  key: string;
  size: number;
  contentType?: string;
  /** User metadata (`head` only), names lower-case, values as the store returns them. */
  metadata?: Record<string, string>;
}

export interface PutOptions {
  contentType?: string;
  contentDisposition?: string;
  /** Known length lets the adapter use a single request; unknown length streams in parts. */
  size?: number;
}

export interface UploadForm {
  url: string;
  fields: Record<string, string>;
}

export interface SignedGetOptions {
  expiresInSeconds: number;
  filename?: string;
  inline?: boolean;
  method?: 'GET' | 'HEAD';
  /** The Content-Type the download answers with, whatever the object was stored with (uploads are stored untyped). */
  contentType?: string;
}

export interface UploadFormOptions {
  expiresInSeconds: number;
  /** The most bytes the one file may have (the policy's `content-length-range`). */
  maxBytes: number;
  redirect?: string;
  /** The form may set the object's `Content-Type` (an engine function's outputs). */
  contentType?: boolean;
  /** Storage keeps the uploaded file's name as this user metadata (`head(key).metadata`). */
  filenameMetadata?: string;
  /**
   * `key` is a folder: the form writes any number of objects under it, each named by its file (an
   * engine function's outputs, one grant per task). Otherwise it writes exactly `key`.
   */
  under?: boolean;
}

export interface FileStore {
  /** Stores the bytes at `key` (what S3 stores is readable at once: no read-back). */
  put(key: string, body: Readable | Buffer | string, opts?: PutOptions): Promise<void>;
  /** `firstBytes`: only the object's first bytes (a ranged read of a non-empty object). */
  get(key: string, opts?: { firstBytes?: number }): Promise<{ body: Readable; size: number; contentType?: string }>;
  head(key: string): Promise<StoredFile | undefined>;
  /**
   * A server-side copy: the bytes never pass through the caller. `size`: the source's size when the
   * caller knows it (its own record), which spares looking at the source first. `contentType`: the
   * copy's type, where the source was stored without the right one (an upload).
   */
  copy(fromKey: string, toKey: string, opts?: { size?: number; contentType?: string }): Promise<StoredFile>;
  list(prefix: string): Promise<StoredFile[]>;
  /** Deletes every object under the prefix; returns how many. */
  deletePrefix(prefix: string): Promise<number>;
  /** A time-limited GET (or HEAD) URL, optionally with a download file name and the type to answer with. */
  signedGetUrl(key: string, opts: SignedGetOptions): Promise<string>;
  /**
   * A signed browser form that uploads one file straight to storage, at exactly `key` (a form can
   * write no other object; posted again, it replaces the one at `key`), or with `under` at any key
   * below the folder `key`. The answer is 201, or a 303 to `redirect` when given.
   */
  uploadForm(key: string, opts: UploadFormOptions): Promise<UploadForm>;
}

/** The files store of a region (its bucket); `undefined`: the default store (FILES_BUCKET). */
export type RegionFiles = (region: string | undefined) => FileStore;

/** Where a task's files are: its region's store when stores are per region, else the one store. */
export const filesOf = (deps: { files: FileStore; regionFiles?: RegionFiles }, task: { region?: string }): FileStore =>
  deps.regionFiles ? deps.regionFiles(task.region) : deps.files;

export class FileNotFoundError extends Error {
  override readonly name = 'FileNotFoundError';
  constructor(readonly key: string) {
    super(`no file at ${key}`);
  }
}
