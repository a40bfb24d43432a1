/**
 * Jobs: the user's jobs, newest first, a page at a time (GET /v2/jobs?include=tasks), filtered by
 * status, kept current by the user's job and task events (or a poll where the stage has none). Changes
 * are read out by the summary line, not by the whole table.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, currentConfig } from '../api';
import { JobsTable } from '../components/jobs-table';
import { JOB_EVENTS, TASK_EVENTS, useLive } from '../jobs-live';
import { applyJobEvent, applyTaskEvent, changeOf, STATUSES, summaryOf, type JobView, type Status, type TaskView } from '../jobs-model';
import '../jobs.css';

const PER_PAGE = 25;

interface ListAnswer {
  data: JobView[];
  links: { prev: string | null; next: string | null };
}

type Event = { job: JobView } | { task: TaskView };

export function JobsPage() {
  const user = currentConfig().user.id;
  const [status, setStatus] = useState<Status | ''>('');
  const [page, setPage] = useState(1);
  const [jobs, setJobs] = useState<JobView[]>();
  const [more, setMore] = useState({ prev: false, next: false });
  const [error, setError] = useState<string>();
  const [change, setChange] = useState<string>();
  const [loading, setLoading] = useState(true);
  // The list as last rendered, and events heard before the first answer (applied once it comes).
  const shown = useRef<JobView[] | undefined>(undefined);
  const early = useRef<Event[]>([]);
  const asked = useRef(0);
  const view = { status: status || undefined, firstPage: page === 1, limit: PER_PAGE };

  const apply = (event: Event) => {
    const before = shown.current;
    if (!before) {
      early.current.push(event);
      return;
    }
    let after: JobView[];
    if ('job' in event) {
      after = applyJobEvent(before, event.job, view);
      const now = after.find((j) => j.id === event.job.id);
      const said = now && changeOf(before.find((j) => j.id === event.job.id), now);
      if (said) setChange(said);
    } else after = applyTaskEvent(before, event.task);
    shown.current = after;
    setJobs(after);
  };

  const load = async () => {
    const mine = ++asked.current;
    const query = new URLSearchParams({ include: 'tasks', per_page: String(PER_PAGE), page: String(page) });
    if (status) query.set('filter[status]', status);
    try {
      const answer = await api<ListAnswer>('GET', `/v2/jobs?${query.toString()}`);
      if (mine !== asked.current) return;
      shown.current = answer.data;
      setMore({ prev: Boolean(answer.links.prev), next: Boolean(answer.links.next) });
      setError(undefined);
      setJobs(answer.data);
      setLoading(false);
      const heard = early.current.splice(0);
      heard.forEach(apply);
    } catch (err) {
      if (mine !== asked.current) return;
      setError(err instanceof ApiError ? err.message : 'The jobs could not be loaded.');
      setLoading(false);
    }
  };

  useEffect(() => {
    // The rows shown stay (marked busy) until the answer for the new filter or page replaces them.
    shown.current = undefined;
    early.current = [];
    setLoading(true);
    void load();
  }, [status, page]);

  useLive({
    channels: {
      [`private-user.${user}.jobs`]: { events: JOB_EVENTS, on: (data) => (data as { job?: JobView }).job && apply(data as { job: JobView }) },
      [`private-user.${user}.tasks`]: { events: TASK_EVENTS, on: (data) => (data as { task?: TaskView }).task && apply(data as { task: TaskView }) },
    },
    poll: () => void load(),
    everyMs: 3000,
    polling: true,
  });

  return (
    <section>
      <h1 tabIndex={-1}>Jobs</h1>
      <div class="jobs-tools">
        <div>
          <label for="jobs-status">Status</label>
          <select
            id="jobs-status"
            value={status}
            onChange={(e) => {
              setStatus(e.currentTarget.value as Status | '');
              setPage(1);
            }}
          >
            <option value="">All</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <p role="status" aria-live="polite" class="muted">
          {loading ? 'Loading jobs…' : jobs ? `${summaryOf(jobs)}${change ? ` ${change}` : ''}` : ''}
        </p>
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <JobsTable jobs={jobs ?? []} busy={loading} />
      {(more.prev || more.next) && (
        <nav aria-label="Pages of jobs" class="actions">
          <button type="button" class="secondary" disabled={!more.prev} onClick={() => setPage(page - 1)}>
            Newer jobs
          </button>
          <span class="muted">Page {page}</span>
          <button type="button" class="secondary" disabled={!more.next} onClick={() => setPage(page + 1)}>
            Older jobs
          </button>
        </nav>
      )}
    </section>
  );
}
