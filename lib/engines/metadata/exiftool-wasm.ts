/**
 * ExifTool compiled to WebAssembly, for machines without perl (a fresh machine after `npm ci`, the
 * Lambda Node.js runtime): ExifTool 13.42 of @uswriting/exiftool running on zeroperl (Perl 5 built for
 * WASI, @6over3/zeroperl-ts).
 *
 * Where it runs: one worker thread per process, started on the first call and kept, so the 25 MB
 * module is compiled and perl started once (about 1.5–4 s) and each later call costs what ExifTool does
 * (0.4–1.5 s, about 3× the system perl); the event loop of a process that also serves HTTP stays free.
 * Calls run one at a time, in order. A call that is cancelled or times out terminates the worker, as
 * does any failure of the worker itself; an interpreter that cannot be reset after a failed run is
 * replaced inside it. The next call after a terminated worker starts a fresh one.
 *
 * What it can reach: perl sees only an in-memory file system (zeroperl's WASI: no preopened host
 * folder, no socket, no process, no rename or link) holding the ExifTool script, the call's input (read
 * from the host file as ExifTool goes, through a file-backed Blob: memory stays flat for any size) and
 * its argument file. A write goes to `-o <output>`, a file of that in-memory file system given room for
 * the largest output allowed up front (zeroperl's files otherwise grow by a whole copy per write),
 * saved to the output path in the task's folder afterwards: memory grows by the output's size, hence
 * EXIFTOOL_WASM_MAX_WRITE_BYTES. Nothing else reaches the host. The worker gets no environment
 * variables; perl gets an empty environment.
 *
 * The same arguments and argument file as the perl path (exiftool.ts) give the same results (compared
 * tag for tag on JPEG, PNG, PDF and MP4 files); only the in-place rewrite (`-overwrite_original`,
 * which renames) becomes `-o`.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ExiftoolModule } from '../core/shipped.js';
import { ToolError } from '../core/tool.js';

/** The worker's program (CommonJS, as `eval` workers run; the packages are ES modules, imported by URL). */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const STOP = new Error('script found');
const MAX_TEXT = workerData.maxText;
let engine;
let script;
const MRO = [
  'package mro;',
  'sub get_linear_isa {',
  '  my ($class) = @_;',
  '  my (@order, %seen);',
  '  my @todo = ($class);',
  '  while (@todo) {',
  '    my $next = shift @todo;',
  '    next if $seen{$next}++;',
  '    push @order, $next;',
  '    no strict "refs";',
  '    unshift @todo, @{"\${next}::ISA"};',
  '  }',
  '  return \\\\@order;',
  '}',
  '1;',
].join('\\n');

/** An output file's bytes: room reserved up front, and how far they were written. */
class Output extends Uint8Array {
  end = 0;
  set(source, offset = 0) {
    super.set(source, offset);
    this.end = Math.max(this.end, offset + source.length);
  }
}

/**
 * The package hands its ExifTool script to zeroperl's file system and keeps no other copy: it is
 * taken there, before anything else runs.
 */
async function findScript(zeroperl, exiftool) {
  let found;
  const proto = zeroperl.MemoryFileSystem.prototype;
  const addFile = proto.addFile;
  proto.addFile = function (file, content) {
    if (file === '/exiftool') { found = content; throw STOP; }
    return addFile.call(this, file, content);
  };
  try {
    await exiftool.parseMetadata({ name: 'probe', data: new Uint8Array(0) });
  } catch (err) {
    if (err !== STOP) throw err;
  } finally {
    proto.addFile = addFile;
  }
  if (typeof found !== 'string') throw new Error('the ExifTool script of @uswriting/exiftool was not found');
  return found;
}

async function start() {
  const zeroperl = await import(workerData.zeroperl);
  script ??= await findScript(zeroperl, await import(workerData.exiftool));
  const files = new zeroperl.MemoryFileSystem({ '/': '' });
  files.addFile('/exiftool', script);
  // zeroperl has no mro module (it is XS, not linked in), which overload.pm loads for
  // mro::get_linear_isa (writing PDFs goes through it): a Perl one, in the folder the script puts
  // first on @INC (/lib, beside /exiftool). Depth-first, as Perl's default method order.
  files.addFile('/lib/mro.pm', MRO);
  const out = { stdout: [], stderr: [], sizes: { stdout: 0, stderr: 0 }, truncated: false };
  const decoder = new TextDecoder();
  const sink = (name) => (data) => {
    const text = typeof data === 'string' ? data : decoder.decode(data);
    if (out.sizes[name] + text.length > MAX_TEXT) { out.truncated = true; return; }
    out.sizes[name] += text.length;
    out[name].push(text);
  };
  const perl = await zeroperl.ZeroPerl.create({ fileSystem: files, env: {}, stdout: sink('stdout'), stderr: sink('stderr') });
  return { perl, files, out };
}

