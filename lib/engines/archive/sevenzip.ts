/**
 * 7-Zip in WebAssembly (7z-wasm), run like a native tool (core/wasm.ts): one child `node` per run,
 * confined to the task's work folder, the engine working in its own in-memory file system. Every run
 * gets a password (`-p`, through the child's environment): the caller's, else a random one, so that
 * 7-Zip never waits for one on its input, and an encrypted archive opened without one fails as with
 * a wrong one.
 */
import { randomBytes } from 'node:crypto';
import { open } from 'node:fs/promises';
import { EngineFailure } from '../core/errors.js';
import { sevenZipWasm } from '../core/shipped.js';
import { ToolError, type ToolPlace, type ToolResult } from '../core/tool.js';
import { runWasm, type WasmRun } from '../core/wasm.js';

export interface SevenZipRun {
  /** The command (`l`, `x`, `a`) and its switches, then the files. */
  command: string;
  args: string[];
  inputs: string[];
  outputs?: string[];
  tree?: boolean;
  maxWriteBytes?: number;
  password?: string;
  /** Each line of 7-Zip's output, as it comes (nothing of it is kept). */
  onStdoutLine?: (line: string) => void;
}

/** How a failed run reads: what the caller turns into a task failure. */
export type SevenZipProblem = 'password' | 'write-limit' | 'unreadable';

export class SevenZipError extends Error {
  override readonly name = 'SevenZipError';
  constructor(
    readonly problem: SevenZipProblem,
    readonly tool: ToolError,
  ) {
    super(`7-Zip failed (${problem})`, { cause: tool });
  }
}

function engineModule() {
  const wasm = sevenZipWasm();
  if (!wasm) throw new EngineFailure('ENGINE_UNAVAILABLE', '7-Zip (7z-wasm) is not installed here.');
  return wasm;
}

/** Runs 7-Zip once; a failure is a `SevenZipError` saying what it was. */
export async function runSevenZip(place: ToolPlace, run: SevenZipRun): Promise<ToolResult> {
  const writes = run.command === 'a';
  const spec: WasmRun = {
    args: writes ? [run.command, '-y', '-bd', ...run.args] : ['-y', '-bd', ...run.args],
    inputs: run.inputs,
    outputs: run.outputs ?? [],
    tree: run.tree,
    maxWriteBytes: run.maxWriteBytes,
    // Reading only: a password given to `a` would encrypt what it writes.
    ...(writes ? {} : { secretArg: { before: [run.command], prefix: '-p', secret: run.password ?? randomBytes(18).toString('base64url') } }),
  };
  try {
    return await runWasm('7-Zip', engineModule(), spec, { ...place, onStdoutLine: run.onStdoutLine });
  } catch (err) {
    if (!(err instanceof ToolError) || err.exitCode === null) throw err;
    const said = err.stderr;
    const problem: SevenZipProblem = said.includes('WASM_WRITE_LIMIT') ? 'write-limit' : /Wrong password/i.test(said) ? 'password' : 'unreadable';
    throw new SevenZipError(problem, err);
  }
}

/**
 * Whether a file is a 7z archive whose headers are encrypted (`-mhe`): its listing then needs the
 * password, and 7-Zip's WebAssembly build fails without saying why. The start header points at the
 * end header; an encoded one (0x17) naming the AES coder (06 F1 07 01) is encrypted.
 */
export async function hasEncryptedHeaders(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const start = Buffer.alloc(32);
    await handle.read(start, 0, 32, 0);
    if (!start.subarray(0, 6).equals(Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]))) return false;
    const offset = Number(start.readBigUInt64LE(12));
    const size = Math.min(Number(start.readBigUInt64LE(20)), 4096);
    const header = Buffer.alloc(size);
    await handle.read(header, 0, size, 32 + offset);
    return header[0] === 0x17 && header.includes(Buffer.from([0x06, 0xf1, 0x07, 0x01]));
  } finally {
    await handle.close();
  }
}
