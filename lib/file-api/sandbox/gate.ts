/**
 * The sandbox's gate on imports: every file a sandbox import task stored must be on its user's
 * whitelist (lib/file-api/sandbox/files.ts). One that is not ends the task with SANDBOX_FILE_NOT_ALLOWED, and
 * the task's files are deleted, so nothing that was refused stays in storage.
 */
import type { FileStore } from '../../adapters/file-store/port.js';
import { TaskFailure, taskPrefix, uploadPrefix } from '../operations/framework/types.js';
import type { FileEntry, TaskResult } from '../records/model.js';
import { refusalMessage, SANDBOX_FILE_NOT_ALLOWED, type SandboxFiles } from './files.js';

/**
 * Resolves when every file is whitelisted; otherwise deletes the task's files (its own and an upload
 * waiting for it) and throws the task's failure naming the first refused file and its MD5. Without a
 * whitelist to ask, nothing is admitted.
 */
export async function admitSandboxImport(
  whitelist: Pick<SandboxFiles, 'notAllowed'> | undefined,
  files: Pick<FileStore, 'deletePrefix'>,
  task: { id: string; userId: number },
  stored: readonly Pick<FileEntry, 'filename' | 'md5' | 'dir'>[],
): Promise<void> {
  const refused = whitelist ? await refusedFile(whitelist, task.userId, stored) : stored[0];
  if (!refused) return;
  await files.deletePrefix(taskPrefix(task.id));
  await files.deletePrefix(uploadPrefix(task.id));
  if (!whitelist) throw new TaskFailure('INTERNAL_ERROR', 'This consumer cannot check the sandbox whitelist.');
  throw new TaskFailure(SANDBOX_FILE_NOT_ALLOWED, refusalMessage(task.userId, refused.filename, refused.md5), false, { result: refusalResult(stored) });
}

/** The most the refusal's file list takes as JSON (a sandbox is for a handful of test files; this is some hundreds). */
export const MAX_REFUSAL_RESULT_BYTES = 64 * 1024;

/**
 * The refused task's `result`: every file it brought in, by name and MD5, as CloudConvert's recorded
 * refusal shows it (`{files: [{filename, md5}]}`, the SDKs' job.json): a client learns from it what to
 * whitelist, and listing the admitted files too lets it whitelist the lot in one round. No size or URL:
 * the files are gone. `dir` tells apart files of one name in two folders; an MD5 not known is null.
 * Files past MAX_REFUSAL_RESULT_BYTES are left out (the message names the first refused one anyway).
 */
function refusalResult(stored: readonly Pick<FileEntry, 'filename' | 'md5' | 'dir'>[]): TaskResult {
  const files: RefusedFile[] = [];
  let bytes = 0;
  for (const { filename, md5, dir } of stored) {
    const entry = { filename, md5: md5 ?? null, ...(dir ? { dir } : {}) };
    bytes += Buffer.byteLength(JSON.stringify(entry)) + 1;
    if (bytes > MAX_REFUSAL_RESULT_BYTES) break;
    files.push(entry);
  }
  // A refused task feeds no other (its dependants fail with INPUT_TASK_FAILED), so nothing reads a size here.
  return { files: files as unknown as FileEntry[] };
}

type RefusedFile = Pick<FileEntry, 'filename' | 'dir'> & { md5: string | null };

async function refusedFile(whitelist: Pick<SandboxFiles, 'notAllowed'>, userId: number, stored: readonly Pick<FileEntry, 'filename' | 'md5'>[]) {
  const unknown = stored.find((f) => !f.md5);
  if (unknown) return unknown;
  const missing = new Set(await whitelist.notAllowed(userId, stored.map((f) => f.md5!)));
  return stored.find((f) => missing.has(f.md5!));
}