/** The interpreter, reset for a call; one that cannot be reset (after a failed run) is replaced. */
async function ready() {
  for (let attempt = 0; ; attempt++) {
    const current = await (engine ??= start());
    try {
      await current.perl.reset();
      return current;
    } catch (err) {
      engine = undefined;
      try { current.perl.dispose(); } catch {}
      if (attempt > 0) throw err;
    }
  }
}

async function run(job) {
  const { perl, files, out } = await ready();
  out.stdout = []; out.stderr = []; out.sizes = { stdout: 0, stderr: 0 }; out.truncated = false;
  const top = '/' + job.input.split('/').filter(Boolean)[0];
  let output;
  const createFileIn = files.createFileIn;
  try {
    files.addFile(job.input, await fs.openAsBlob(job.input));
    files.addFile(job.argFile, job.args.join('\\n') + '\\n');
    if (job.output) {
      files.ensureDir(job.output.slice(0, job.output.lastIndexOf('/')) || '/');
      // The file perl creates there starts with room for the largest output allowed (memory the
      // system gives only as it is written): zeroperl's own files grow by a copy per write, quadratic
      // for a large file. It counts how far it was written.
      files.createFileIn = function (dir, name) {
        const node = createFileIn.call(this, dir, name);
        if (this.lookup(job.output) === node) node.content = output = new Output(job.maxOutputBytes);
        return node;
      };
    }
    const result = await perl.runFile('/exiftool', ['-@', job.argFile]);
    perl.flush();
    let written = 0;
    let overflow = false;
    const node = job.output ? files.lookup(job.output) : undefined;
    if (node && node.type === 'file') {
      // Past the room it had, the file was copied into a plain array: larger than allowed.
      if (node.content !== output) overflow = true;
      else {
        written = output.end;
        fs.writeFileSync(job.output, output.subarray(0, written));
      }
    }
    return {
      stdout: out.stdout.join(''),
      stderr: out.stderr.join(''),
      exitCode: result.exitCode,
      error: result.success ? '' : String(result.error || ''),
      written,
      overflow,
      truncated: out.truncated,
      created: job.output ? node?.type === 'file' : undefined,
    };
  } finally {
    files.createFileIn = createFileIn;
    // The call's folders go with their files; next to the script's own (/exiftool, /lib, /dev), only the files.
    if (!['/exiftool', '/lib', '/dev'].includes(top)) files.removeFile(top);
    else for (const file of [job.input, job.argFile, job.output]) if (file) files.removeFile(file);
  }
}

