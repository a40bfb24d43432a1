/**
 * The service's functions under serverless-offline, in a child process of their own (a process group, so
 * that a stop ends every function it runs), with its output passed on, dropped or kept for the tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The last lines of a platform started with `output: 'capture'`. */
export class OutputTail {
  readonly #lines: string[] = [];
  #partial = '';
  constructor(readonly label: string, private readonly keep = 400) {}

  write(chunk: string): void {
    const parts = (this.#partial + chunk).split('\n');
    this.#partial = parts.pop() ?? '';
    // Not serverless-offline's table of routes (hundreds of lines, the same at every start).
    this.#lines.push(...parts.filter((line) => !/^[\u2500-\u257f]/.test(line)));
    if (this.#lines.length > this.keep) this.#lines.splice(0, this.#lines.length - this.keep);
  }

  text(): string {
    return [...this.#lines, this.#partial].filter(Boolean).join('\n');
  }
}

const tails = new Set<OutputTail>();

/** What every platform of this process started with `output: 'capture'` wrote last, each under its label. */
export function capturedOutput(): string {
  return [...tails].map((t) => `--- ${t.label} (last lines) ---\n${t.text()}`).join('\n');
}

async function waitForHttp(url: string, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`serverless-offline exited with code ${child.exitCode}`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(2000) });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`serverless-offline did not answer on ${url} within ${timeoutMs / 1000} s`);
}

export interface OfflineOptions {
  /** Project root holding serverless.yml. */
  root: string;
  stage: string;
  httpPort: number;
  lambdaPort: number;
  websocketPort: number;
  /** The functions' environment (on top of this process's). */
  env: Record<string, string>;
  buildDir?: string;
  bundle?: boolean;
  output?: 'inherit' | 'ignore' | 'capture';
  nodeArgs?: string[];
}

export interface Offline {
  child: ChildProcess;
  /** The kept output, with `output: 'capture'`. */
  tail?: OutputTail;
  baseUrl: string;
}

/**
 * Starts serverless-offline and waits until it answers. Each thing started pushes its stop onto
 * `stoppers` (run in reverse), so a failure half-way stops what was started.
 */
export async function startOffline(opts: OfflineOptions, stoppers: Array<() => Promise<unknown>>): Promise<Offline> {
  const { root, stage, httpPort, lambdaPort, websocketPort, env } = opts;
  const buildDir = opts.buildDir ?? path.join('.esbuild', `platform-${httpPort}`);
  if (!opts.buildDir) stoppers.push(() => rm(path.join(root, buildDir), { recursive: true, force: true }));
  env.ESBUILD_WORK_FOLDER = buildDir;
  if (!opts.bundle) env.SLS_BUNDLER_PLUGIN = './scripts/serverless-source-handlers.cjs';
  const require = createRequire(import.meta.url);
  const serverlessBin = require.resolve('serverless/bin/serverless.js', { paths: [root] });
  const tail = opts.output === 'capture' ? new OutputTail(`platform ${httpPort}`) : undefined;
  if (tail) {
    tails.add(tail);
    stoppers.push(async () => void tails.delete(tail));
  }
  const stdio = opts.output === 'capture' ? 'pipe' : (opts.output ?? 'inherit');
  const child = spawn(
    process.execPath,
    // serverless-offline-http.cjs: no response compression, as API Gateway HTTP APIs; handlers loaded
    // once, as Lambda loads them; failures and timeouts as in Lambda and API Gateway (see there).
    [
      '--require',
      path.join(root, 'scripts', 'serverless-offline-http.cjs'),
      ...(opts.nodeArgs ?? []),
      serverlessBin,
      'offline',
      'start',
      '--stage',
      stage,
      '--httpPort',
      String(httpPort),
      '--lambdaPort',
      String(lambdaPort),
      '--websocketPort',
      String(websocketPort),
      // The preload keeps each function's timeout, clearing its timer when the function returns
      // (serverless-offline's own kept every result for the function's whole timeout).
      '--noTimeout',
    ],
    {
      cwd: root,
      env: {
        ...process.env,
        ...env,
        SLS_TELEMETRY_DISABLED: '1',
        SLS_NOTIFICATIONS_MODE: 'off',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        // Output that goes nowhere is not written: serverless-offline logs four lines per request
        // (two blank, method and path, duration), about a twentieth of its time per cached GraphQL
        // answer. Warnings and errors still go out (to nowhere); `npm start` keeps every line.
        ...(opts.output !== undefined && opts.output !== 'inherit' && !process.env.SLS_LOG_LEVEL ? { SLS_LOG_LEVEL: 'warning' } : {}),
      },
      stdio: ['ignore', stdio, stdio],
      detached: true,
    },
  );
  if (tail) {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => tail.write(chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => tail.write(chunk));
  }
  stoppers.push(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null || !child.pid) return resolve();
        child.once('exit', () => resolve());
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          resolve();
        }
        setTimeout(() => {
          try {
            process.kill(-child.pid!, 'SIGKILL');
          } catch {
            // already gone
          }
        }, 5000).unref();
      }),
  );
  const baseUrl = `http://localhost:${httpPort}`;
  // Seconds on an idle machine; bundling every function under load can take minutes.
  await waitForHttp(`${baseUrl}/v2/users/me`, child, 300_000);
  return { child, tail, baseUrl };
}
