/**
 * An engine call built by hand, laid out as the task runner lays it out (lib/file-api/operations/engine-task.ts):
 * a work folder per task holding the inputs (`in/`) and one folder per call (`call-1/`, its outputs in
 * `out/`), tools confined to the work folder. For tests that call an engine handler directly.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseConfig, parseEngineConfig } from '#lib/kernel/config.js';
import type { EngineCall, LocalFile } from '#lib/engines/core/call.js';
import { confinement } from '#lib/engines/core/confine.js';
import type { EngineRegistry } from '#lib/engines/core/registry.js';
import { newEngineRegistry } from '#lib/file-api/operations/engines.js';
import { createLogger } from '#lib/kernel/log.js';
import { TEST_CONFIG_ENV } from './recording-queue.js';

export interface TestInput {
  filename: string;
  data: Buffer;
  format: string | null;
  /** The input task's id (default `task-<n>`). */
  taskId?: string;
  /** The input task's name in its job. */
  taskName?: string;
}

export interface HandCall<P> {
  call: EngineCall<P>;
  /** The task's work folder. */
  workDir: string;
  /** Removes the work folder. */
  remove(): void;
}

let registry: EngineRegistry | undefined;

/** A call of `engine` (its default installed version) on `inputs` with `payload`. */
export function engineCall<P>(engine: string, operation: string, payload: P, inputs: TestInput[], env: Record<string, string> = {}): HandCall<P> {
  registry ??= newEngineRegistry(parseEngineConfig(process.env));
  const installed = registry.installation(engine).versions[0];
  if (!installed) throw new Error(`engine ${engine} is not installed: guard the test with requires(engine('${engine}'))`);
  const workDir = mkdtempSync(path.join(tmpdir(), 'engine-call-'));
  const callDir = path.join(workDir, 'call-1');
  mkdirSync(path.join(callDir, 'out'), { recursive: true });
  mkdirSync(path.join(workDir, 'in'));
  const local: LocalFile[] = inputs.map((input, i) => {
    const file = path.join(workDir, 'in', `${i}-${input.filename}`);
    writeFileSync(file, input.data);
    return { path: file, filename: input.filename, format: input.format, size: input.data.length, taskId: input.taskId ?? `task-${i + 1}`, taskName: input.taskName };
  });
  const config = parseConfig({ ...process.env, ...TEST_CONFIG_ENV, ...env });
  const ac = new AbortController();
  const call: EngineCall<P> = {
    operation,
    payload,
    choice: { engine, version: installed.version, installed, capability: { operation, inputs: 'any', outputs: null, options: [] } },
    inputs: local,
    extras: [],
    dir: callDir,
    tool: { cwd: callDir, workDir, confinement: confinement(config), signal: ac.signal },
    signal: ac.signal,
    config,
    log: createLogger({}, { level: 'silent' }),
    output: (filename) => path.join(callDir, 'out', filename),
    names: (ext, count) => {
      const base = (inputs[0]?.filename ?? operation).replace(/\.[^.]*$/, '');
      return count === 1 ? [`${base}.${ext}`] : Array.from({ length: count }, (_, i) => `${base}-${i + 1}.${ext}`);
    },
  };
  return { call, workDir, remove: () => rmSync(workDir, { recursive: true, force: true }) };
}