parentPort.on('message', (job) => {
  run(job).then(
    (result) => parentPort.postMessage({ id: job.id, result }),
    (err) => parentPort.postMessage({ id: job.id, failure: String((err && err.stack) || err) }),
  );
});
`;

/** One ExifTool call: its arguments (written to an argument file, one per line, as the perl path does). */
export interface ExiftoolWasmJob {
  args: string[];
  /** The host file ExifTool reads, at the same path in its file system. */
  input: string;
  /** Where the argument file is, in ExifTool's file system (a path in the call's folder). */
  argFile: string;
  /** A write: the host file that receives what ExifTool writes to this path (`-o <output>` in `args`). */
  output?: string;
}

export interface ExiftoolWasmResult {
  stdout: string;
  stderr: string;
  /** ExifTool's exit code (1: some file had an error). */
  exitCode: number;
  /** Bytes ExifTool wrote to the output. */
  written: number;
  /** The output passed `maxOutputBytes` (what was past it was dropped). */
  overflow: boolean;
  /** Whether ExifTool created the output at all. */
  created?: boolean;
}

export interface ExiftoolWasmOptions {
  signal: AbortSignal;
  /** The call's folder: input, output and argument file must lie in it. */
  workDir: string;
  maxOutputBytes: number;
}

interface WorkerResult extends ExiftoolWasmResult {
  error: string;
  truncated: boolean;
}

/** stdout and stderr kept per call (JSON of a file's tags is far smaller). */
const MAX_TEXT = 32 * 1024 * 1024;

const inside = (file: string, folder: string) => {
  const relative = path.relative(folder, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
};

/** The worker, started on first use; `undefined` after it ended. */
let current: { worker: Worker; pending: Map<number, { resolve: (r: WorkerResult) => void; reject: (e: unknown) => void }> } | undefined;
let nextId = 1;
/** Calls run one at a time: each waits for the one before. */
let queue: Promise<unknown> = Promise.resolve();

function startWorker(module: ExiftoolModule): NonNullable<typeof current> {
  const worker = new Worker(WORKER, {
    eval: true,
    env: {},
    workerData: { zeroperl: pathToFileURL(module.runtime).href, exiftool: pathToFileURL(module.file).href, maxText: MAX_TEXT },
    // The JavaScript side holds only texts; perl's memory is the module's own (WebAssembly memory).
    resourceLimits: { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 64 },
  });
  const state = { worker, pending: new Map<number, { resolve: (r: WorkerResult) => void; reject: (e: unknown) => void }>() };
  const fail = (reason: string) => {
    if (current === state) current = undefined;
    for (const { reject } of state.pending.values()) reject(new ToolError('exiftool', null, reason));
    state.pending.clear();
  };
  worker.on('message', (message: { id: number; result?: WorkerResult; failure?: string }) => {
    const call = state.pending.get(message.id);
    state.pending.delete(message.id);
    if (!call) return;
    if (message.result) call.resolve(message.result);
    else call.reject(new ToolError('exiftool', null, message.failure ?? 'the ExifTool worker failed'));
  });
  worker.on('error', (err) => fail(`the ExifTool worker failed: ${err.message}`));
  worker.on('exit', (code) => fail(`the ExifTool worker ended (exit code ${code})`));
  worker.unref();
  return state;
}

async function call(module: ExiftoolModule, job: ExiftoolWasmJob, opts: ExiftoolWasmOptions): Promise<WorkerResult> {
  opts.signal.throwIfAborted();
  current ??= startWorker(module);
  const state = current;
  const id = nextId++;
  state.worker.ref();
  try {
    return await new Promise<WorkerResult>((resolve, reject) => {
      const onAbort = () => {
        // ExifTool cannot be interrupted inside the worker: the worker goes, the next call starts another.
        if (current === state) current = undefined;
        state.pending.delete(id);
        void state.worker.terminate();
        reject(opts.signal.reason);
      };
      opts.signal.addEventListener('abort', onAbort, { once: true });
      state.pending.set(id, {
        resolve: (r) => {
          opts.signal.removeEventListener('abort', onAbort);
          resolve(r);
        },
        reject: (e) => {
          opts.signal.removeEventListener('abort', onAbort);
          reject(e);
        },
      });
      state.worker.postMessage({ id, ...job, maxOutputBytes: opts.maxOutputBytes });
    });
  } finally {
    if (current === state && state.pending.size === 0) state.worker.unref();
  }
}

/**
 * Runs ExifTool (`module`: @uswriting/exiftool's loader) with `job`, after the calls before it. Exit
 * codes 0 and 1 give a result (1: ExifTool could not process the file, the reason in its output);
 * anything else, a worker failure or an output past `maxOutputBytes` is a `ToolError`.
 */
export function runExiftoolWasm(module: ExiftoolModule, job: ExiftoolWasmJob, opts: ExiftoolWasmOptions): Promise<ExiftoolWasmResult> {
  for (const file of [job.input, job.argFile, ...(job.output ? [job.output] : [])]) {
    if (!path.isAbsolute(file) || !inside(file, opts.workDir)) throw new Error(`exiftool: ${file} is outside the call's folder`);
  }
  const run = queue.then(async () => {
    const result = await call(module, job, opts);
    if (result.truncated) throw new ToolError('exiftool', result.exitCode, `ExifTool wrote more than ${MAX_TEXT} characters of text`);
    if (result.exitCode !== 0 && result.exitCode !== 1) throw new ToolError('exiftool', result.exitCode, (result.error || result.stderr).slice(-2000));
    return result;
  });
  queue = run.catch(() => undefined);
  return run;
}

/** Ends the worker (tests, benchmarks); the next call starts a new one. */
export async function stopExiftoolWasm(): Promise<void> {
  const state = current;
  current = undefined;
  if (state) await state.worker.terminate();
}
