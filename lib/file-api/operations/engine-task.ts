/**
 * How a processing operation runs on an engine, the same way for every operation: pick the engine
 * (and version) for the input's format, refuse inputs past the limits before anything decodes them,
 * stream the inputs from object storage into a temporary folder of the call's own, run the engine
 * there, stream its outputs back to storage, remove the folder. An operation module only supplies its
 * engine handlers, one per engine.
 */
import { open, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { basename, formatOfFilename, mimeType, SNIFF_BYTES, sniffFormat } from '../../engines/core/formats.js';
import { checkImagePixels, checkPdfBytes, checkPdfPages, isImageFormat } from '../../engines/core/limits.js';
import { FAMILY_QUEUES, familyOf } from '../../engines/core/families.js';
import { EngineChoiceError, type EngineChoice, type EngineRegistry } from '../../engines/core/registry.js';
import { engineRegistry } from './engines.js';
import { confinement } from '../../engines/core/confine.js';
import { OutputBound } from '../../engines/core/output-bound.js';
import { ToolError, withWorkDir, type ToolPlace } from '../../engines/core/tool.js';
import { createExclusive, openOutput, ownFolder } from '../../engines/core/work-files.js';
import type { Logger } from '../../kernel/log.js';
import { isSandbox, type FileEntry } from '../records/model.js';
import { safeFilename } from '../../adapters/file-store/names.js';
import type { EngineCall, EngineHandler, EngineResult, LocalFile } from '../../engines/core/call.js';
import type { EngineUse, OperationDefinition } from './framework/define.js';
import { EngineFailure } from '../../engines/core/errors.js';
import { countBytes, within, type Progress } from '../records/progress.js';
import { RunElsewhere, TaskFailure, taskPrefix, type Implementation, type InputFile, type OperationContext } from './framework/types.js';
import { runInEngineFunction } from './engine-function.js';
import { declaredInputFormat, formatByName, runRequest } from './framework/engine-request.js';

export type { EngineCall, EngineHandler, EngineResult, LocalFile, Produced } from '../../engines/core/call.js';

/** An operation on engines, as the run needs it: its definition's engine use with this function's handlers. */
interface EngineOperation {
  operation: string;
  use: EngineUse<Args>;
  handlers: Readonly<Record<string, EngineHandler<Args>>>;
}

/** The arguments every engine operation may have (each definition's schema refines them). */
type Args = { input_format?: string; engine?: string; engine_version?: string; filename?: string };

/** Output names for `count` files made from `source` (an input file name, or a default). */
export function outputNames(requested: string | undefined, source: string, ext: string, count: number): string[] {
  const base = basename(source);
  if (requested) {
    if (count === 1) return [requested.replace(/%d/g, '1')];
    if (requested.includes('%d')) return Array.from({ length: count }, (_, i) => requested.replace(/%d/g, String(i + 1)));
    const dot = requested.lastIndexOf('.');
    const [stem, suffix] = dot > 0 ? [requested.slice(0, dot), requested.slice(dot)] : [requested, `.${ext}`];
    return Array.from({ length: count }, (_, i) => `${stem}-${i + 1}${suffix}`);
  }
  if (count === 1) return [`${base}.${ext}`];
  return Array.from({ length: count }, (_, i) => `${base}-${i + 1}.${ext}`);
}

async function readHead(file: string): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * The name the task's `input` gives the input task `taskId` (what `command` arguments call
 * `/input/<name>/…`): `input` lists names (or ids) in the order of the resolved `dependsOn`.
 */
function inputTaskName(ctx: OperationContext, taskId: string): string | undefined {
  const given = ctx.task.payload.input;
  const names = Array.isArray(given) ? given : [given];
  const name: unknown = names[ctx.task.dependsOn.indexOf(taskId)];
  return typeof name === 'string' ? name : undefined;
}

/** Streams an input file from storage into `dir`, refusing a PDF past its size limit first; `progress` by its bytes. */
async function download(ctx: OperationContext, file: InputFile, dir: string, index: number, formatOverride?: string, progress?: Progress): Promise<LocalFile> {
  const declared = formatOverride ?? formatOfFilename(file.filename);
  if (declared === 'pdf') checkPdfBytes(file.filename, file.size, ctx.config);
  const target = path.join(dir, 'in', `${index}-${safeFilename(file.filename)}`);
  // An engine of an earlier group had this folder: nothing it left is followed or written over.
  await ownFolder(path.dirname(target));
  const body = await ctx.open(file);
  await pipeline(progress ? countBytes(body, file.size, progress) : body, await createExclusive(target, dir), { signal: ctx.signal });
  const size = (await stat(target)).size;
  const format = declared ?? sniffFormat(await readHead(target)) ?? null;
  if (!declared && format === 'pdf') checkPdfBytes(file.filename, size, ctx.config);
  const taskName = inputTaskName(ctx, file.taskId);
  return { path: target, filename: file.filename, format, size, taskId: file.taskId, ...(taskName ? { taskName } : {}) };
}

