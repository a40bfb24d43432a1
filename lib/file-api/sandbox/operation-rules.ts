/**
 * What the sandbox lets each operation do. The sandbox runs at 0 credits on files its user whitelisted
 * (lib/file-api/sandbox/files.ts); the runner checks the files an import brings in (gate.ts). So the sandbox is
 * only as tight as the ways bytes get into a task: every operation must work on files of its inputs
 * (themselves sandbox tasks, admitted by the same rules, down to gated imports) and make or fetch
 * nothing else. An allowlist, one rule per operation, declared here; the table's type names every
 * operation (lib/file-api/operations/index.ts), so a new operation does not compile until it has its rule, and
 * a name without one is refused.
 *
 * Checked when a sandbox job or task is created (TaskService): a refusal is a 422 with
 * SANDBOX_OPERATION_NOT_ALLOWED naming the field, before anything is stored. Chromium, which could
 * fetch what an HTML input links to, renders a sandbox task's document with no network (htmlWithChrome).
 */
import { FILTERS } from '../../engines/command/command-allowlist.js';
import { CommandArgumentError, isOption, optionName, validateCommand, type CommandWord } from '../../engines/command/command-arguments.js';
import { parseGraph } from '../../engines/command/command-graph.js';
import { MAGICK_GENERATORS } from '../../engines/command/magick-allowlist.js';
import { ApiError } from '../../kernel/errors.js';
import type { OperationName } from '../operations/index.js';

export const SANDBOX_OPERATION_NOT_ALLOWED = 'SANDBOX_OPERATION_NOT_ALLOWED';

/** Why a task is refused in the sandbox: the argument that makes or fetches content, and how. */
export interface SandboxProblem {
  field: string;
  message: string;
}

type Payload = Record<string, unknown>;

/**
 * - `whitelisted-import`: the files it brings in are checked against the whitelist when it runs (the
 *   runner does so for every task of the import step, and only those may have this rule);
 * - `export`: sends files of its inputs out, brings nothing in;
 * - `inputs`: makes its files from its input files only (it needs at least one);
 * - a function: the conditions of an operation that can make or fetch content otherwise;
 * - `{ refused }`: makes or fetches content with no input, never in the sandbox.
 */
export type SandboxRule = 'whitelisted-import' | 'export' | 'inputs' | ((payload: Payload) => SandboxProblem | undefined) | { refused: string };

const inputsOf = (payload: Payload): string[] => {
  const input = payload.input;
  return Array.isArray(input) ? input.map(String) : typeof input === 'string' ? [input] : [];
};

const needsInput = (payload: Payload, operation: string): SandboxProblem | undefined =>
  inputsOf(payload).length
    ? undefined
    : { field: 'input', message: `In the sandbox, ${operation} works on whitelisted files only: name an input task that imports one.` };

/** Watermark: a file to watermark (not only its image), and the image a task's file rather than a URL. */
function watermarkRule(payload: Payload): SandboxProblem | undefined {
  const image = typeof payload.image === 'string' ? payload.image : undefined;
  if (image !== undefined && /^https?:\/\//i.test(image)) {
    return { field: 'image', message: 'In the sandbox, the watermark image must be a whitelisted file: name an input task that imports it, not a URL.' };
  }
  if (inputsOf(payload).filter((i) => i !== image).length === 0) {
    return { field: 'input', message: 'In the sandbox, watermark works on whitelisted files only: name an input task with the file to watermark.' };
  }
  return undefined;
}

/** Options whose value is a filter graph. */
const GRAPH_OPTIONS = new Set(['vf', 'af', 'filter', 'filter_complex', 'lavfi']);

/**
 * command: through the parsed arguments (validateCommand, the same parse as task creation and the
 * engine): at least one `/input/` file, no `-f lavfi` (FFmpeg's generated inputs), every `-i` a task
 * file, and no source filter in a filter graph.
 */
