/**
 * An upload arrived (S3 "Object Created" through EventBridge, locally the same event from the
 * platform): the import/upload task waiting for it finishes with the file, and its dependants start.
 * The form stores files under `uploads/<taskId>/<filename>`; the file moves to the task's own prefix.
 */
import type { EventBridgeEvent } from 'aws-lambda';
import { safeFilename } from '#lib/files/names.js';
import { regionBucket, taskFiles } from '#lib/platform/files.js';
import { rootLogger } from '#lib/platform/logger.js';
import { taskScheduler, taskStore } from '#lib/platform/tasks.js';
import { outputKey, uploadPrefix, uploadTaskOf } from '#lib/operations/types.js';
import { waitsForUpload } from '#lib/tasks/links.js';

interface ObjectCreated {
  bucket: { name: string };
  object: { key: string; size?: number; etag?: string };
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
  const { taskId, uploaded } = upload;
  // The form's policy only fixes the key's start: what follows is the client's, so only a safe base
  // name of it is kept (`uploads/<id>/../../x` on S3 is a literal key; here it is the file `x`).
  const filename = safeFilename(uploaded);
  const store = taskStore();
  const task = await store.getTask(taskId);
  if (!task || !waitsForUpload(task)) {
    log.info('upload for no waiting task ignored', { taskId, status: task?.status });
    return;
  }
  // The task's form sends the file to its region's bucket, where it stays; an object in another bucket is not its upload.
  if (event.detail.bucket.name !== regionBucket(task.region).bucket) {
    log.warn('upload outside the task region bucket ignored', { taskId, bucket: event.detail.bucket.name, region: task.region });
    return;
  }
  const files = taskFiles(task);
  const stored = await files.copy(key, outputKey(taskId, filename));
  await files.deletePrefix(uploadPrefix(taskId));
  const etag = event.detail.object.etag?.replace(/"/g, '');
  const finished = await store.finishWaiting(taskId, {
    files: [{ filename, size: stored.size, ...(etag && /^[0-9a-f]{32}$/.test(etag) ? { md5: etag } : {}) }],
  });
  if (finished) {
    log.info('upload received', { taskId, size: stored.size });
    await taskScheduler().afterEnd(finished);
  }
}
