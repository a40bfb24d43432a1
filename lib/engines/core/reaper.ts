/**
 * What an engine function does after every task (lib/file-api/operations/engine-function-host.ts), before it
 * answers: every process that is not this one or one of its ancestors is killed, and the temporary
 * folder (Lambda's /tmp) is emptied but for the binaries unpacked from the zip (`keep`, checked against
 * their digest before each task runs them). A compromised engine (a decoder exploit, an escape from a tool)
 * then leaves nothing behind for the next task of the same execution environment: no process waiting
 * to take the next invocation from the runtime API (127.0.0.1:9001) or to read the next task's files,
 * no file planted for it. Only for a process alone in its machine (a Lambda execution environment, a
 * pid namespace of its own): elsewhere it would kill the user's other processes (ENGINE_REAP).
 */
import { lstat, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';

export interface ReapOptions {
  /** The folder to empty (the folder itself stays). */
  tmpDir: string;
  /** Where the processes are listed (tests may not change it: it is /proc). */
  procDir?: string;
  /** Rounds of kill-and-look-again, against a process that starts others while it is being killed. */
  rounds?: number;
  /**
   * Files below `tmpDir` left where they are (the binaries unpacked from the zip, lib/engines/core/unpack.ts):
   * regular files only, every other entry of their folders removed. Whoever runs one checks its digest first.
   */
  keep?: readonly string[];
}

export interface Reaped {
  /** Processes sent SIGKILL. */
  killed: number;
  /** Processes that could not be signalled (another user's: the platform's own). */
  untouchable: number;
  /** Entries removed from `tmpDir`. */
  removed: number;
}

/** A process's parent and state, from /proc/<pid>/stat (the name in parentheses may hold anything, so read after its last `)`). */
async function statOf(procDir: string, pid: number): Promise<{ ppid: number; state: string } | undefined> {
  try {
    const stat = await readFile(path.join(procDir, String(pid), 'stat'), 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, ppid: Number(fields[1]) };
  } catch {
    return undefined;
  }
}

/** This process and its ancestors up to the root (never to be killed). */
async function lineage(procDir: string): Promise<Set<number>> {
  const kept = new Set<number>([process.pid]);
  for (let pid = process.pid; pid > 1; ) {
    const parent = (await statOf(procDir, pid))?.ppid;
    if (!parent || kept.has(parent)) break;
    kept.add(parent);
    pid = parent;
  }
  kept.add(1);
  return kept;
}

/** The processes other than `kept` that can still run (zombies and dead ones cannot). */
async function others(procDir: string, kept: Set<number>, skip: Set<number>): Promise<number[]> {
  const pids = (await readdir(procDir)).filter((name) => /^\d+$/.test(name)).map(Number);
  const out: number[] = [];
  for (const pid of pids) {
    if (kept.has(pid) || skip.has(pid)) continue;
    const state = (await statOf(procDir, pid))?.state;
    if (state && state !== 'Z' && state !== 'X') out.push(pid);
  }
  return out;
}

function signal(pid: number, sig: NodeJS.Signals): 'ok' | 'gone' | 'denied' {
  try {
    process.kill(pid, sig);
    return 'ok';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? 'denied' : 'gone';
  }
}

/** Kills every other process (stopped first, so none starts another meanwhile), then empties `tmpDir`. */
export async function reap(opts: ReapOptions): Promise<Reaped> {
  const procDir = opts.procDir ?? '/proc';
  const kept = await lineage(procDir);
  const denied = new Set<number>();
  let killed = 0;
  for (let round = 0; round < (opts.rounds ?? 20); round++) {
    const pids = await others(procDir, kept, denied);
    if (!pids.length) break;
    for (const pid of pids) if (signal(pid, 'SIGSTOP') === 'denied') denied.add(pid);
    for (const pid of pids) {
      if (denied.has(pid)) continue;
      if (signal(pid, 'SIGKILL') === 'ok') killed++;
    }
    // A killed process is gone (or a zombie) once the kernel has run its exit: give it that moment.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const removed = await empty(opts.tmpDir, (opts.keep ?? []).map((file) => path.resolve(file)));
  return { killed, untouchable: denied.size, removed };
}

/** Removes every entry of `dir` but the `keep` files (regular files, not links) and the folders that lead to them. Returns the entries removed. */
async function empty(dir: string, keep: readonly string[]): Promise<number> {
  let removed = 0;
  for (const entry of await readdir(dir).catch(() => [] as string[])) {
    const at = path.join(dir, entry);
    const stat = keep.some((file) => file === at || file.startsWith(`${at}/`)) ? await lstat(at).catch(() => undefined) : undefined;
    if (stat?.isFile() && keep.includes(at)) continue;
    if (stat?.isDirectory()) {
      removed += await empty(at, keep);
      continue;
    }
    await rm(at, { recursive: true, force: true, maxRetries: 3 });
    removed++;
  }
  return removed;
}
