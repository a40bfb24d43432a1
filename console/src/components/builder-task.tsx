/**
 * One task of the job builder: its name, the earlier tasks it takes, its formats (where the operation
 * has formats) and its options, all from discovery's rows; buttons to move and remove it.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api';
import type { OperationRow, OptionView } from '../discovery';
import { formatsOf, rowFor, takesInput, type BuilderTask } from '../builder-model';
import { optionsOfRow } from '../builder-rows';
import { OptionsForm } from './options-form';

export interface TaskEditorProps {
  task: BuilderTask;
  index: number;
  count: number;
  /** Names of the tasks before this one. */
  earlier: string[];
  rows: OperationRow[];
  nameProblem: string | undefined;
  onRename: (name: string) => void;
  onChange: (change: Partial<Omit<BuilderTask, 'key' | 'name'>>) => void;
  /** Drops the options that the task's row (after a change of formats) does not list. */
  onKeepOptions: (names: ReadonlySet<string>) => void;
  onMove: (by: number) => void;
  onRemove: () => void;
}

function FormatSelect(props: { id: string; label: string; value: string; formats: string[]; empty: string; onChange: (value: string) => void }) {
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        <option value="">{props.empty}</option>
        {props.formats.map((f) => (
          <option key={f} value={f}>
            {f}
          </option>
        ))}
      </select>
    </div>
  );
}

export function TaskEditor(props: TaskEditorProps) {
  const { task, index, count, earlier, rows } = props;
  const id = `task-${task.key}`;
  const formats = formatsOf(rows, task.operation, task.inputFormat);
  const row = rowFor(rows, task);
  const rowKey = row ? `${row.operation} ${row.input_format ?? ''} ${row.output_format ?? ''}` : '';
  // The row's options, read when the row changes; the last ones stay shown meanwhile (same fields).
  const [options, setOptionViews] = useState<OptionView[] | undefined>();
  const [optionsError, setOptionsError] = useState('');
  useEffect(() => {
    if (!row) return setOptionViews([]);
    let current = true;
    optionsOfRow(row).then(
      (views) => {
        if (!current) return;
        setOptionViews(views);
        setOptionsError('');
        props.onKeepOptions(new Set(views.map((v) => v.name)));
      },
      (err: unknown) => current && setOptionsError(err instanceof ApiError ? err.message : String(err)),
    );
    return () => {
      current = false;
    };
    // The row's identity is its key; `row` itself is a new object from rowFor on each render.
  }, [rowKey]);
  const known = new Set((options ?? []).map((o) => o.name));
  const setOptions = (values: Record<string, unknown>) => props.onChange({ options: values });
  const setFormats = (change: { inputFormat?: string; outputFormat?: string }) => {
    const next = { ...task, ...change };
    const outputs = formatsOf(rows, task.operation, next.inputFormat).outputs;
    if (next.outputFormat && !outputs.includes(next.outputFormat)) next.outputFormat = '';
    props.onChange({ inputFormat: next.inputFormat, outputFormat: next.outputFormat });
  };
  const toggleInput = (name: string, on: boolean) => {
    const chosen = new Set(on ? [...task.input, name] : task.input.filter((n) => n !== name));
    props.onChange({ input: earlier.filter((n) => chosen.has(n)) });
  };
  return (
    <fieldset class="builder-task" id={id} aria-labelledby={`${id}-legend`}>
      <legend id={`${id}-legend`}>
        Task {index + 1}: {task.name || '(no name)'} <span class="muted">{task.operation}</span>
      </legend>
      <div class="builder-task-grid">
        <div>
          <label for={`${id}-name`}>Name</label>
          <input
            id={`${id}-name`}
            type="text"
            value={task.name}
            aria-invalid={props.nameProblem ? true : undefined}
            aria-describedby={props.nameProblem ? `${id}-name-error` : undefined}
            onInput={(e) => props.onRename(e.currentTarget.value)}
          />
          {props.nameProblem && (
            <div id={`${id}-name-error`} class="error" role="alert">
              {props.nameProblem}
            </div>
          )}
        </div>
        {formats.inputs.length > 0 && (
          <FormatSelect
            id={`${id}-input-format`}
            label="Input format"
            value={task.inputFormat}
            formats={formats.inputs}
            empty="from the input file"
            onChange={(inputFormat) => setFormats({ inputFormat })}
          />
        )}
        {formats.outputs.length > 0 && (
          <FormatSelect
            id={`${id}-output-format`}
            label="Output format"
            value={task.outputFormat}
            formats={formats.outputs}
            empty="choose a format"
            onChange={(outputFormat) => setFormats({ outputFormat })}
          />
        )}
      </div>
      {takesInput(task.operation) && (
        <fieldset class="builder-inputs">
          <legend>Input</legend>
          {earlier.length === 0 ? (
            <p class="muted">No earlier task to take: add an import first or move this task down.</p>
          ) : (
            earlier.map((name) => (
              <label key={name} class="inline" for={`${id}-input-${name}`}>
                <input id={`${id}-input-${name}`} type="checkbox" checked={task.input.includes(name)} onChange={(e) => toggleInput(name, e.currentTarget.checked)} /> {name}
              </label>
            ))
          )}
        </fieldset>
      )}
      {optionsError && (
        <p class="error" role="alert">
          The options could not be read: {optionsError}
        </p>
      )}
      {options ? (
        <OptionsForm
          idPrefix={`${id}-option`}
          options={options}
          values={Object.fromEntries(Object.entries(task.options).filter(([k]) => known.has(k)))}
          onChange={setOptions}
        />
      ) : (
        !optionsError && <p class="muted">Reading the options…</p>
      )}
      <div class="actions">
        <button type="button" id={`${id}-up`} class="secondary" aria-label={`Move ${task.name} up`} disabled={index === 0} onClick={() => props.onMove(-1)}>
          Move {task.name} up
        </button>
        <button type="button" id={`${id}-down`} class="secondary" aria-label={`Move ${task.name} down`} disabled={index === count - 1} onClick={() => props.onMove(1)}>
          Move {task.name} down
        </button>
        <button type="button" class="danger" aria-label={`Remove ${task.name}`} onClick={props.onRemove}>
          Remove
        </button>
      </div>
    </fieldset>
  );
}
