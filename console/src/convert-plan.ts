/**
 * The Convert page's logic, apart from the DOM: the job one file becomes (import/upload → convert →
 * export/url), the output formats offered for an input (from discovery's rows), the files grouped by
 * input format (one "Convert to" per group), and how task snapshots from events and polls merge into
 * what the page shows (an ended task never goes back to running; progress never goes back).
 */

// Structural types only, and no import: this module is also type-checked by the project's Node
// configuration (the unit tests import it), where the console's other modules do not resolve.

/** What the page reads of a discovery row (discovery.ts `OperationRow`). */
export interface OutputRow {
  operation: string;
  output_format: string | null;
  meta: { group: string };
}

/** Option values as options-form.tsx collects them. */
export type OptionValues = Record<string, unknown>;

/** A task as the API shows it (the fields the page uses). */
export interface TaskView {
  id: string;
  name?: string | null;
  operation: string;
  status: 'waiting' | 'processing' | 'finished' | 'error';
  message: string | null;
  code: string | null;
  percent: number;
  result?: { files?: Array<{ filename: string; size?: number; url?: string }>; form?: { url: string; parameters: Record<string, string> } } | null;
}

export interface JobView {
  id: string;
  status: TaskView['status'];
  tasks: TaskView[];
}

/** The names of the job's three tasks (also the job's keys: they read well in the job's JSON). */
export const TASK_NAMES = { upload: 'upload', convert: 'convert', export: 'export' } as const;

/** The body of POST /v2/jobs for one file: the options go in the convert task, as CloudConvert's. */
export function convertJobRequest(inputFormat: string, outputFormat: string, options: OptionValues): { tasks: Record<string, Record<string, unknown>> } {
  return {
    tasks: {
      [TASK_NAMES.upload]: { operation: 'import/upload' },
      [TASK_NAMES.convert]: { ...options, operation: 'convert', input: TASK_NAMES.upload, input_format: inputFormat, output_format: outputFormat },
      [TASK_NAMES.export]: { operation: 'export/url', input: TASK_NAMES.convert },
    },
  };
}

export interface OutputChoice<Row extends OutputRow = OutputRow> {
  format: string;
  group: string;
  row: Row;
}

/**
 * The outputs an input can become, one per format (the first row of a format is its default engine),
 * grouped by the family of the output (`meta.group`), groups and formats in alphabetical order.
 */
export function outputChoices<Row extends OutputRow>(rows: readonly Row[]): Array<{ group: string; choices: Array<OutputChoice<Row>> }> {
  const seen = new Map<string, OutputChoice<Row>>();
  for (const row of rows) {
    if (row.operation !== 'convert' || !row.output_format || seen.has(row.output_format)) continue;
    seen.set(row.output_format, { format: row.output_format, group: row.meta?.group || 'other', row });
  }
  const groups = new Map<string, Array<OutputChoice<Row>>>();
  for (const choice of [...seen.values()].sort((a, b) => a.format.localeCompare(b.format))) {
    groups.set(choice.group, [...(groups.get(choice.group) ?? []), choice]);
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([group, choices]) => ({ group, choices }));
}

/** Input formats in the order their first file was chosen. */
export function inputFormats(names: readonly string[], formatOf: (name: string) => string): string[] {
  return [...new Set(names.map(formatOf))];
}

const ENDED = new Set<TaskView['status']>(['finished', 'error']);
export const isEnded = (task: Pick<TaskView, 'status'>) => ENDED.has(task.status);

/**
 * A newer snapshot of a task over the one shown. Events and polls can arrive out of order: an ended
 * task stays ended, and progress never shrinks while the task runs.
 */
export function mergeTask(shown: TaskView | undefined, incoming: TaskView): TaskView {
  if (!shown) return incoming;
  if (isEnded(shown) && !isEnded(incoming)) return shown;
  if (!isEnded(incoming) && incoming.percent < shown.percent) return { ...incoming, percent: shown.percent };
  return incoming;
}

/** The job's tasks in their first order, each updated with any newer snapshot in `incoming`. */
export function mergeTasks(shown: readonly TaskView[], incoming: readonly TaskView[]): TaskView[] {
  const byId = new Map(incoming.map((t) => [t.id, t]));
  const merged = shown.map((t) => {
    const next = byId.get(t.id);
    return next ? mergeTask(t, next) : t;
  });
  const known = new Set(shown.map((t) => t.id));
  return [...merged, ...incoming.filter((t) => !known.has(t.id))];
}

/** The progress a task's bar shows (0–100): an import/upload task's own is the upload's until it ends. */
export function progressOf(task: TaskView, uploaded?: number): number {
  if (isEnded(task)) return 100;
  if (task.operation === 'import/upload' && uploaded !== undefined) return Math.max(task.percent, Math.round(uploaded * 100));
  return Math.max(0, Math.min(100, task.percent));
}

export interface Outcome {
  /** Every task ended. */
  ended: boolean;
  /** The first task that failed, in the job's order (a task that failed of its own, not only because its input did). */
  failed?: TaskView;
  /** The files the export tasks made available. */
  files: Array<{ filename: string; url: string }>;
}

/** A failure that only repeats an earlier task's (CloudConvert's code for it). */
const INPUT_FAILED = 'INPUT_TASK_FAILED';

export function outcomeOf(tasks: readonly TaskView[]): Outcome {
  const failures = tasks.filter((t) => t.status === 'error');
  return {
    ended: tasks.length > 0 && tasks.every(isEnded),
    failed: failures.find((t) => t.code !== INPUT_FAILED) ?? failures[0],
    files: tasks
      .filter((t) => t.operation.startsWith('export/') && t.status === 'finished')
      .flatMap((t) => t.result?.files ?? [])
      .filter((f): f is { filename: string; url: string } => typeof f.url === 'string'),
  };
}

/** What an API error at the job's creation says: its message, then each refused field and why. */
export function creationErrorText(err: { message: string; errors?: Record<string, string[]> }): string[] {
  const lines = [err.message];
  for (const [field, problems] of Object.entries(err.errors ?? {})) {
    const text = `${field}: ${problems.join('; ')}`;
    if (!err.message.includes(text)) lines.push(text);
  }
  return lines;
}
