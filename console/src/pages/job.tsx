/**
 * A job's page: its tasks in their order, each with its progress, times, credits and message; the
 * export files; the job's JSON (payloads fetched only when asked); Retry, Cancel and Delete where the
 * API allows them. Kept current by the job's events (or a poll where the stage has none). A job the
 * API does not show this user (another user's, or none) is "No such job": the API decides.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, apiData, ApiError } from '../api';
import { Fact, TaskItem, TimeFacts, type TaskActions } from '../components/jobs-task';
import { When } from '../components/jobs-table';
import { JOB_EVENTS, TASK_EVENTS, useLive } from '../jobs-live';
import { creditsOf, downloadsOf, isEnded, jobJson, jobLabel, mergeJob, mergeTask, orderTasks, taskLabel, upsertTask, type JobView, type TaskView } from '../jobs-model';
import { navigate } from '../router';
import '../jobs.css';

const messageOf = (err: unknown) => (err instanceof ApiError ? err.message : 'The service could not be reached.');

/** A task made by Retry: not in the job (the API makes it on its own), followed on its own channel. */
function RetriedTask({ task, update }: { task: TaskView; update: (t: TaskView) => void }) {
  useLive({
    channels: { [`private-task.${task.id}`]: { events: TASK_EVENTS, on: (data) => (data as { task?: TaskView }).task && update((data as { task: TaskView }).task) } },
    poll: () => void apiData<TaskView>('GET', `/v2/tasks/${task.id}`).then(update, () => {}),
    everyMs: 2000,
    polling: !isEnded(task.status),
  });
  return <TaskItem task={task} heading="h4" />;
}

function DeleteJob({ id, busy, setBusy }: { id: string; busy: boolean; setBusy: (b: boolean) => void }) {
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<string>();
  const keep = useRef<HTMLButtonElement>(null);
  const start = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) keep.current?.focus();
  }, [asking]);
  const close = () => {
    setAsking(false);
    window.setTimeout(() => start.current?.focus());
  };
  const remove = async () => {
    setBusy(true);
    try {
      await api('DELETE', `/v2/jobs/${id}`);
      navigate('jobs');
    } catch (err) {
      setError(messageOf(err));
      setBusy(false);
    }
  };
  if (!asking) {
    return (
      <div class="actions">
        <button type="button" class="danger" ref={start} disabled={busy} onClick={() => setAsking(true)}>
          Delete job
        </button>
      </div>
    );
  }
  return (
    <div role="group" aria-labelledby="delete-job-question" class="confirm" onKeyDown={(e) => e.key === 'Escape' && close()}>
      <p id="delete-job-question">Delete this job, its tasks and their files? This cannot be undone.</p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="button" class="danger" disabled={busy} onClick={() => void remove()}>
          Yes, delete
        </button>
        <button type="button" class="secondary" ref={keep} disabled={busy} onClick={close}>
          Keep the job
        </button>
      </div>
    </div>
  );
}

