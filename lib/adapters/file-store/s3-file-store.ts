/** The files port on S3 (locally s3rver, through the same client). */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3Client,
  UploadPartCopyCommand,
  type HeadObjectCommandOutput,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Readable } from 'node:stream';
import { FileNotFoundError, type FileStore, type PutOptions, type StoredFile, type UploadForm, type SignedGetOptions, type UploadFormOptions } from './port.js';

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

/**
 * Where a presigned POST form for `bucket` sends its file (what a browser page must be allowed to
 * connect to): the SDK's own endpoint rules, as createPresignedPost applies them, without signing.
 */
export function formOrigin(s3: S3Client, bucket: string, region: string, endpoint?: string): string {
  const params = { Bucket: bucket, Region: region, ForcePathStyle: Boolean(endpoint), Endpoint: endpoint, UseFIPS: false, UseDualStack: false, Accelerate: false };
  return s3.config.endpointProvider(params as never, {}).url.origin;
}

const contentDisposition = (filename: string, inline = false) =>
  `${inline ? 'inline' : 'attachment'}; filename="${filename.replace(/["\\\r\n]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(filename)}`;

/** The largest object one CopyObject request copies (S3's limit: 5 GiB). */
export const S3_COPY_OBJECT_MAX_BYTES = 5 * 1024 ** 3;
/** S3's limit on the parts of one multipart upload. */
const MAX_PARTS = 10_000;

export interface S3FileStoreOptions {
  /** Objects larger than this are copied in parts (UploadPartCopy). Default: S3's CopyObject limit. */
  multipartCopyAbove?: number;
  /** Part size of a multipart copy, grown when the object would need more than 10,000 parts. Default 512 MiB. */
  copyPartBytes?: number;
  /** Parts copied at the same time. Default 4. */
  copyConcurrency?: number;
}