/** Refuses inputs that together would not leave room in the work folder for the outputs, before any download. */
function checkInputBytes(inputs: readonly InputFile[], limit: number): void {
  const total = inputs.reduce((sum, f) => sum + (f.size ?? 0), 0);
  if (total > limit) {
    const what = inputs.length === 1 ? `${inputs[0]!.filename} is` : `The ${inputs.length} input files are`;
    throw new TaskFailure('FILE_TOO_LARGE', `${what} ${total} bytes; processing takes up to ${limit} bytes of input (ENGINE_MAX_INPUT_BYTES).`);
  }
}

/** The limits that apply before decoding: image pixels from the header, PDF pages. */
async function checkLimits(file: LocalFile, ctx: OperationContext, place: ToolPlace): Promise<void> {
  if (isImageFormat(file.format)) await checkImagePixels(file.filename, file.path, ctx.config);
  else if (file.format === 'pdf') await checkPdfPages(file.filename, file.path, ctx.config, place, typeof ctx.payload.password === 'string' ? ctx.payload.password : undefined);
}

function choose(registry: EngineRegistry, op: EngineOperation, payload: Args, inputFormat: string | null): EngineChoice {
  try {
    return registry.select(op.operation, runRequest(op.use, payload, inputFormat));
  } catch (err) {
    if (err instanceof EngineChoiceError) throw new TaskFailure(err.code, err.message);
    throw err;
  }
}

/** The engine has no handler in this function: the queue of the family that runs it, if some family does. */
function runsElsewhere(op: EngineOperation, choice: Pick<EngineChoice, 'engine'>, format: string | null): RunElsewhere | undefined {
  if (op.handlers[choice.engine]) return undefined;
  const family = familyOf(choice.engine);
  return family ? new RunElsewhere(FAMILY_QUEUES[family], `${op.operation} of ${format ?? 'its input'} runs on ${choice.engine}, in the ${family} function`) : undefined;
}

/**
 * Before any download: a task whose engine (as chosen from its files' names) runs in another family's
 * function goes there (a message queued before the capability list changed). The choice is made again
 * once the bytes are here; an input that cannot be chosen for is left to that choice, which says why.
 */
function checkFamily(registry: EngineRegistry, op: EngineOperation, payload: Args, formats: Array<string | null>): void {
  for (const format of formats.length ? formats : [null]) {
    let choice: EngineChoice;
    try {
      choice = choose(registry, op, payload, format);
    } catch {
      continue;
    }
    const elsewhere = runsElsewhere(op, choice, format);
    if (elsewhere) throw elsewhere;
  }
}

/**
 * An engine's own failure, as the task reports it. Clients get a message without this machine's
 * paths (a tool's error output names its temporary files); the details go to the log.
 */
function asTaskFailure(err: unknown, engine: string, workDir: string, log: Logger): unknown {
  const tool = err instanceof ToolError ? err : err instanceof Error && err.cause instanceof ToolError ? err.cause : undefined;
  if (tool) log.warn('engine tool failed', { engine, tool: tool.tool, exitCode: tool.exitCode, signal: tool.signal, stderr: tool.stderr });
  if (err instanceof TaskFailure) return err;
  if (err instanceof EngineFailure) return engineFailure(err, path.dirname(workDir));
  if (err instanceof ToolError) {
    return new TaskFailure('CONVERSION_FAILED', err.tool === engine ? `${err.message}.` : `${engine}: ${err.message}.`, false, { cause: err });
  }
  if (err instanceof Error && err.name !== 'AbortError') {
    const revealing = err.message.includes(workDir) || err.message.includes(path.dirname(workDir));
    if (revealing) log.warn('engine failed', { engine, error: err });
    return new TaskFailure('CONVERSION_FAILED', revealing ? `${engine} failed.` : `${engine}: ${err.message}`, false, { cause: err });
  }
  return err;
}

