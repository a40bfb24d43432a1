/**
 * Running native tools (ffmpeg, Ghostscript, qpdf, LibreOffice) for one engine call: each in its own
 * process group inside the call's temporary folder, killed with everything it started when the task
 * is cancelled or times out, with the end of its error output kept for the task's message.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export class ToolError extends Error {
  override readonly name = 'ToolError';
  constructor(
    readonly tool: string,
    readonly exitCode: number | null,
    /** The last lines the tool wrote to stderr. */
    readonly stderr: string,
  ) {
    super(`${tool} failed${exitCode === null ? '' : ` (exit code ${exitCode})`}${stderr ? `: ${stderr}` : ''}`);
  }
}

export interface ToolOptions {
  cwd: string;
  signal: AbortSignal;
  env?: Record<string, string>;
  /** Keep stdout (for tools that answer on it, e.g. ffprobe); otherwise it is discarded. */
  captureStdout?: boolean;
}

const TAIL_BYTES = 2000;

/** The last few hundred characters of a tool's error output, trimmed to whole lines. */
function tail(text: string): string {
  const cut = text.length > TAIL_BYTES ? text.slice(-TAIL_BYTES) : text;
  const lines = cut.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.slice(-4).join(' | ').slice(0, 600);
}

export function runTool(file: string, args: readonly string[], opts: ToolOptions): Promise<{ stdout: string }> {
  opts.signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: opts.cwd,
      // HOME inside the call's folder: tools that write profiles or caches (LibreOffice, fontconfig) stay in it.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: opts.cwd, LANG: 'C.UTF-8', ...opts.env },
      stdio: ['ignore', opts.captureStdout ? 'pipe' : 'ignore', 'pipe'],
      detached: true,
    });
    let stderr = '';
    let stdout = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-TAIL_BYTES * 2);
    });
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    const kill = () => {
      try {
        // The whole group: LibreOffice and others start helpers of their own.
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
      reject(new ToolError(path.basename(file), null, err.message));
    });
    child.once('close', (code) => {
      opts.signal.removeEventListener('abort', onAbort);
      if (opts.signal.aborted) return;
      if (code === 0) resolve({ stdout });
      else reject(new ToolError(path.basename(file), code, tail(stderr)));
    });
  });
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
