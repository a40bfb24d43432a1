/**
 * Engines compiled to WebAssembly (Ghostscript, qpdf), run like the native tools: each call in a child
 * `node` process started by `runTool`, so the timeout, the kill on cancel, the confinement to the
 * task's work folder and the lack of network are the same as for `gs` or `qpdf`. The child reads only
 * the files it is given from the work folder into the engine's in-memory file system (at the same
 * paths), runs the engine's `main` with the arguments, and writes back the new files of the output
 * folders it is given. The node binary and the engine's package folder are the only extra things it
 * reads. The child's script is passed on its command line, so nothing beyond the npm package has to be
 * packaged with a function.
 */
import path from 'node:path';
import type { ShippedFile } from './shipped.js';
import { runTool, type ToolOptions, type ToolResult } from './tool.js';

/** The child's program (an ES module; its one argument is the JSON of a `WasmRun`). */
const CHILD = `
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
const spec = JSON.parse(process.argv[process.argv.length - 1]);
const factory = (await import(pathToFileURL(spec.module).href)).default;
const engine = await factory({
  noInitialRun: true,
  print: (line) => process.stdout.write(line + '\\n'),
  printErr: (line) => process.stderr.write(line + '\\n'),
  locateFile: (name) => path.join(path.dirname(spec.module), name),
});
const FS = engine.FS;
const folders = (dir) => {
  let at = '';
  for (const part of dir.split('/').filter(Boolean)) {
    at += '/' + part;
    try { FS.mkdir(at); } catch {}
  }
};
for (const file of spec.inputs) {
  folders(path.dirname(file));
  FS.writeFile(file, readFileSync(file));
}
for (const dir of spec.outputs) folders(dir);
folders(spec.cwd);
FS.chdir(spec.cwd);
// A bound on what the engine writes into its in-memory file system (an archive's entries; its inputs
// are in already): past it, a write fails as on a full disk, before the memory is used.
if (spec.maxWriteBytes) {
  const write = FS.write;
  let written = 0;
  FS.write = (stream, buffer, offset, length, position, canOwn) => {
    written += length;
    if (written > spec.maxWriteBytes) {
      process.stderr.write('WASM_WRITE_LIMIT\\n');
      throw new FS.ErrnoError(28);
    }
    return write(stream, buffer, offset, length, position, canOwn);
  };
}
let code;
// A secret argument (a password) comes in the environment, never on the child's command line.
const args = spec.secretArg ? [...spec.secretArg.before, spec.secretArg.prefix + (process.env.WASM_SECRET ?? ''), ...spec.args] : spec.args;
try {
  code = engine.callMain(args);
} catch (err) {
  if (err && typeof err.status === 'number') code = err.status;
  else {
    process.stderr.write(String((err && err.message) || err) + '\\n');
    code = 70;
  }
}
const given = new Set(spec.inputs);
// With \`tree\`, sub-folders too; only regular files ever leave (a link is never followed or written).
const save = (dir) => {
  for (const name of FS.readdir(dir)) {
    const file = path.join(dir, name);
    if (name === '.' || name === '..' || given.has(file)) continue;
    const mode = FS.lstat(file).mode;
    if (FS.isFile(mode)) writeFileSync(file, FS.readFile(file));
    else if (spec.tree && FS.isDir(mode)) {
      mkdirSync(file, { recursive: true });
      save(file);
    }
  }
};
for (const dir of spec.outputs) save(dir);
process.exitCode = code;
`;

export interface WasmRun {
  /** The engine's arguments, naming files by their paths in the work folder. */
  args: string[];
  /** Files of the work folder the engine reads. */
  inputs: string[];
  /** Folders of the work folder whose new files are the engine's outputs. */
  outputs: string[];
  /** Also the files of the output folders' sub-folders (kept as folders; links are never written). */
  tree?: boolean;
  /** Bytes the engine may write into its file system in all; past them its writes fail (no space). */
  maxWriteBytes?: number;
  /**
   * A secret argument: `prefix` followed by `secret`, put before `args` after `before`. It reaches
   * the child in its environment, never on a command line other processes can read.
   */
  secretArg?: { before: string[]; prefix: string; secret: string };
}

const inside = (file: string, folder: string) => {
  const relative = path.relative(folder, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
};

/**
 * Runs a WebAssembly engine (`engine`: its loader module) with `run`, as `runTool` runs a native tool;
 * `name` is the tool's name in errors. Files outside the task's work folder are refused.
 */
export function runWasm(name: string, engine: ShippedFile, run: WasmRun, opts: ToolOptions): Promise<ToolResult> {
  for (const file of [...run.inputs, ...run.outputs]) {
    if (!inside(path.resolve(file), opts.workDir)) throw new Error(`${name}: ${file} is outside the task's work folder`);
  }
  const { secretArg, ...rest } = run;
  const spec = JSON.stringify({
    module: engine.file,
    cwd: opts.cwd,
    ...rest,
    ...(secretArg ? { secretArg: { before: secretArg.before, prefix: secretArg.prefix } } : {}),
    inputs: run.inputs.map((f) => path.resolve(f)),
    outputs: run.outputs.map((f) => path.resolve(f)),
  });
  return runTool(process.execPath, ['--input-type=module', '--no-warnings', '-e', CHILD, spec], {
    ...opts,
    ...(secretArg ? { env: { ...opts.env, WASM_SECRET: secretArg.secret } } : {}),
    name,
    readOnly: [...(opts.readOnly ?? []), engine.folder, path.dirname(process.execPath)],
  });
}