/**
 * The one mapping of an engine's own failure to the task's: its code and message, retried when passing.
 * A message that quotes a library's or a tool's words may name a file under the engines' temporary
 * folder (`tmpRoot`): each such path is shown as its last segment, a file name the client knows.
 */
const engineFailure = (err: EngineFailure, tmpRoot: string) => {
  const message = withoutLocalPaths(err.message, tmpRoot);
  return new TaskFailure(err.code, message, err.retryable, { cause: err });
};

/** Characters that end a path quoted in a message. */
const ENDS_PATH = new Set([' ', '\t', '\n', '\r', '"', "'", '`', ',', ';', ')', ']', '>']);

/** `message` with every path under `root` replaced by its last segment. */
export function withoutLocalPaths(message: string, root: string): string {
  if (root.length < 2) return message;
  let out = '';
  let from = 0;
  for (let at = message.indexOf(root); at >= 0; at = message.indexOf(root, from)) {
    let end = at + root.length;
    while (end < message.length && !ENDS_PATH.has(message[end]!)) end++;
    // A sentence's full stop or colon after the path is not part of it.
    while (end > at + root.length && (message[end - 1] === '.' || message[end - 1] === ':')) end--;
    const local = message.slice(at, end);
    out += message.slice(from, at) + (path.basename(local) || 'file');
    from = at + local.length;
  }
  return out + message.slice(from);
}

/** The implementation of an operation on engines, with the handlers this function has for it. */
export function engineOperation<P>(definition: OperationDefinition, handlers: Readonly<Record<string, EngineHandler<P>>>): Implementation<P> {
  if (!definition.engines) throw new Error(`${definition.name} does not run on engines`);
  const run = runEngineOperation({
    operation: definition.name,
    use: definition.engines as unknown as EngineUse<Args>,
    handlers: handlers as unknown as Readonly<Record<string, EngineHandler<Args>>>,
  });
  return async (ctx) => {
    try {
      return await run(ctx as unknown as OperationContext<Args>);
    } catch (err) {
      // Limits checked before an engine runs (limits.ts) fail the same way as the engine itself.
      throw err instanceof EngineFailure ? engineFailure(err, ctx.config.ENGINE_TMP_DIR || tmpdir()) : err;
    }
  };
}

