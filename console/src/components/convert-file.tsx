/**
 * One chosen file on the Convert page: before the conversion its name, format and a Remove button;
 * after it its job (a link to the job's page), each task's progress bar, the phase in a live region,
 * the Download link of each output, or the failed task's message and code as an alert.
 */
import { Link } from '../router';
import { outcomeOf, progressOf, type TaskView } from '../convert-plan';

export interface Run {
  phase: 'creating' | 'uploading' | 'running' | 'ended';
  jobId?: string;
  tasks: TaskView[];
  /** Upload progress from 0 to 1. */
  uploaded?: number;
  /** An error of the page's own (the job refused, the upload failed), as lines of text. */
  error?: string[];
}

export interface Chosen {
  key: number;
  file: File;
  format: string;
  run?: Run;
}

const SIZE_UNITS = ['bytes', 'KB', 'MB', 'GB'];
export function sizeText(bytes: number): string {
  let size = bytes;
  let unit = 0;
  while (size >= 1024 && unit < SIZE_UNITS.length - 1) {
    size /= 1024;
    unit++;
  }
  return `${unit === 0 ? size : size.toFixed(1)} ${SIZE_UNITS[unit]}`;
}

function phaseText(run: Run): string {
  const outcome = outcomeOf(run.tasks);
  if (run.error) return 'Not converted.';
  if (outcome.failed && outcome.ended) return 'Failed.';
  if (outcome.ended) return 'Finished.';
  if (run.phase === 'creating') return 'Creating the job…';
  if (run.phase === 'uploading') return 'Uploading…';
  return run.tasks.some((t) => t.status === 'processing') ? 'Converting…' : 'Waiting…';
}

export function ConvertFile(props: { item: Chosen; distinctDownloads: boolean; onRemove?: () => void }) {
  const { item, distinctDownloads, onRemove } = props;
  const { file, run } = item;
  const outcome = run ? outcomeOf(run.tasks) : undefined;
  return (
    <li class="convert-file">
      <div class="convert-file-head">
        <strong>{file.name}</strong>
        <span class="muted">
          {item.format ? item.format.toUpperCase() : 'no extension'} · {sizeText(file.size)}
        </span>
        {run?.jobId && <Link to={`jobs/${run.jobId}`}>Job of {file.name}</Link>}
        {onRemove && !run && (
          <button type="button" class="secondary" onClick={onRemove}>
            Remove<span class="visually-hidden"> {file.name}</span>
          </button>
        )}
      </div>
      {run && (
        <>
          <p role="status" class="muted">
            {phaseText(run)}
          </p>
          {run.tasks.length > 0 && (
            <ul class="convert-tasks">
              {run.tasks.map((task) => {
                const value = progressOf(task, task.operation === 'import/upload' ? run.uploaded : undefined);
                return (
                  <li key={task.id}>
                    <span class="convert-task-name">{task.operation}</span>
                    <progress max={100} value={value} aria-label={`${task.operation}: ${file.name}`} />
                    <span class={`convert-task-state status-${task.status}`}>
                      {task.status} {value}%
                    </span>
                  </li>
                );
              })}
            </ul>
          )}
          {run.error && (
            <div role="alert" class="error">
              {run.error.map((line) => (
                <p key={line}>{line}</p>
              ))}
            </div>
          )}
          {outcome?.failed && outcome.ended && !run.error && (
            <div role="alert" class="error">
              <p>
                {outcome.failed.operation} failed: {outcome.failed.message ?? 'no message'}
                {outcome.failed.code && (
                  <>
                    {' '}
                    (<code>{outcome.failed.code}</code>)
                  </>
                )}
              </p>
            </div>
          )}
          {outcome && outcome.files.length > 0 && (
            <ul class="convert-downloads">
              {outcome.files.map((f) => (
                <li key={f.url}>
                  <a href={f.url} download={f.filename}>
                    Download{distinctDownloads && <span class="visually-hidden"> {f.filename}</span>}
                  </a>{' '}
                  <span class="muted" aria-hidden={distinctDownloads ? 'true' : undefined}>
                    {f.filename}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </li>
  );
}