export class S3FileStore implements FileStore {
  readonly #multipartCopyAbove: number;
  readonly #copyPartBytes: number;
  readonly #copyConcurrency: number;

  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    opts: S3FileStoreOptions = {},
  ) {
    this.#multipartCopyAbove = opts.multipartCopyAbove ?? S3_COPY_OBJECT_MAX_BYTES;
    this.#copyPartBytes = opts.copyPartBytes ?? 512 * 1024 ** 2;
    this.#copyConcurrency = opts.copyConcurrency ?? 4;
  }

  async put(key: string, body: Readable | Buffer | string, opts: PutOptions = {}): Promise<void> {
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
  }

  async get(key: string, opts: { firstBytes?: number } = {}) {
    const range = opts.firstBytes ? `bytes=0-${opts.firstBytes - 1}` : undefined;
    try {
      const out = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range }));
      return { body: out.Body as Readable, size: out.ContentLength ?? 0, contentType: out.ContentType };
    } catch (err) {
      if (err instanceof NoSuchKey) throw new FileNotFoundError(key);
      throw err;
    }
  }

  async head(key: string): Promise<StoredFile | undefined> {
    try {
      const out = await this.s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { key, size: out.ContentLength ?? 0, contentType: out.ContentType, metadata: out.Metadata };
    } catch (err) {
      if (err instanceof NotFound || err instanceof NoSuchKey) return undefined;
      throw err;
    }
  }

  /**
   * A server-side copy. One CopyObject up to 5 GiB (S3's limit for it); above, a multipart upload
   * whose parts are copied from ranges of the source (UploadPartCopy), a few at a time, each on the
   * condition that the source is still the object measured first. The content headers and metadata
   * are carried over as CopyObject does.
   */
  async copy(fromKey: string, toKey: string, opts: { size?: number; contentType?: string } = {}): Promise<StoredFile> {
    if (opts.size !== undefined && opts.size <= this.#multipartCopyAbove) {
      // Known to fit one CopyObject: no need to look at the source first.
      const copied = await this.#copyObject(fromKey, toKey, opts.contentType).then(
        () => true,
        (err: unknown) => {
          // Larger than its record said: copied in parts below.
          if ((err as Error).name === 'InvalidRequest') return false;
          throw err;
        },
      );
      if (copied) return { key: toKey, size: opts.size, ...(opts.contentType ? { contentType: opts.contentType } : {}) };
    }
    let source: HeadObjectCommandOutput;
    try {
      source = await this.s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key: fromKey }));
    } catch (err) {
      if (err instanceof NotFound || err instanceof NoSuchKey || (err as Error).name === 'NotFound') throw new FileNotFoundError(fromKey);
      throw err;
    }
    const size = source.ContentLength ?? 0;
    const contentType = opts.contentType ?? source.ContentType;
    if (size > this.#multipartCopyAbove) await this.#copyInParts(this.#copySource(fromKey), toKey, size, { ...source, ContentType: contentType });
    else await this.#copyObject(fromKey, toKey, opts.contentType);
    return { key: toKey, size, contentType };
  }

  #copySource(fromKey: string): string {
    return `${this.bucket}/${fromKey.split('/').map(encodeURIComponent).join('/')}`;
  }

  /** `contentType`: the copy's own type (its other metadata then is not the source's either: an upload's name stays behind). */
  async #copyObject(fromKey: string, toKey: string, contentType?: string): Promise<void> {
    const replace = contentType ? { MetadataDirective: 'REPLACE' as const, ContentType: contentType } : {};
    try {
      await this.s3.send(new CopyObjectCommand({ Bucket: this.bucket, Key: toKey, CopySource: this.#copySource(fromKey), ...replace }));
    } catch (err) {
      if (err instanceof NoSuchKey || (err as Error).name === 'NoSuchKey') throw new FileNotFoundError(fromKey);
      throw err;
    }
  }

  async #copyInParts(copySource: string, toKey: string, size: number, source: HeadObjectCommandOutput): Promise<void> {
    const partBytes = Math.max(this.#copyPartBytes, Math.ceil(size / MAX_PARTS));
    const ranges = Array.from({ length: Math.ceil(size / partBytes) }, (_, i) => ({
      PartNumber: i + 1,
      CopySourceRange: `bytes=${i * partBytes}-${Math.min(size, (i + 1) * partBytes) - 1}`,
    }));
    const { UploadId } = await this.s3.send(
      new CreateMultipartUploadCommand({
        Bucket: this.bucket,
        Key: toKey,
        ContentType: source.ContentType,
        ContentDisposition: source.ContentDisposition,
        ContentEncoding: source.ContentEncoding,
        Metadata: source.Metadata,
      }),
    );
    try {
      const parts: Array<{ PartNumber: number; ETag: string | undefined }> = [];
      let next = 0;
      const worker = async () => {
        while (next < ranges.length) {
          const range = ranges[next++]!;
          const out = await this.s3.send(
            new UploadPartCopyCommand({ Bucket: this.bucket, Key: toKey, UploadId, CopySource: copySource, CopySourceIfMatch: source.ETag, ...range }),
          );
          parts.push({ PartNumber: range.PartNumber, ETag: out.CopyPartResult?.ETag });
        }
      };
      await Promise.all(Array.from({ length: Math.min(this.#copyConcurrency, ranges.length) }, worker));
      parts.sort((a, b) => a.PartNumber - b.PartNumber);
      await this.s3.send(new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key: toKey, UploadId, MultipartUpload: { Parts: parts } }));
    } catch (err) {
      await this.s3.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: toKey, UploadId })).catch(() => undefined);
      throw err;
    }
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

  signedGetUrl(key: string, opts: SignedGetOptions): Promise<string> {
    const input = {
      Bucket: this.bucket,
      Key: key,
      ResponseContentDisposition: opts.filename ? contentDisposition(opts.filename, opts.inline) : undefined,
      ResponseContentType: opts.contentType,
    };
    // A presigned URL is signed for its method: a HEAD needs a HeadObject URL.
    const command = opts.method === 'HEAD' ? new HeadObjectCommand(input) : new GetObjectCommand(input);
    return getSignedUrl(this.s3, command, { expiresIn: opts.expiresInSeconds });
  }

  async uploadForm(key: string, opts: UploadFormOptions): Promise<UploadForm> {
    const outcome: Record<string, string> = opts.redirect
      ? { success_action_redirect: opts.redirect }
      : { success_action_status: '201' };
    // S3 replaces `${filename}` in any field with the uploaded file's name; the policy checks the field as sent.
    const name: Record<string, string> = opts.filenameMetadata ? { [`x-amz-meta-${opts.filenameMetadata}`]: '${filename}' } : {};
    const { url, fields } = await createPresignedPost(this.s3, {
      Bucket: this.bucket,
      Key: opts.under ? `${key}\${filename}` : key,
      Conditions: [
        // Exactly this key: a user's form writes one object, never one per file name. An engine's grant
        // writes under its task's folder only.
        opts.under ? ['starts-with', '$key', key] : { key },
        ['content-length-range', 0, opts.maxBytes],
        ...(opts.contentType ? [['starts-with', '$Content-Type', ''] as ['starts-with', string, string]] : []),
        ...Object.entries(outcome).map(([k, v]) => ({ [k]: v })),
        // Any name: whether S3 checks the field before or after the substitution, it is the client's file name.
        ...Object.keys(name).map((k): ['starts-with', string, string] => ['starts-with', `$${k}`, '']),
      ],
      Fields: { ...outcome, ...name },
      Expires: opts.expiresInSeconds,
    });
    return { url, fields };
  }
}
