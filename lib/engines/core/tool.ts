/**
 * Running native tools (ffmpeg, Ghostscript, qpdf, LibreOffice, exiftool's perl, and the WebAssembly
 * engines' node, wasm.ts) for one engine call:
 * each confined to the task's work folder (confine.ts), in its own process group, killed with
 * everything it started when the task is cancelled or times out. A tool gets a minimal environment
 * (PATH, HOME inside the call's folder, LANG): no credential of this process reaches it. What it wrote
 * to stderr stays on the error for the logs; the error's message is safe to show clients.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Confinement } from './confine.js';
import { findExecutable } from './probe.js';
import { removeSpecialFiles } from './work-files.js';

export class ToolError extends Error {
  override readonly name = 'ToolError';
  constructor(
    readonly tool: string,
    readonly exitCode: number | null,
    /** The last lines the tool wrote to stderr (or why it could not start): for logs only, it names temporary paths. */
    readonly stderr: string,
    /** The signal that ended it, if one did. */
    readonly signal?: string,
  ) {
    super(`${tool} ${exitCode !== null ? `failed (exit code ${exitCode})` : signal ? `failed (ended by ${signal})` : 'could not be run'}`);
  }
}

/** Where and how a tool of an engine call runs. */
export interface ToolPlace {
  /** The folder it starts in (and its HOME). */
  cwd: string;
  /** The task's work folder, holding `cwd`: the only place a confined tool sees and writes. */
  workDir: string;
  confinement: Confinement;
  signal: AbortSignal;
  /** The largest file the tool may write (RLIMIT_FSIZE through prlimit, where installed): the task's output bound (output-bound.ts). */
  maxFileBytes?: number;
}

export interface ToolOptions extends ToolPlace {
  env?: Record<string, string>;
  /** Keep stdout (for tools that answer on it, e.g. ffprobe); otherwise it is discarded. */
  captureStdout?: boolean;
  /** Each line the tool writes to stdout, as it comes (its progress output); not kept unless `captureStdout`. */
  onStdoutLine?: (line: string) => void;
  /** Each line the tool writes to stderr, as it comes (its end is kept for errors all the same). */
  onStderrLine?: (line: string) => void;
  /**
   * Keep the first this many characters of stdout and of stderr (the `command` operation's captured
   * output) instead of all of stdout and the end of stderr; `truncated` then says whether more came.
   */
  keepOutput?: number;
  /** Folders outside the system ones the tool reads (its own program files). */
  readOnly?: readonly string[];
  /** Exit codes besides 0 that still give a result (exiftool answers 1 with the JSON of an unreadable file). */
  okExitCodes?: readonly number[];
  /** The tool's name in errors (default: the executable's file name; a WebAssembly engine runs as `node`). */
  name?: string;
  /** Given the started process, whose stdin is then a pipe: a tool that reads requests (the warm LibreOffice workers, lib/engines/office/worker.ts). */
  onSpawn?: (child: ChildProcess) => void;
}

export interface ToolResult {
  stdout: string;
  /** Its error output (the last few thousand characters). */
  stderr: string;
  exitCode: number;
  /** With `keepOutput`: whether the tool wrote more than was kept. */
  truncated?: boolean;
}

const TAIL_BYTES = 2000;

/** The last few hundred characters of a tool's error output, trimmed to whole lines. */
function tail(text: string): string {
  const cut = text.length > TAIL_BYTES ? text.slice(-TAIL_BYTES) : text;
  const lines = cut.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.slice(-4).join(' | ').slice(0, 600);
}