export function JobPage({ id }: { id: string }) {
  const [job, setJob] = useState<JobView>();
  const [missing, setMissing] = useState(false);
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [retries, setRetries] = useState<TaskView[]>([]);
  const [showPayloads, setShowPayloads] = useState(false);
  const [payloads, setPayloads] = useState<Map<string, unknown>>();

  // The job shown now: an answer for the page's previous job (a quick move between jobs) is dropped.
  const shownId = useRef(id);
  shownId.current = id;
  const load = async () => {
    const asked = id;
    try {
      const fresh = await apiData<JobView>('GET', `/v2/jobs/${asked}`);
      if (asked !== shownId.current) return;
      setJob((old) => mergeJob(old, fresh));
      setError(undefined);
    } catch (err) {
      if (asked !== shownId.current) return;
      // 404: not this user's job, or none; 422: not even a job id. Either way there is no such job here.
      if (err instanceof ApiError && (err.status === 404 || err.status === 422)) setMissing(true);
      else setError(messageOf(err));
    }
  };

  useEffect(() => {
    setJob(undefined);
    setMissing(false);
    setRetries([]);
    setPayloads(undefined);
    setShowPayloads(false);
    void load();
  }, [id]);

  const onTask = (task: TaskView) => setJob((old) => old && { ...old, tasks: upsertTask(old.tasks ?? [], task) });
  useLive({
    channels: missing
      ? {}
      : {
          [`private-job.${id}`]: { events: JOB_EVENTS, on: (data) => (data as { job?: JobView }).job && setJob((old) => mergeJob(old, (data as { job: JobView }).job)) },
          [`private-job.${id}.tasks`]: { events: TASK_EVENTS, on: (data) => (data as { task?: TaskView }).task && onTask((data as { task: TaskView }).task) },
        },
    poll: () => void load(),
    everyMs: 2000,
    polling: !missing && (!job || !isEnded(job.status)),
  });

  useEffect(() => {
    if (!showPayloads || payloads) return;
    apiData<JobView>('GET', `/v2/jobs/${id}?include=payload`).then(
      (withPayloads) => id === shownId.current && setPayloads(new Map((withPayloads.tasks ?? []).map((t) => [t.id, t.payload]))),
      (err: unknown) => setError(messageOf(err)),
    );
  }, [showPayloads, payloads, id]);

  const act = async (what: string, task: TaskView, run: () => Promise<void>) => {
    setBusy(true);
    try {
      await run();
    } catch (err) {
      setError(`${what} ${taskLabel(task)}: ${messageOf(err)}`);
    } finally {
      setBusy(false);
    }
  };
  const actions: TaskActions = {
    busy,
    retry: (task) =>
      void act('Retry', task, async () => {
        const retried = await apiData<TaskView>('POST', `/v2/tasks/${task.id}/retry`);
        setRetries((all) => upsertTask(all, { ...retried, name: retried.name ?? `${taskLabel(task)} (retry)` }));
        setNotice(`${taskLabel(task)} is being retried as task ${retried.id}.`);
      }),
    cancel: (task) =>
      void act('Cancel', task, async () => {
        onTask(await apiData<TaskView>('POST', `/v2/tasks/${task.id}/cancel`));
        setNotice(`${taskLabel(task)} was cancelled.`);
      }),
  };

  if (missing) {
    return (
      <section>
        <h1 tabIndex={-1}>No such job</h1>
        <p>
          There is no job <code>{id}</code> in your account.
        </p>
      </section>
    );
  }
  if (!job) {
    return (
      <section>
        <h1 tabIndex={-1}>Job</h1>
        {error ? (
          <p role="alert" class="error">
            {error}
          </p>
        ) : (
          <p role="status">Loading the job…</p>
        )}
      </section>
    );
  }

  const tasks = orderTasks(job.tasks ?? []);
  const ended = tasks.filter((t) => isEnded(t.status)).length;
  const downloads = downloadsOf(tasks);
  return (
    <section>
      <h1 tabIndex={-1}>Job {jobLabel(job)}</h1>
      <p role="status" aria-live="polite">
        <span class={`status-${job.status}`}>Job {job.status}</span>: {ended} of {tasks.length} tasks ended.{notice ? ` ${notice}` : ''}
      </p>
      <dl class="task-facts">
        <Fact term="Created">
          <When iso={job.created_at} />
        </Fact>
        <TimeFacts item={job} />
        <Fact term="Credits">{creditsOf(job) ?? '—'}</Fact>
        <Fact term="Id">
          <code>{job.id}</code>
        </Fact>
      </dl>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {downloads.length > 0 && (
        <>
          <h2>Files</h2>
          <ul class="job-files">
            {downloads.map(({ task, file }) => (
              <li key={`${task.id} ${file.url}`}>
                <a href={file.url}>Download {file.filename}</a>
                {file.size !== undefined && <span class="muted"> ({file.size} bytes)</span>}
              </li>
            ))}
          </ul>
        </>
      )}
      <h2>Tasks</h2>
      <ol aria-label="Tasks" class="job-tasks">
        {tasks.map((task) => (
          <li key={task.id}>
            <TaskItem task={task} actions={actions} />
          </li>
        ))}
      </ol>
      {retries.length > 0 && (
        <>
          <h2>Retries</h2>
          <ul aria-label="Retries" class="job-tasks">
            {retries.map((task) => (
              <li key={task.id}>
                <RetriedTask task={task} update={(t) => setRetries((all) => all.map((r) => (r.id === t.id ? mergeTask(r, t) : r)))} />
              </li>
            ))}
          </ul>
        </>
      )}
      <h2>JSON</h2>
      <label class="inline">
        <input type="checkbox" checked={showPayloads} onChange={(e) => setShowPayloads(e.currentTarget.checked)} /> Show payloads
      </label>
      <pre role="region" aria-label="Job JSON" tabIndex={0}>
        {jobJson(job, showPayloads ? payloads : undefined)}
      </pre>
      <h2>Delete</h2>
      <DeleteJob id={job.id} busy={busy} setBusy={setBusy} />
    </section>
  );
}
