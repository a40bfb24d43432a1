/**
 * GET|HEAD /v2/files/{taskId}/{index}/{name}?expires=…&signature=…: an export/url file. The URL is the
 * credential (no API key): its signature must be the service's own and unexpired, the export task must
 * still exist and be finished, and the file one of its results. The answer is a 302 to a storage URL
 * valid a few minutes, signed with this function's current credentials, carrying the file name (and
 * `inline`, never for HTML or SVG) as Content-Disposition and the file's type (lib/file-api/operations/framework/content-type.ts).
 * 403 for a bad or expired signature, 404 once the task or file is gone.
 */
import { forbidden, notFound } from '#lib/kernel/errors.js';
import { servedAs, typeOfName } from '#lib/file-api/operations/framework/content-type.js';
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

  const files = taskFiles(task);
  const key = outputKey(task.id, file.filename, file.dir);
  // The type was stored with the file; only a name that says nothing needs the stored one looked up.
  const stored = typeOfName(file.filename) ? undefined : (await files.head(key))?.contentType;
  const location = await files.signedGetUrl(key, {
    expiresInSeconds: REDIRECT_SECONDS,
    filename: file.filename,
    method: req.method === 'HEAD' ? 'HEAD' : 'GET',
    ...servedAs(file.filename, stored, task.payload.inline === true),
  });
  return { status: 302, headers: { location, 'cache-control': 'no-store' } };
});
