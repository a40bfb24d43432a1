/**
 * The job builder's tasks as plain data, and the job they make: names (unique, referred to by later
 * tasks' `input`), the operation, its formats and its options. Pure functions, so unit tests import
 * them; the page keeps the list in state and renders it.
 */

/** The fields of a discovery row (discovery.ts's OperationRow) the builder reads. */
export interface OperationRow {
  operation: string;
  input_format: string | null;
  output_format: string | null;
  options?: Array<{ name: string }>;
}

export interface BuilderTask {
  /** Stable across renames and moves (the key of its form). */
  key: number;
  name: string;
  operation: string;
  /** Names of earlier tasks this one takes. */
  input: string[];
  /** '' when not chosen (the service takes it from the input file). */
  inputFormat: string;
  outputFormat: string;
  options: Record<string, unknown>;
}

export interface JobPayload {
  tasks: Record<string, Record<string, unknown>>;
  tag?: string;
}

/** Imports and a website capture start from nothing; every other operation takes earlier tasks. */
export const takesInput = (operation: string) => !operation.startsWith('import/') && operation !== 'capture-website';

/** Which section of the "add a task" list an operation belongs to. */
export function stepOf(operation: string): 'Import' | 'Export' | 'Process' {
  if (operation.startsWith('import/')) return 'Import';
  if (operation.startsWith('export/')) return 'Export';
  return 'Process';
}

/** The operations discovery lists, one each, grouped as Import, Process, Export, in discovery's order. */
export function operationGroups(rows: OperationRow[]): Array<{ label: string; operations: string[] }> {
  const groups = new Map<string, string[]>([
    ['Import', []],
    ['Process', []],
    ['Export', []],
  ]);
  const seen = new Set<string>();
  for (const row of rows) {
    if (seen.has(row.operation)) continue;
    seen.add(row.operation);
    groups.get(stepOf(row.operation))!.push(row.operation);
  }
  return [...groups].filter(([, ops]) => ops.length).map(([label, operations]) => ({ label, operations }));
}

/** A free name for a new task of `operation`: `import-1`, `thumbnail-1`, `export-2`… */
export function freeName(operation: string, tasks: BuilderTask[]): string {
  const step = stepOf(operation);
  const stem = step === 'Process' ? operation.replace(/\//g, '-') : step.toLowerCase();
  const taken = new Set(tasks.map((t) => t.name));
  let n = 1;
  while (taken.has(`${stem}-${n}`)) n++;
  return `${stem}-${n}`;
}

/** What is wrong with a task's name (empty, or another task's), or undefined. */
export function nameProblem(tasks: BuilderTask[], key: number, name: string): string | undefined {
  if (!name.trim()) return 'A task needs a name.';
  if (tasks.some((t) => t.key !== key && t.name === name)) return `Another task is named ${name}.`;
  return undefined;
}

/** A new task after the others, taking the last task as its input when it takes inputs. */
export function addTask(tasks: BuilderTask[], operation: string, key: number): BuilderTask[] {
  const last = tasks[tasks.length - 1];
  const task: BuilderTask = {
    key,
    name: freeName(operation, tasks),
    operation,
    input: takesInput(operation) && last ? [last.name] : [],
    inputFormat: '',
    outputFormat: '',
    options: {},
  };
  return [...tasks, task];
}

/** Renames a task; the tasks that took it by its old name take it by the new one. */
export function renameTask(tasks: BuilderTask[], key: number, name: string): BuilderTask[] {
  const old = tasks.find((t) => t.key === key)?.name;
  return tasks.map((t) => (t.key === key ? { ...t, name } : { ...t, input: t.input.map((i) => (i === old ? name : i)) }));
}

/** Each task's inputs limited to the names of tasks before it. */
function earlierOnly(tasks: BuilderTask[]): BuilderTask[] {
  return tasks.map((t, i) => {
    const before = new Set(tasks.slice(0, i).map((b) => b.name));
    const input = t.input.filter((n) => before.has(n));
    return input.length === t.input.length ? t : { ...t, input };
  });
}

export const removeTask = (tasks: BuilderTask[], key: number) => earlierOnly(tasks.filter((t) => t.key !== key));

/** Moves a task `by` places (-1 up, 1 down); inputs that would now come later are dropped. */
export function moveTask(tasks: BuilderTask[], key: number, by: number): BuilderTask[] {
  const from = tasks.findIndex((t) => t.key === key);
  const to = from + by;
  if (from < 0 || to < 0 || to >= tasks.length) return tasks;
  const next = [...tasks];
  const [task] = next.splice(from, 1);
  next.splice(to, 0, task!);
  return earlierOnly(next);
}

export const updateTask = (tasks: BuilderTask[], key: number, change: Partial<Omit<BuilderTask, 'key' | 'name'>>) =>
  tasks.map((t) => (t.key === key ? { ...t, ...change } : t));

/** Keeps only the options a task's discovery row lists (after its formats changed). */
export const keepOptions = (tasks: BuilderTask[], key: number, names: ReadonlySet<string>) =>
  tasks.map((t) => {
    if (t.key !== key || Object.keys(t.options).every((n) => names.has(n))) return t;
    return { ...t, options: Object.fromEntries(Object.entries(t.options).filter(([n]) => names.has(n))) };
  });

/** The input formats an operation's rows list, and the output formats for an input format ('' = any). */
export function formatsOf(rows: OperationRow[], operation: string, inputFormat: string): { inputs: string[]; outputs: string[] } {
  const mine = rows.filter((r) => r.operation === operation);
  const inputs = [...new Set(mine.map((r) => r.input_format).filter((f): f is string => !!f))].sort();
  const outputs = [...new Set(mine.filter((r) => !inputFormat || r.input_format === inputFormat).map((r) => r.output_format).filter((f): f is string => !!f))].sort();
  return { inputs, outputs };
}

/** The discovery row whose options a task's form shows: the closest match of operation and formats. */
export function rowFor<R extends OperationRow>(rows: R[], task: Pick<BuilderTask, 'operation' | 'inputFormat' | 'outputFormat'>): R | undefined {
  const mine = rows.filter((r) => r.operation === task.operation);
  return (
    mine.find((r) => (!task.inputFormat || r.input_format === task.inputFormat) && (!task.outputFormat || r.output_format === task.outputFormat)) ??
    mine.find((r) => !task.outputFormat || r.output_format === task.outputFormat) ??
    mine[0]
  );
}

/** The job `POST /v2/jobs` takes: each task's operation, input (one name or several), formats and options. */
export function toJob(tasks: BuilderTask[], tag = ''): JobPayload {
  const out: JobPayload = { tasks: {} };
  for (const t of tasks) {
    const task: Record<string, unknown> = { operation: t.operation };
    if (t.input.length === 1) task.input = t.input[0];
    else if (t.input.length > 1) task.input = [...t.input];
    if (t.inputFormat) task.input_format = t.inputFormat;
    if (t.outputFormat) task.output_format = t.outputFormat;
    Object.assign(task, t.options);
    out.tasks[t.name] = task;
  }
  if (tag.trim()) out.tag = tag.trim();
  return out;
}
