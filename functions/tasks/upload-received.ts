/**
 * An upload arrived (S3 "Object Created" through EventBridge, locally the same event from the
 * platform): the import/upload task waiting for it finishes with the file, and its dependants start.
 * The form writes exactly one key, `uploads/<taskId>/file`, with the uploaded file's name as its
 * metadata; the file moves to the task's own prefix under that name, made safe.
 * One form, one object: S3 cannot refuse a second POST of a valid form, but it can only land on that
 * same key, and anything that arrives for a task no longer waiting (a second upload, or one after the
 * task ended) is deleted here; the finished file lives under the task's prefix and is never touched.
 * A sandbox task takes the file only when its MD5 is whitelisted (lib/file-api/sandbox); otherwise the task
 * ends with SANDBOX_FILE_NOT_ALLOWED and the upload is deleted.
 */
import type { EventBridgeEvent } from 'aws-lambda';
import type { Readable } from 'node:stream';
import { fileType, SNIFF_BYTES, typeOfName } from '#lib/file-api/operations/framework/content-type.js';
import { decodeMimeWords, safeFilename } from '#lib/adapters/file-store/names.js';
import { regionBucket, taskFiles } from '#lib/wiring/files.js';
import { rootLogger } from '#lib/kernel/root-logger.js';
import { sandboxFiles } from '#lib/wiring/sandbox.js';
import { taskScheduler, taskStore } from '#lib/wiring/tasks.js';
import { outputKey, TaskFailure, UPLOAD_FILENAME_METADATA, uploadKey, uploadPrefix, uploadTaskOf } from '#lib/file-api/operations/framework/types.js';
import { isMd5, md5OfStream } from '#lib/file-api/sandbox/files.js';
import { admitSandboxImport } from '#lib/file-api/sandbox/gate.js';
import { isSandbox } from '#lib/file-api/records/model.js';
import { waitsForUpload } from '#lib/file-api/tasks/links.js';

interface ObjectCreated {
  bucket: { name: string };
  object: { key: string; size?: number; etag?: string };
}

/**
 * The uploaded file's MD5. S3 computed it while the form's POST streamed in: the object's ETag is the
 * MD5 of its bytes for a single-part upload into a bucket encrypted with SSE-S3 (serverless.yml), and
 * a POST upload is always single-part. An ETag of another form (SSE-KMS, a multipart object) is not an
 * MD5: then the stored file is read once, as a stream.
 */
async function uploadedMd5(etag: string | undefined, open: () => Promise<{ body: Readable }>): Promise<string> {
  const unquoted = etag?.replace(/"/g, '').toLowerCase();
  if (unquoted && isMd5(unquoted)) return unquoted;
  return md5OfStream((await open()).body);
}

/** S3 event keys are URL-encoded with `+` for spaces. */
const decodeKey = (key: string) => decodeURIComponent(key.replace(/\+/g, ' '));

export async function handler(event: EventBridgeEvent<'Object Created', ObjectCreated>): Promise<void> {
  const key = decodeKey(event.detail.object.key);
  const upload = uploadTaskOf(key);
  const log = rootLogger().child({ consumer: 'upload-received', key });
  if (!upload) {
    log.warn('object outside the upload prefix ignored');
    return;
  }
  const { taskId } = upload;
  const store = taskStore();
  const task = await store.getTask(taskId);
  // The task's form sends the file to its region's bucket, where it stays; an object in another bucket is not its upload.
  if (task && event.detail.bucket.name !== regionBucket(task.region).bucket) {
    log.warn('upload outside the task region bucket ignored', { taskId, bucket: event.detail.bucket.name, region: task.region });
    return;
  }
  if (!task || !waitsForUpload(task)) {
    // A second upload with the same form, or one after the task ended: not kept.
    if (task) await taskFiles(task).deletePrefix(uploadPrefix(taskId));
    log.info('upload for no waiting task deleted', { taskId, status: task?.status });
    return;
  }
  if (key !== uploadKey(taskId)) {
    // No form of ours signs another key (a form signed before forms had one key expires within the hour).
    log.warn('upload at another key than the form\'s ignored', { taskId });
    return;
  }
  const files = taskFiles(task);
  const stored = await files.head(key);
  if (!stored) {
    log.info('upload gone before it was taken', { taskId });
    return;
  }
  // The form's metadata holds the client's file name (RFC 2047-encoded when not ASCII): only a safe base name of it is kept.
  const filename = safeFilename(decodeMimeWords(stored.metadata?.[UPLOAD_FILENAME_METADATA] ?? ''));
  const md5 = await uploadedMd5(event.detail.object.etag, () => files.get(key));
  if (isSandbox(task)) {
    try {
      await admitSandboxImport(sandboxFiles(), files, task, [{ filename, md5 }]);
    } catch (err) {
      if (!(err instanceof TaskFailure)) throw err;
      const failed = await store.fail(taskId, { code: err.code, message: err.message }, { from: ['waiting'] }, err.result ? { result: err.result } : {});
      log.info('sandbox upload refused', { taskId, md5 });
      if (failed) await taskScheduler().afterEnd(failed);
      return;
    }
  }
  // The form stores the file untyped: its type (lib/file-api/operations/framework/content-type.ts) is given to the copy, from
  // the name, or where that says nothing from the first bytes (a ranged read, not the whole file).
  const head = typeOfName(filename) || !stored.size ? undefined : Buffer.concat(await (await files.get(key, { firstBytes: SNIFF_BYTES })).body.toArray());
  const copied = await files.copy(key, outputKey(taskId, filename), { contentType: fileType(filename, head) });
  await files.deletePrefix(uploadPrefix(taskId));
  const finished = await store.finishWaiting(taskId, { files: [{ filename, size: copied.size, md5 }] });
  if (finished) {
    log.info('upload received', { taskId, size: copied.size, contentType: copied.contentType });
    await taskScheduler().afterEnd(finished);
  }
}
