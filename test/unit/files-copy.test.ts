/**
 * Server-side copies of task files (export/url, upload-received): one CopyObject up to S3's 5 GiB
 * limit, UploadPartCopy in parts above it. s3rver 3.7.1 answers UploadPartCopy with NotImplemented,
 * so the part path runs against a recording stand-in for the S3 client, with a lowered threshold.
 */
import {
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  HeadObjectCommand,
  NoSuchKey,
  NotFound,
  UploadPartCopyCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { FileNotFoundError } from '#lib/adapters/file-store/port.js';
import { S3FileStore, S3_COPY_OBJECT_MAX_BYTES } from '#lib/adapters/file-store/s3-file-store.js';

interface Sent {
  name: string;
  input: Record<string, any>;
}

/** An S3 client stand-in: records every command; `size` is the source object's length. */
function recordingS3(opts: { size: number; failPart?: number; missing?: boolean; copyLimit?: number }) {
  const sent: Sent[] = [];
  const client = {
    async send(command: { input: Record<string, any> }) {
      const name = command.constructor.name;
      sent.push({ name, input: command.input });
      if (command instanceof HeadObjectCommand) {
        if (opts.missing) throw new NotFound({ message: 'Not Found', $metadata: { httpStatusCode: 404 } });
        return { ContentLength: opts.size, ContentType: 'video/mp4', ContentDisposition: 'attachment', ETag: '"src-etag"', Metadata: { a: 'b' } };
      }
      if (command instanceof CopyObjectCommand) {
        if (opts.missing) throw new NoSuchKey({ message: 'The specified key does not exist.', $metadata: { httpStatusCode: 404 } });
        // What S3 answers a CopyObject of a source over 5 GiB (here: over the store's threshold).
        if (opts.size > (opts.copyLimit ?? Infinity)) throw Object.assign(new Error('The specified copy source is larger than the maximum allowable size for a copy source'), { name: 'InvalidRequest' });
      }
      if (command instanceof CreateMultipartUploadCommand) return { UploadId: 'upload-1' };
      if (command instanceof UploadPartCopyCommand) {
        if (command.input.PartNumber === opts.failPart) throw Object.assign(new Error('SlowDown'), { name: 'SlowDown' });
        return { CopyPartResult: { ETag: `"etag-${command.input.PartNumber}"` } };
      }
      return {};
    },
  };
  return { client: client as unknown as S3Client, sent };
}

const names = (sent: Sent[]) => sent.map((s) => s.name.replace(/Command$/, ''));

describe('copying a task file', () => {
  it('uses one CopyObject up to the threshold (S3: 5 GiB)', async () => {
    expect(S3_COPY_OBJECT_MAX_BYTES).toBe(5 * 1024 ** 3);
    const { client, sent } = recordingS3({ size: 10 });
    const store = new S3FileStore(client, 'files', { multipartCopyAbove: 10, copyPartBytes: 4 });
    expect(await store.copy('tasks/a/in.mp4', 'tasks/b/in.mp4')).toEqual({ key: 'tasks/b/in.mp4', size: 10, contentType: 'video/mp4' });
    expect(names(sent)).toEqual(['HeadObject', 'CopyObject']);
    expect(sent[1]!.input).toMatchObject({ Bucket: 'files', Key: 'tasks/b/in.mp4', CopySource: 'files/tasks/a/in.mp4' });
  });

  it('copies a larger object in parts, in order, keeping its content headers, and completes the upload', async () => {
    const { client, sent } = recordingS3({ size: 11 });
    const store = new S3FileStore(client, 'files', { multipartCopyAbove: 10, copyPartBytes: 4 });
    expect(await store.copy('tasks/a/my clip.mp4', 'tasks/b/my clip.mp4')).toEqual({ key: 'tasks/b/my clip.mp4', size: 11, contentType: 'video/mp4' });
    expect(names(sent)).toEqual(['HeadObject', 'CreateMultipartUpload', 'UploadPartCopy', 'UploadPartCopy', 'UploadPartCopy', 'CompleteMultipartUpload']);
    expect(sent[1]!.input).toMatchObject({ Bucket: 'files', Key: 'tasks/b/my clip.mp4', ContentType: 'video/mp4', ContentDisposition: 'attachment', Metadata: { a: 'b' } });
    const parts = sent.filter((s) => s.name === 'UploadPartCopyCommand').map((s) => s.input);
    expect(parts.map((p) => [p.PartNumber, p.CopySourceRange])).toEqual([
      [1, 'bytes=0-3'],
      [2, 'bytes=4-7'],
      [3, 'bytes=8-10'],
    ]);
    for (const p of parts) {
      expect(p).toMatchObject({ Bucket: 'files', Key: 'tasks/b/my clip.mp4', UploadId: 'upload-1', CopySource: 'files/tasks/a/my%20clip.mp4', CopySourceIfMatch: '"src-etag"' });
    }
    expect(sent.at(-1)!.input).toMatchObject({
      UploadId: 'upload-1',
      MultipartUpload: { Parts: [1, 2, 3].map((n) => ({ PartNumber: n, ETag: `"etag-${n}"` })) },
    });
  });

  it("keeps within S3's 10,000 parts by growing the part size", async () => {
    const { client, sent } = recordingS3({ size: 100_001 });
    const store = new S3FileStore(client, 'files', { multipartCopyAbove: 10, copyPartBytes: 4 });
    await store.copy('a', 'b');
    const parts = sent.filter((s) => s.name === 'UploadPartCopyCommand');
    expect(parts.length).toBeLessThanOrEqual(10_000);
    expect(parts.at(-1)!.input.CopySourceRange).toMatch(/-100000$/);
  });

  it('aborts the multipart upload when a part fails, and reports the failure', async () => {
    const { client, sent } = recordingS3({ size: 11, failPart: 2 });
    const store = new S3FileStore(client, 'files', { multipartCopyAbove: 10, copyPartBytes: 4 });
    await expect(store.copy('a', 'b')).rejects.toThrow('SlowDown');
    expect(names(sent)).toContain('AbortMultipartUpload');
    expect(names(sent)).not.toContain('CompleteMultipartUpload');
    expect(sent.find((s) => s.name === 'AbortMultipartUploadCommand')!.input).toMatchObject({ Bucket: 'files', Key: 'b', UploadId: 'upload-1' });
  });

  it('reports a missing source as FileNotFoundError without copying', async () => {
    const { client, sent } = recordingS3({ size: 0, missing: true });
    await expect(new S3FileStore(client, 'files').copy('gone', 'b')).rejects.toBeInstanceOf(FileNotFoundError);
    expect(names(sent)).toEqual(['HeadObject']);
  });

  it('copies a source of known size within the threshold with one CopyObject, without looking at it first', async () => {
    const { client, sent } = recordingS3({ size: 10, copyLimit: 10 });
    const store = new S3FileStore(client, 'files', { multipartCopyAbove: 10, copyPartBytes: 4 });
    expect(await store.copy('tasks/a/in.mp4', 'tasks/b/in.mp4', { size: 10 })).toEqual({ key: 'tasks/b/in.mp4', size: 10 });
    expect(names(sent)).toEqual(['CopyObject']);
    expect(sent[0]!.input).toMatchObject({ Bucket: 'files', Key: 'tasks/b/in.mp4', CopySource: 'files/tasks/a/in.mp4' });
  });

  it('copies in parts a source larger than its known size said (the CopyObject is refused)', async () => {
    const { client, sent } = recordingS3({ size: 11, copyLimit: 10 });
    const store = new S3FileStore(client, 'files', { multipartCopyAbove: 10, copyPartBytes: 4 });
    expect(await store.copy('a', 'b', { size: 9 })).toEqual({ key: 'b', size: 11, contentType: 'video/mp4' });
    expect(names(sent)).toEqual(['CopyObject', 'HeadObject', 'CreateMultipartUpload', 'UploadPartCopy', 'UploadPartCopy', 'UploadPartCopy', 'CompleteMultipartUpload']);
  });

  it('reports a missing source of known size as FileNotFoundError', async () => {
    const { client } = recordingS3({ size: 0, missing: true });
    await expect(new S3FileStore(client, 'files').copy('gone', 'b', { size: 5 })).rejects.toBeInstanceOf(FileNotFoundError);
  });
});
