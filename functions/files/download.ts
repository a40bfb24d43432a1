/**
 * GET|HEAD /v2/files/{taskId}/{index}/{name}?expires=…&signature=…: an export/url file. The URL is the
 * credential (no API key): its signature must be the service's own and unexpired, the export task must
 * still exist and be finished, and the file one of its results. The answer is a 302 to a storage URL
 * valid a few minutes, signed with this function's current credentials, carrying the file name (and
 * `inline`) as Content-Disposition. 403 for a bad or expired signature, 404 once the task or file is gone.
 */
import { formatOfFilename, mimeType } from '#lib/engines/core/formats.js';
import { forbidden, notFound } from '#lib/kernel/errors.js';
import { DOWNLOAD_PATH_PREFIX, urlSafeName } from '#lib/adapters/file-store/download-urls.js';
import { renderFileApiError } from '#lib/http/dialects.js';
import { route } from '#lib/http/middleware/route.js';
import { outputKey } from '#lib/file-api/operations/framework/types.js';
import { once, stateStore } from '#lib/wiring/clients.js';
import { existingDownloadUrls } from '#lib/wiring/download-urls.js';
import { taskFiles } from '#lib/wiring/files.js';
import { epochSeconds } from '#lib/adapters/state/port.js';
import { servesDownloads } from '#lib/file-api/tasks/links.js';
import { TaskStore } from '#lib/file-api/records/store.js';

/**
 * The type a file's name gives (`photo.png`: image/png), as the real service's export URLs carry it:
 * uploads are stored untyped. A name that says nothing keeps the type it was stored with.
 */
function typeOfName(filename: string): { contentType?: string } {
  const format = formatOfFilename(filename);
  const type = format ? mimeType(format) : undefined;
  return type && type !== 'application/octet-stream' ? { contentType: type } : {};
}

/** How long the storage URL of the redirect is valid: enough to start the download. */
export const REDIRECT_SECONDS = 300;

const tasks = once(() => new TaskStore(stateStore()));

export const handler = route({ render: renderFileApiError, body: 'none' }, async (req) => {
  const { taskId = '', index = '', name = '' } = req.params;
  const signer = await existingDownloadUrls();
  const check = signer?.check(`${DOWNLOAD_PATH_PREFIX}/${taskId}/${index}/${name}`, req.query.expires, req.query.signature, epochSeconds()) ?? 'invalid';
  if (check === 'invalid') throw forbidden('The download URL is not valid: its signature does not match.');
  if (check === 'expired') throw forbidden('The download URL has expired.');

  const task = await tasks().getTask(taskId);
  if (!task || !servesDownloads(task)) throw notFound('The export task of this URL no longer exists.');
  const file = /^[0-9]{1,5}$/.test(index) ? task.result?.files?.[Number(index)] : undefined;
  if (!file || urlSafeName(file.filename) !== name) throw notFound('The export task has no such file.');

  const location = await taskFiles(task).signedGetUrl(outputKey(task.id, file.filename, file.dir), {
    expiresInSeconds: REDIRECT_SECONDS,
    filename: file.filename,
    inline: task.payload.inline === true,
    method: req.method === 'HEAD' ? 'HEAD' : 'GET',
    ...typeOfName(file.filename),
  });
  return { status: 302, headers: { location, 'cache-control': 'no-store' } };
});
