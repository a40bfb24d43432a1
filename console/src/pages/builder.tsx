/**
 * The job builder: tasks added from what /v2/operations lists (imports, operations, exports), each
 * with its form from discovery; the job's JSON live, the same job as curl, Node.js and Python code;
 * "Run job" posts it to /v2/jobs and follows it.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, apiData } from '../api';
import type { OperationRow } from '../discovery';
import { operationRows } from '../builder-rows';
import { addTask, keepOptions, moveTask, nameProblem, operationGroups, removeTask, renameTask, toJob, updateTask, type BuilderTask } from '../builder-model';
import { TaskEditor } from '../components/builder-task';
import { CodeTabs } from '../components/builder-code-tabs';
import { JobRun } from '../components/builder-run';

/** Where the job being built is kept while the tab is open (a visit to a job's page and back keeps it). */
const KEPT = 'console.builder';
interface Kept {
  tasks: BuilderTask[];
  tag: string;
}
function kept(): Kept {
  try {
    const value = JSON.parse(window.sessionStorage.getItem(KEPT) ?? 'null') as Kept | null;
    return value && Array.isArray(value.tasks) ? value : { tasks: [], tag: '' };
  } catch {
    return { tasks: [], tag: '' };
  }
}

/** After a move, the focus stays on the moved task's button, or its other one where that end is reached. */
function focusMoved(key: number, by: number) {
  window.setTimeout(() => {
    const same = document.getElementById(`task-${key}-${by < 0 ? 'up' : 'down'}`) as HTMLButtonElement | null;
    const other = document.getElementById(`task-${key}-${by < 0 ? 'down' : 'up'}`) as HTMLButtonElement | null;
    (same && !same.disabled ? same : other)?.focus();
  }, 0);
}

export function BuilderPage() {
  const [rows, setRows] = useState<OperationRow[] | undefined>();
  const [loadError, setLoadError] = useState('');
  const [tasks, setTasks] = useState<BuilderTask[]>(() => kept().tasks);
  const [nextKey, setNextKey] = useState(() => Math.max(0, ...kept().tasks.map((t) => t.key)) + 1);
  const [operation, setOperation] = useState('import/url');
  const [tag, setTag] = useState(() => kept().tag);
  const [running, setRunning] = useState(false);
  const [runError, setRunError] = useState<ApiError | undefined>();
  const [ran, setRan] = useState<string | undefined>();
  const [announce, setAnnounce] = useState('');

  useEffect(() => {
    operationRows().then(setRows, (err: unknown) => setLoadError(err instanceof ApiError ? err.message : String(err)));
  }, []);
  useEffect(() => {
    try {
      window.sessionStorage.setItem(KEPT, JSON.stringify({ tasks, tag } satisfies Kept));
    } catch {
      // storage full or refused: the job is only lost on leaving the page
    }
  }, [tasks, tag]);
  const groups = useMemo(() => operationGroups(rows ?? []), [rows]);
  const job = useMemo(() => toJob(tasks, tag), [tasks, tag]);
  const problems = tasks.map((t) => nameProblem(tasks, t.key, t.name));
  const base = window.location.origin;

  const add = () => {
    setTasks((ts) => addTask(ts, operation, nextKey));
    setNextKey((k) => k + 1);
    setAnnounce(`Added a ${operation} task.`);
    window.setTimeout(() => document.getElementById(`task-${nextKey}-name`)?.focus(), 0);
  };
  const run = async () => {
    setRunning(true);
    setRunError(undefined);
    try {
      const created = await apiData<{ id: string }>('POST', '/v2/jobs', job);
      setRan(created.id);
    } catch (err) {
      setRunError(err instanceof ApiError ? err : new ApiError(0, String(err)));
    } finally {
      setRunning(false);
    }
  };

  return (
    <>
      <section aria-labelledby="builder-heading">
        <h1 id="builder-heading" tabIndex={-1}>
          Job builder
        </h1>
        <p class="muted">
          Add tasks in order: an import, what to do with the file, an export. Each task's form comes from what this service lists at{' '}
          <code>/v2/operations</code>.
        </p>
        {loadError && (
          <p class="error" role="alert">
            The operations could not be read: {loadError}
          </p>
        )}
        <div class="actions builder-add">
          <div>
            <label for="builder-operation">Operation</label>
            <select id="builder-operation" value={operation} disabled={!rows} onChange={(e) => setOperation(e.currentTarget.value)}>
              {groups.map((g) => (
                <optgroup key={g.label} label={g.label}>
                  {g.operations.map((op) => (
                    <option key={op} value={op}>
                      {op}
                    </option>
                  ))}
                </optgroup>
              ))}
            </select>
          </div>
          <button type="button" disabled={!rows} onClick={add}>
            Add task
          </button>
          {tasks.length > 0 && (
            <button
              type="button"
              class="secondary"
              onClick={() => {
                setTasks([]);
                setTag('');
                setAnnounce('Removed every task.');
              }}
            >
              Start over
            </button>
          )}
        </div>
        <p role="status" class="visually-hidden">
          {announce}
        </p>
        {tasks.length === 0 && rows && <p class="muted">No task yet.</p>}
        {rows &&
          tasks.map((task, index) => (
            <TaskEditor
              key={task.key}
              task={task}
              index={index}
              count={tasks.length}
              earlier={tasks.slice(0, index).map((t) => t.name)}
              rows={rows}
              nameProblem={problems[index]}
              onRename={(name) => setTasks((ts) => renameTask(ts, task.key, name))}
              onChange={(change) => setTasks((ts) => updateTask(ts, task.key, change))}
              onKeepOptions={(names) => setTasks((ts) => keepOptions(ts, task.key, names))}
              onMove={(by) => {
                setTasks((ts) => moveTask(ts, task.key, by));
                setAnnounce(`Moved ${task.name} ${by < 0 ? 'up' : 'down'}.`);
                focusMoved(task.key, by);
              }}
              onRemove={() => {
                setTasks((ts) => removeTask(ts, task.key));
                setAnnounce(`Removed ${task.name}.`);
                document.getElementById('builder-operation')?.focus();
              }}
            />
          ))}
        <label for="builder-tag">Tag</label>
        <input id="builder-tag" type="text" value={tag} placeholder="optional" onInput={(e) => setTag(e.currentTarget.value)} />
      </section>

      <section aria-labelledby="builder-json-heading">
        <h2 id="builder-json-heading">The job</h2>
        <pre role="region" aria-label="Job JSON" tabIndex={0}>
          <code>{JSON.stringify(job, null, 2)}</code>
        </pre>
        <CodeTabs job={job} base={base} />
        <div class="actions">
          <button type="button" disabled={running || tasks.length === 0 || problems.some(Boolean)} onClick={() => void run()}>
            Run job
          </button>
          {running && <span role="status">Creating the job…</span>}
        </div>
        {runError && (
          <div class="error" role="alert">
            <p>The job was not created: {runError.message}</p>
            {runError.errors && (
              <ul>
                {Object.entries(runError.errors).map(([field, messages]) => (
                  <li key={field}>
                    <code>{field}</code>: {messages.join(' ')}
                  </li>
                ))}
              </ul>
            )}
          </div>
        )}
      </section>
      {ran && <JobRun key={ran} id={ran} />}
    </>
  );
}
