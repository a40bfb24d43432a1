/**
 * The service's own reads and writes in a folder an engine has written to. A confined tool has its
 * task's work folder read-write (confine.ts binds it at the same path), so a compromised tool can leave
 * a symbolic link there: named as its output, it would make this process read a file of the host
 * (its environment, a key) and store it as the task's result; named as a later input, or in place of a
 * folder, it would make this process write the user's bytes over a host file. So here:
 * - an engine's output is read only when it is a regular file whose real path lies inside the folder
 *   (`openOutput`: no link followed at its last step, the opened file's real path checked after the
 *   open, so nothing swapped in between passes);
 * - files of the service's own are created only where nothing is (`createExclusive`), in folders that are
 *   folders and not links to one (`ownFolder`);
 * - after every tool (runTool), whatever is neither a file nor a folder is removed from its work folder
 *   (`removeSpecialFiles`): links, FIFOs, sockets, devices. So the service's own later steps of the same
 *   call, which write their outputs in-process (sharp after FFmpeg, pdf-lib after Ghostscript), find
 *   nothing to follow.
 * No tool of the task is running while the service does this (runTool's process group, bubblewrap's
 * PID namespace); the office workers, which outlive a job, get a fresh job folder each time.
 */
import { constants, type WriteStream } from 'node:fs';
import { lstat, mkdir, open, readdir, readlink, realpath, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EngineFailure } from './errors.js';

const changed = (what: string) =>
  new EngineFailure('CONVERSION_FAILED', `${what}; an engine changed its work folder, and the task was stopped.`);

/** Whether `inner` is `outer` or lies below it. */
const inside = (outer: string, inner: string) => inner === outer || inner.startsWith(outer.endsWith(path.sep) ? outer : outer + path.sep);

/** Where an open file really is: Linux tells it for the descriptor itself; elsewhere its path, resolved. */
async function openedPath(handle: FileHandle, file: string): Promise<string> {
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return realpath(file);
  }
}

/**
 * Opens `file`, which an engine wrote (or could have), for reading: only a regular file, reached by no
 * link at its last step, whose real path lies inside `root`. `name`: the file as the client knows it.
 */
export async function openOutput(file: string, root: string, name = path.basename(file)): Promise<{ handle: FileHandle; size: number }> {
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO left in its place must not hang the open.
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw changed(`The output ${name} is a link, not a file`);
    throw err;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw changed(`The output ${name} is not a regular file`);
    if (!inside(await realpath(root), await openedPath(handle, file))) throw changed(`The output ${name} is outside its work folder`);
    return { handle, size: stat.size };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** Makes `folder` (its parent exists) or accepts it when it is already a folder of its own, not a link. */
export async function ownFolder(folder: string): Promise<void> {
  try {
    await mkdir(folder);
    return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const stat = await lstat(folder);
  if (!stat.isDirectory()) throw changed(`The folder ${path.basename(folder)} is not a folder`);
}

/**
 * A stream creating `file`, refused when anything (a link included) is already there, and, with `root`,
 * when the file made is not inside it (a folder on the way swapped for a link by a process still running:
 * the office workers): then the empty file is removed before a byte is written.
 */
export async function createExclusive(file: string, root?: string): Promise<WriteStream> {
  // Opened here so that the refusal is an error of this call, not of the stream later.
  const handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EEXIST' || err.code === 'ELOOP') throw changed(`${path.basename(file)} was there before it was written`);
    throw err;
  });
  if (root !== undefined) {
    const made = await openedPath(handle, file);
    if (!inside(await realpath(root), made)) {
      await handle.close();
      await rm(made, { force: true });
      throw changed(`${path.basename(file)} would have been written outside its work folder`);
    }
  }
  return handle.createWriteStream();
}

/**
 * Removes every entry below `folder` that is neither a regular file nor a folder (links are removed,
 * never followed); returns how many. A folder that is gone is no error. Never a shared folder: the
 * root and the system's temporary folder are left alone (a tool's work folder is always one of its own).
 */
export async function removeSpecialFiles(folder: string): Promise<number> {
  if (path.resolve(folder) === path.resolve(tmpdir()) || path.resolve(folder) === path.parse(path.resolve(folder)).root) return 0;
  let removed = 0;
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) removed += await removeSpecialFiles(full);
    else if (!entry.isFile()) {
      await rm(full, { force: true });
      removed++;
    }
  }
  return removed;
}
