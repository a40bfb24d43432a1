/**
 * The sandbox's gate on imports: every file a sandbox import task stored must be on its user's
 * whitelist (lib/file-api/sandbox/files.ts). One that is not ends the task with SANDBOX_FILE_NOT_ALLOWED, and
 * the task's files are deleted, so nothing that was refused stays in storage.
 */
import type { FileStore } from '../../adapters/file-store/port.js';
import { TaskFailure, taskPrefix, uploadPrefix } from '../operations/framework/types.js';
import type { FileEntry } from '../records/model.js';
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
  stored: readonly Pick<FileEntry, 'filename' | 'md5'>[],
): Promise<void> {
  const refused = whitelist ? await refusedFile(whitelist, task.userId, stored) : stored[0];
  if (!refused) return;
  await files.deletePrefix(taskPrefix(task.id));
  await files.deletePrefix(uploadPrefix(task.id));
  if (!whitelist) throw new TaskFailure('INTERNAL_ERROR', 'This consumer cannot check the sandbox whitelist.');
  throw new TaskFailure(SANDBOX_FILE_NOT_ALLOWED, refusalMessage(task.userId, refused.filename, refused.md5));
}

async function refusedFile(whitelist: Pick<SandboxFiles, 'notAllowed'>, userId: number, stored: readonly Pick<FileEntry, 'filename' | 'md5'>[]) {
  const unknown = stored.find((f) => !f.md5);
  if (unknown) return unknown;
  const missing = new Set(await whitelist.notAllowed(userId, stored.map((f) => f.md5!)));
  return stored.find((f) => missing.has(f.md5!));
}
