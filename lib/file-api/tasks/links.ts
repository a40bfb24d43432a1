/**
 * What a task shows that is signed when it is shown rather than stored: the download URLs of an
 * export/url task's files and the upload form of an import/upload task that waits for its file.
 *
 * Signing on read keeps both valid for as long as promised whatever credentials the functions have:
 * - export URLs point at the service (`/v2/files/...`), signed with the service's own key and valid
 *   24 hours from the export (never past the task's end); the same URL every time the task is shown;
 * - upload forms are presigned storage forms, signed afresh with the showing function's credentials
 *   for `UPLOAD_FORM_SECONDS` (never past the task's end). A client that waits longer shows the task
 *   again for a new form.
 * Stored tasks carry neither, which keeps their items small.
 */
import { filesOf, type FileStore, type RegionFiles } from '../../adapters/file-store/port.js';
import { downloadPath, type DownloadUrlSigner } from '../../adapters/file-store/download-urls.js';
import { operationDefinition } from '../operations/index.js';
import { UPLOAD_FILENAME_METADATA, uploadKey } from '../operations/framework/types.js';
import { epochSeconds } from '../../adapters/state/port.js';
import type { TaskRecord } from '../records/model.js';

/** How long an export URL is valid after the export ended. */
export const EXPORT_URL_SECONDS = 24 * 60 * 60;

export interface UploadFormView {
  url: string;
  parameters: Record<string, string>;
}

/** Links for the tasks of one answer, ready to be placed synchronously by the views. */
export interface ShownLinks {
  /** The download URL of file `index` of a finished export/url task. */
  fileUrl(task: TaskRecord, index: number): string | undefined;
  /** The upload form of an import/upload task that waits for its file. */
  form(task: TaskRecord): UploadFormView | undefined;
}

export interface TaskLinksDeps {
  /** The download-URL signer (its key is loaded on first use). */
  signer: () => Promise<DownloadUrlSigner>;
  files: FileStore;
  /** Each region's files store: an upload form sends the file to the task's region's bucket. */
  regionFiles?: RegionFiles;
  /** Largest upload a form accepts, bytes. */
  maxUploadBytes: number;
  /** How long a form is valid, at most (seconds). */
  uploadFormSeconds: number;
  now?: () => number;
}

export const servesDownloads = (task: TaskRecord) =>
  operationDefinition(task.operation)?.servesDownloads === true && task.status === 'finished' && (task.result?.files?.length ?? 0) > 0;

export const waitsForUpload = (task: TaskRecord) => operationDefinition(task.operation)?.creation?.kind === 'upload' && task.status === 'waiting';

/** When an export task's URLs stop working: 24 hours after the export, and never after the task. */
export function exportUrlExpiry(task: TaskRecord): number {
  const ended = task.endedAt ? epochSeconds(new Date(task.endedAt)) : task.expiresAt;
  return Math.min(ended + EXPORT_URL_SECONDS, task.expiresAt);
}

export class TaskLinks {
  constructor(private readonly deps: TaskLinksDeps) {}

  /** Signs what `tasks` show (related tasks included) for an answer under `baseUrl`. */
  async for(tasks: readonly TaskRecord[], baseUrl: string): Promise<ShownLinks> {
    const now = this.deps.now?.() ?? Date.now();
    const signer = tasks.some(servesDownloads) ? await this.deps.signer() : undefined;
    const forms = new Map<string, UploadFormView>();
    await Promise.all(
      tasks.filter(waitsForUpload).map(async (task) => {
        if (forms.has(task.id)) return;
        const left = task.expiresAt - epochSeconds(now);
        if (left <= 0) return;
        const redirect = typeof task.payload.redirect === 'string' ? task.payload.redirect : undefined;
        const form = await filesOf(this.deps, task).uploadForm(uploadKey(task.id), {
          expiresInSeconds: Math.min(this.deps.uploadFormSeconds, left),
          maxBytes: this.deps.maxUploadBytes,
          filenameMetadata: UPLOAD_FILENAME_METADATA,
          ...(redirect ? { redirect } : {}),
        });
        forms.set(task.id, { url: form.url, parameters: form.fields });
      }),
    );
    return {
      fileUrl: (task, index) => {
        const file = task.result?.files?.[index];
        if (!signer || !file || !servesDownloads(task)) return undefined;
        return signer.signedUrl(baseUrl, downloadPath(task.id, index, file.filename), exportUrlExpiry(task));
      },
      form: (task) => (waitsForUpload(task) ? forms.get(task.id) : undefined),
    };
  }
}
