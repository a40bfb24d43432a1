/** The files port on S3 (locally s3rver, through the same client). */
import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Readable } from 'node:stream';
import { FileNotFoundError, type FileStore, type PutOptions, type StoredFile, type UploadForm } from './port.js';

/**
 * An S3 client configured for streaming: checksums only where S3 requires them. With the SDK's
 * default (`WHEN_SUPPORTED`) a streamed PutObject is sent aws-chunked with a trailing checksum, which
 * S3-compatible servers such as s3rver store verbatim, corrupting the object; presigned URLs would
 * also carry checksum parameters that browsers cannot satisfy.
 */
export function createS3Client(opts: { region: string; endpoint?: string; credentials?: S3ClientConfig['credentials'] }) {
  return new S3Client({
    region: opts.region,
    endpoint: opts.endpoint,
    forcePathStyle: Boolean(opts.endpoint),
    credentials: opts.credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

const contentDisposition = (filename: string, inline = false) =>
  `${inline ? 'inline' : 'attachment'}; filename="${filename.replace(/["\\\r\n]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(filename)}`;

export class S3FileStore implements FileStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async put(key: string, body: Readable | Buffer | string, opts: PutOptions = {}): Promise<StoredFile> {
    const common = {
      Bucket: this.bucket,
      Key: key,
      ContentType: opts.contentType,
      ContentDisposition: opts.contentDisposition,
    };
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
      await this.s3.send(new PutObjectCommand({ ...common, Body: body }));
    } else {
      // Multipart upload: bounded memory (parts of 8 MiB, two in flight) for any length.
      await new Upload({ client: this.s3, params: { ...common, Body: body }, partSize: 8 * 1024 * 1024, queueSize: 2 }).done();
    }
    const head = await this.head(key);
    if (!head) throw new FileNotFoundError(key);
    return head;
  }

  async get(key: string) {
    try {
      const out = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return { body: out.Body as Readable, size: out.ContentLength ?? 0, contentType: out.ContentType };
    } catch (err) {
      if (err instanceof NoSuchKey) throw new FileNotFoundError(key);
      throw err;
    }
  }

  async head(key: string): Promise<StoredFile | undefined> {
    try {
      const out = await this.s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { key, size: out.ContentLength ?? 0, contentType: out.ContentType };
    } catch (err) {
      if (err instanceof NotFound || err instanceof NoSuchKey) return undefined;
      throw err;
    }
  }

  async copy(fromKey: string, toKey: string): Promise<StoredFile> {
    try {
      await this.s3.send(
        new CopyObjectCommand({ Bucket: this.bucket, Key: toKey, CopySource: `${this.bucket}/${fromKey.split('/').map(encodeURIComponent).join('/')}` }),
      );
    } catch (err) {
      if (err instanceof NoSuchKey || (err as Error).name === 'NoSuchKey') throw new FileNotFoundError(fromKey);
      throw err;
    }
    const head = await this.head(toKey);
    if (!head) throw new FileNotFoundError(toKey);
    return head;
  }

  async list(prefix: string): Promise<StoredFile[]> {
    const out: StoredFile[] = [];
    let token: string | undefined;
    do {
      const page = await this.s3.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const o of page.Contents ?? []) if (o.Key) out.push({ key: o.Key, size: o.Size ?? 0 });
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out;
  }

  async deletePrefix(prefix: string): Promise<number> {
    const files = await this.list(prefix);
    for (let i = 0; i < files.length; i += 1000) {
      const Objects = files.slice(i, i + 1000).map((f) => ({ Key: f.key }));
      await this.s3.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects, Quiet: true } }));
    }
    return files.length;
  }

  signedGetUrl(key: string, opts: { expiresInSeconds: number; filename?: string; inline?: boolean }): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ResponseContentDisposition: opts.filename ? contentDisposition(opts.filename, opts.inline) : undefined,
    });
    return getSignedUrl(this.s3, command, { expiresIn: opts.expiresInSeconds });
  }

  async uploadForm(key: string, opts: { expiresInSeconds: number; maxBytes: number; redirect?: string }): Promise<UploadForm> {
    const outcome: Record<string, string> = opts.redirect
      ? { success_action_redirect: opts.redirect }
      : { success_action_status: '201' };
    // The key the form may write: exactly `key`, or with `${filename}` anything that starts with what precedes it.
    const dynamic = key.endsWith('${filename}') ? key.slice(0, -'${filename}'.length) : undefined;
    const { url, fields } = await createPresignedPost(this.s3, {
      Bucket: this.bucket,
      Key: key,
      Conditions: [
        dynamic !== undefined ? ['starts-with', '$key', dynamic] : { key },
        ['content-length-range', 0, opts.maxBytes],
        ...Object.entries(outcome).map(([k, v]) => ({ [k]: v })),
      ],
      Fields: outcome,
      Expires: opts.expiresInSeconds,
    });
    return { url, fields };
  }
}