export function runTool(file: string, args: readonly string[], opts: ToolOptions): Promise<ToolResult> {
  opts.signal.throwIfAborted();
  const tool = opts.name ?? path.basename(file);
  if (opts.confinement.unavailable) return Promise.reject(new ToolError(tool, null, opts.confinement.unavailable));
  const command = withFileSizeLimit(opts.confinement.command(file, args, { workDir: opts.workDir, cwd: opts.cwd, readOnly: opts.readOnly }), opts.maxFileBytes);
  // HOME and TMPDIR inside the call's folder: the profiles, caches and temporary files of the tools
  // (LibreOffice, fontconfig, Ghostscript) stay in it, and go with it, whatever the confinement.
  const temporary = path.join(opts.cwd, '.tmp');
  mkdirSync(temporary, { recursive: true });
  return new Promise((resolve, reject) => {
    const child = spawn(command.file, command.args, {
      cwd: opts.cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: opts.cwd, TMPDIR: temporary, LANG: 'C.UTF-8', ...opts.env },
      stdio: [opts.onSpawn ? 'pipe' : 'ignore', opts.captureStdout || opts.onStdoutLine ? 'pipe' : 'ignore', 'pipe'],
      detached: true,
    });
    opts.onSpawn?.(child);
    let stderr = '';
    let stdout = '';
    let truncated = false;
    const keep = opts.keepOutput;
    /** `kept` and as much of `chunk` as `keepOutput` leaves room for. */
    const head = (kept: string, chunk: string) => {
      if (kept.length + chunk.length <= keep!) return kept + chunk;
      truncated = true;
      return kept + chunk.slice(0, Math.max(0, keep! - kept.length));
    };
    const stderrLines = opts.onStderrLine && lineSplitter(opts.onStderrLine);
    const stdoutLines = opts.onStdoutLine && lineSplitter(opts.onStdoutLine);
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderrLines?.(chunk);
      stderr = keep !== undefined ? head(stderr, chunk) : (stderr + chunk).slice(-TAIL_BYTES * 2);
    });
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdoutLines?.(chunk);
      if (!opts.captureStdout) return;
      stdout = keep !== undefined ? head(stdout, chunk) : stdout + chunk;
    });
    const kill = () => {
      try {
        // The whole group: LibreOffice and others start helpers of their own (and a confined tool
        // dies with its sandbox when bubblewrap or unshare does).
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const onAbort = () => {
      kill();
      reject(opts.signal.reason);
    };
    opts.signal.addEventListener('abort', onAbort, { once: true });
    child.once('error', (err) => {
      opts.signal.removeEventListener('abort', onAbort);
      reject(new ToolError(tool, null, err.message));
    });
    child.once('close', (code, signal) => {
      opts.signal.removeEventListener('abort', onAbort);
      if (opts.signal.aborted) return;
      // Nothing it left in its folder is a link (work-files.ts); under bubblewrap nothing of it outlives it.
      void removeSpecialFiles(opts.workDir).then(() => {
        if (code === 0 || (code !== null && opts.okExitCodes?.includes(code))) resolve({ stdout, stderr, exitCode: code, ...(keep !== undefined ? { truncated } : {}) });
        else reject(new ToolError(tool, code, tail(stderr), signal ?? undefined));
      }, reject);
    });
  });
}

/**
 * The command run under a file size limit: `prlimit --fsize` sets RLIMIT_FSIZE and executes the
 * confinement (same process, so its group is still the one killed), whose tool inherits it; the kernel
 * refuses a write past it. Without prlimit (util-linux), the output bound's watch alone applies.
 */
function withFileSizeLimit(command: { file: string; args: string[] }, maxFileBytes: number | undefined): { file: string; args: string[] } {
  const prlimit = maxFileBytes === undefined ? undefined : findExecutable('prlimit', process.env.PATH || '/usr/bin:/bin');
  return prlimit ? { file: prlimit, args: [`--fsize=${maxFileBytes}`, '--', command.file, ...command.args] } : command;
}

/** Feeds `onLine` the whole lines of a stream's chunks. */
function lineSplitter(onLine: (line: string) => void): (chunk: string) => void {
  let partial = '';
  return (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    // A line without end for this long is not what the caller reads: dropped rather than kept growing.
    if (partial.length > 4096) partial = '';
    for (const line of lines) onLine(line);
  };
}

/** A fresh temporary folder for one engine call, removed with everything in it afterwards. */
export async function withWorkDir<T>(base: string, work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(base || tmpdir(), 'engine-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}
