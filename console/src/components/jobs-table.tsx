/** The Jobs table: one row per job, its label linked to the job's page. */
import { Link } from '../router';
import { creditsOf, durationText, enginesOf, jobLabel, operationsOf, type JobView } from '../jobs-model';

export function When({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <>—</>;
  return <time dateTime={iso}>{new Date(iso).toLocaleString()}</time>;
}

export function JobsTable({ jobs, busy }: { jobs: JobView[]; busy: boolean }) {
  return (
    <table aria-label="Jobs" class="jobs" aria-busy={busy}>
      <thead>
        <tr>
          <th scope="col">Job</th>
          <th scope="col">Status</th>
          <th scope="col">Operations</th>
          <th scope="col">Engines</th>
          <th scope="col">Created</th>
          <th scope="col">Duration</th>
          <th scope="col">Credits</th>
        </tr>
      </thead>
      <tbody>
        {jobs.map((job) => (
          <tr key={job.id}>
            <th scope="row">
              <Link to={`jobs/${job.id}`}>{jobLabel(job)}</Link>
            </th>
            <td class={`status-${job.status}`}>{job.status}</td>
            <td>{operationsOf(job).join(', ')}</td>
            <td>{enginesOf(job).join(', ') || '—'}</td>
            <td>
              <When iso={job.created_at} />
            </td>
            <td>{durationText(job)}</td>
            <td>{creditsOf(job) ?? '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
