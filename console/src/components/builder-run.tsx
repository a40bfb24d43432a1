/**
 * A job the builder ran, followed live: its tasks in their order with a progress bar each, their
 * messages and the export URLs as Download links, and a link to the job's page. Task events of the
 * job's channels update it as they come; the job is read again when a task or the job ends (the events
 * may carry the small fields only) and, as a safety net, every few seconds until it ends.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, apiData, uploadWithForm } from '../api';
import { liveEvents, subscribe } from '../events';
import { Link } from '../router';

interface RunTask {
  id: string;
  name: string;
  operation: string;
  status: string;
  percent?: number;
  message?: string | null;
  result?: { files?: Array<{ filename: string; url?: string }>; form?: { url: string; parameters: Record<string, string> } } | null;
}
interface RunJob {
  id: string;
  status: string;
  tasks: RunTask[];
}

const ENDED = new Set(['finished', 'error']);

/** An import/upload task's file input: the file goes to the task's form, with its progress. */
function UploadFor(props: { task: RunTask; form: { url: string; parameters: Record<string, string> } }) {
  const { task } = props;
  const [sent, setSent] = useState<number | undefined>();
  const [error, setError] = useState('');
  const id = `upload-${task.id}`;
  const send = async (file: File | undefined) => {
    if (!file) return;
    setError('');
    setSent(0);
    try {
      await uploadWithForm(props.form, file, setSent);
      setSent(1);
    } catch (err) {
      setSent(undefined);
      setError(err instanceof ApiError ? err.message : String(err));
    }
  };
  return (
    <div>
      <label for={id}>File for {task.name}</label>
      <input id={id} type="file" disabled={sent !== undefined} onChange={(e) => void send(e.currentTarget.files?.[0])} />
      {sent !== undefined && (
        <p role="status" class="muted">
          {sent < 1 ? `Uploading: ${Math.round(sent * 100)}%` : 'Uploaded.'}
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

export function JobRun(props: { id: string }) {
  const { id } = props;
  const [job, setJob] = useState<RunJob | undefined>();
  const [error, setError] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);
  // The run appears below the builder: take the keyboard there.
  useEffect(() => heading.current?.focus(), [id]);
  useEffect(() => {
    let stopped = false;
    const load = async () => {
      try {
        const fresh = await apiData<RunJob>('GET', `/v2/jobs/${encodeURIComponent(id)}`);
        if (stopped) return;
        setJob(fresh);
        setError('');
        if (ENDED.has(fresh.status)) stop();
      } catch (err) {
        if (!stopped) setError(err instanceof ApiError ? err.message : String(err));
      }
    };
    const onTask = (data: unknown) => {
      const task = (data as { task?: Partial<RunTask> & { id: string } }).task;
      if (!task) return;
      setJob((j) => j && { ...j, tasks: j.tasks.map((t) => (t.id === task.id ? { ...t, ...task } : t)) });
      if (task.status && ENDED.has(task.status)) void load();
    };
    const unsubscribe = [
      subscribe(`private-job.${id}.tasks`, ['task.created', 'task.updated', 'task.finished', 'task.failed'], onTask),
      subscribe(`private-job.${id}`, ['job.finished', 'job.failed'], () => void load()),
    ];
    const stop = () => {
      window.clearInterval(timer);
      unsubscribe.forEach((u) => u());
    };
    const timer = window.setInterval(() => void load(), liveEvents() ? 5000 : 1500);
    void load();
    return () => {
      stopped = true;
      stop();
    };
  }, [id]);

  return (
    <section aria-labelledby="run-heading">
      <h2 id="run-heading" tabIndex={-1} ref={heading}>
        The job that ran
      </h2>
      <p>
        <Link to={`jobs/${id}`}>Open the job's page</Link> <span class="muted">({id})</span>
      </p>
      <p role="status">{job ? `The job is ${job.status}.` : 'Reading the job…'}</p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {job && (
        <ol class="run-tasks">
          {job.tasks.map((t) => {
            const percent = t.status === 'finished' ? 100 : Math.max(0, Math.min(100, t.percent ?? 0));
            return (
              <li key={t.id}>
                <div>
                  <strong>{t.name}</strong> <span class="muted">{t.operation}</span> <span class={`status-${t.status}`}>{t.status}</span>
                </div>
                <progress max={100} value={percent} aria-label={`${t.name} progress`}>
                  {percent}%
                </progress>
                {t.operation === 'import/upload' && t.status === 'waiting' && t.result?.form && <UploadFor task={t} form={t.result.form} />}
                {t.status === 'error' && t.message && (
                  <p class="error" role="alert">
                    {t.name}: {t.message}
                  </p>
                )}
                {(t.result?.files ?? [])
                  .filter((f) => f.url)
                  .map((f, i) => (
                    <p key={`${f.filename}-${i}`}>
                      <a href={f.url} download={f.filename} aria-describedby={`file-${t.id}-${i}`}>
                        Download
                      </a>{' '}
                      <span id={`file-${t.id}-${i}`}>{f.filename}</span>
                    </p>
                  ))}
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