function runEngineOperation(op: EngineOperation): Implementation<Args> {
  return async (ctx) => {
    const registry = engineRegistry();
    const payload = ctx.payload;
    const override = declaredInputFormat(payload);
    const { files, extras } = op.use.partition?.(ctx) ?? { files: ctx.inputs, extras: [] };

    const produced: FileEntry[] = [];
    let metadata: Record<string, unknown> | undefined;
    const byFile: Record<string, unknown> = {};
    let reported: EngineChoice | undefined;
    let credits = 0;

    checkFamily(registry, op, payload, files.map((f) => formatByName(payload, f.filename) ?? null));
    checkInputBytes([...files, ...extras], ctx.config.ENGINE_MAX_INPUT_BYTES);
    // Where the rest runs (ENGINE_ISOLATION): `inline` below, in this process (locally, its tools under
    // bubblewrap); `function` in the family's engine function, which holds no credential and runs this
    // same code there inline, on presigned URLs of this task's files (engine-function.ts).
    if (ctx.config.ENGINE_ISOLATION === 'function') return runInEngineFunction(op.operation, ctx as unknown as OperationContext);
    await withWorkDir(ctx.config.ENGINE_TMP_DIR, async (dir) => {
      // What the engine writes is bounded while it runs; past it, what the task stored already goes too.
      const bound = new OutputBound(dir, ctx.config, ctx.signal, () => ctx.files.deletePrefix(taskPrefix(ctx.task.id)));
      const place: ToolPlace = { cwd: dir, workDir: dir, confinement: confinement(ctx.config), signal: bound.signal, maxFileBytes: bound.maxFileBytes };
      const localExtras: LocalFile[] = [];
      for (const [i, extra] of extras.entries()) localExtras.push(await download(ctx, extra, dir, 1000 + i));
      for (const extra of localExtras) await checkLimits(extra, ctx, place);

      const groups: InputFile[][] = op.use.mode === 'all' ? [files] : files.length ? files.map((f) => [f]) : [[]];
      let index = 0;
      for (const [g, group] of groups.entries()) {
        // Each group its share of the task; in it, the downloads the first tenth (by bytes), the
        // engine (where it reports progress) up to nine tenths, storing the outputs the rest.
        const share = within(ctx.progress, g / groups.length, (g + 1) / groups.length);
        const groupBytes = group.reduce((sum, f) => sum + (f.size ?? 0), 0);
        let downloaded = 0;
        const inputs: LocalFile[] = [];
        for (const file of group) {
          const from = groupBytes ? downloaded / groupBytes : 0;
          downloaded += file.size ?? 0;
          const to = groupBytes ? downloaded / groupBytes : 1;
          inputs.push(await download(ctx, file, dir, index++, override, within(share, 0.1 * from, 0.1 * to)));
        }
        share(0.1);
        // Every input's format must be one the engine takes; the first decides the engine.
        const choices = inputs.length ? inputs.map((f) => choose(registry, op, payload, f.format)) : [choose(registry, op, payload, null)];
        const choice = choices[0]!;
        const other = choices.find((c) => c.engine !== choice.engine);
        if (other) {
          throw new TaskFailure('UNSUPPORTED_FORMAT', `${op.operation} cannot combine these inputs in one engine (${choice.engine} and ${other.engine}).`);
        }
        const elsewhere = runsElsewhere(op, choice, inputs[0]?.format ?? null);
        if (elsewhere) throw elsewhere;
        for (const input of inputs) await checkLimits(input, ctx, place);
        const handler = op.handlers[choice.engine];
        if (!handler) throw new TaskFailure('ENGINE_UNAVAILABLE', `${op.operation} has no implementation for the engine ${choice.engine}.`);

        const callDir = path.join(dir, `call-${index}`);
        await ownFolder(callDir);
        const source = inputs[0]?.filename ?? '';
        const call: EngineCall<Args> = {
          operation: op.operation,
          payload,
          choice,
          inputs,
          extras: localExtras,
          dir: callDir,
          ...(isSandbox(ctx.task) ? { offline: true as const } : {}),
          tool: { ...place, cwd: callDir },
          signal: bound.signal,
          config: ctx.config,
          log: ctx.log,
          progress: within(share, 0.1, 0.9),
          output: (filename) => path.join(callDir, 'out', safeFilename(filename)),
          names: (ext, count) => outputNames(payload.filename, source || `${op.operation.replace(/\W+/g, '-')}`, ext, count),
        };
        await ownFolder(path.join(callDir, 'out'));
        let result: EngineResult;
        try {
          result = await ctx.log.time('engine call', () => bound.during(() => handler(call)), { engine: choice.engine, engineVersion: choice.version, inputFormat: inputs[0]?.format ?? null });
        } catch (err) {
          // A cancelled or timed-out call fails for that reason, whatever the engine said on the way out.
          ctx.signal.throwIfAborted();
          throw asTaskFailure(err, choice.engine, dir, ctx.log);
        }
        ctx.signal.throwIfAborted();
        share(0.9);
        // Read only as regular files of the work folder (work-files.ts): sized first, then each opened again to store.
        const sizes: number[] = [];
        for (const file of result.files) {
          const { handle, size } = await openOutput(file.path, dir, file.filename);
          await handle.close();
          sizes.push(size);
        }
        await bound.beforeStoring(sizes);
        const outputBytes = Math.max(1, sizes.reduce((sum, n) => sum + n, 0));
        let stored = 0;
        for (const [i, file] of result.files.entries()) {
          const size = sizes[i]!;
          const format = formatOfFilename(file.filename);
          const progress = within(share, 0.9 + (0.1 * stored) / outputBytes, 0.9 + (0.1 * (stored + size)) / outputBytes);
          const { handle } = await openOutput(file.path, dir, file.filename);
          try {
            produced.push(
              await ctx.save(file.filename, handle.createReadStream({ autoClose: false }), { size, progress, contentType: file.contentType ?? (format ? mimeType(format) : undefined), ...(file.dir ? { dir: file.dir } : {}) }),
            );
          } finally {
            await handle.close();
          }
          stored += size;
        }
        if (result.metadata) {
          metadata ??= result.metadata;
          byFile[source] = result.metadata;
        }
        reported ??= choice;
        credits += choice.capability.credits ?? 1;
      }
    });

    if (Object.keys(byFile).length > 1) metadata = byFile;
    return {
      result: { files: produced, ...(metadata ? (op.use.resultFromMetadata ? metadata : { metadata }) : {}) },
      engine: reported?.engine,
      engineVersion: reported?.version,
      credits,
    };
  };
}