function commandRule(payload: Payload): SandboxProblem | undefined {
  const refuse = (why: string): SandboxProblem => ({ field: 'arguments', message: `In the sandbox, command works on whitelisted files only: ${why}` });
  let words: CommandWord[];
  try {
    words = validateCommand(payload as { engine: string; command: string; arguments: string }, inputsOf(payload));
  } catch (err) {
    // The schema refused these already; refuse rather than admit what cannot be read.
    if (err instanceof CommandArgumentError) return refuse(err.message);
    throw err;
  }
  if (!words.some((w) => w.kind === 'input')) return refuse('name at least one input file as /input/<input task>/<file name>.');
  // ImageMagick and GraphicsMagick: images made from their argument (xc:, gradient:, label:, pattern:…).
  const magick = payload.engine !== 'ffmpeg';
  const made = words.find((w) => magick && w.kind === 'text' && MAGICK_GENERATORS.has(/^([A-Za-z-]+):/.exec(w.value)?.[1]?.toLowerCase() ?? ''));
  if (made) return refuse(`${(made as { value: string }).value} makes content of its own and is not available.`);
  for (let i = 1; i < words.length; i++) {
    const previous = words[i - 1]!;
    const word = words[i]!;
    const option = previous.kind === 'text' && isOption(previous.value) ? optionName(previous.value) : undefined;
    if (option === 'i' && word.kind !== 'input') return refuse('every -i must be an input file, /input/<input task>/<file name>.');
    if (word.kind !== 'text') continue;
    if (option === 'f' && word.value.toLowerCase() === 'lavfi') return refuse('generated inputs (-f lavfi) are not available.');
    if (option && GRAPH_OPTIONS.has(option)) {
      // validateCommand read the graph already: every filter is in the allowlist, which marks the sources.
      const source = parseGraph(word.value).find((filter) => FILTERS[filter.name]?.source);
      if (source) return refuse(`the ${source.name} filter makes content of its own and is not available.`);
    }
  }
  return undefined;
}

const refusedWithoutImport = (what: string) => ({ refused: `${what}; the sandbox takes only whitelisted files, brought in by an import task.` });

/** Every operation's rule (a missing one does not compile). */
export const SANDBOX_OPERATIONS: { readonly [N in OperationName]: SandboxRule } = {
  'import/url': 'whitelisted-import',
  'import/raw': 'whitelisted-import',
  'import/base64': 'whitelisted-import',
  'import/upload': 'whitelisted-import',
  'import/s3': 'whitelisted-import',
  'import/azure/blob': 'whitelisted-import',
  'import/google-cloud-storage': 'whitelisted-import',
  'import/sftp': 'whitelisted-import',
  'import/openstack': 'whitelisted-import',
  convert: 'inputs',
  thumbnail: 'inputs',
  watermark: watermarkRule,
  'capture-website': refusedWithoutImport('capture-website fetches a web page'),
  command: commandRule,
  optimize: 'inputs',
  'pdf/ocr': 'inputs',
  'pdf/split-pages': 'inputs',
  'pdf/extract-pages': 'inputs',
  'pdf/encrypt': 'inputs',
  'pdf/decrypt': 'inputs',
  'pdf/a': 'inputs',
  'pdf/x': 'inputs',
  metadata: 'inputs',
  'metadata/write': 'inputs',
  merge: 'inputs',
  archive: 'inputs',
  'archive/extract': 'inputs',
  'pdf/rotate-pages': 'inputs',
  'export/url': 'export',
  'export/upload': 'export',
  'export/s3': 'export',
  'export/azure/blob': 'export',
  'export/google-cloud-storage': 'export',
  'export/sftp': 'export',
  'export/openstack': 'export',
};

/**
 * Why a task of `operation` (its definition's name, not an alias) with these validated arguments may
 * not run in the sandbox, or undefined when it may.
 */
export function sandboxProblem(operation: string, payload: Payload): SandboxProblem | undefined {
  const rule = (SANDBOX_OPERATIONS as Readonly<Record<string, SandboxRule | undefined>>)[operation];
  if (rule === undefined) return { field: 'operation', message: `The operation ${operation} is not available in the sandbox.` };
  if (rule === 'whitelisted-import' || rule === 'export') return undefined;
  if (rule === 'inputs') return needsInput(payload, operation);
  if (typeof rule === 'function') return rule(payload);
  return { field: 'operation', message: `The operation ${operation} is not available in the sandbox: ${rule.refused}` };
}

/** Refuses sandbox tasks that make or fetch content: one 422 naming every such field (`prefix`: where the task is in the request). */
export function assertSandboxAdmits(tasks: readonly { prefix: string; spec: { name: string }; payload: Payload }[]): void {
  const fields: Record<string, string[]> = {};
  for (const { prefix, spec, payload } of tasks) {
    const problem = sandboxProblem(spec.name, payload);
    if (problem) (fields[`${prefix}${problem.field}`] ??= []).push(problem.message);
  }
  if (Object.keys(fields).length) {
    throw new ApiError('INVALID_ARGUMENT', 'The sandbox runs only on whitelisted files; these tasks would make or fetch others.', { code: SANDBOX_OPERATION_NOT_ALLOWED, fields });
  }
}
