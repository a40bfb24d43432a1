/**
 * Usage: the last 30 days of GET /v2/users/me/usage as a bar chart of credits per day (SVG drawn here,
 * one bar per day, each with a <title>), the totals, and the same days as a table for screen readers
 * and anyone who prefers numbers.
 */
import { apiData } from '../api';
import { chartGeometry, dayWords, type UsageDayView } from '../usage-bars';
import { AccountSection, ItemsTable, useLoaded } from './account-shared';

interface UsageReport {
  from: string;
  to: string;
  days: UsageDayView[];
  totals: { credits: number; tasks: number; failed: number };
}

function Chart({ report }: { report: UsageReport }) {
  const g = chartGeometry(report.days);
  return (
    <svg class="usage-chart" viewBox={`0 0 ${g.width} ${g.height}`} role="img" aria-labelledby="usage-chart-title" data-days={report.days.length}>
      <title id="usage-chart-title">
        Credits per day from {report.from} to {report.to}: {report.totals.credits} credits in all
      </title>
      {g.ticks.map((t) => (
        <g key={t.value} class="tick">
          <line x1={g.plot.left} x2={g.plot.right} y1={t.y} y2={t.y} />
          <text x={g.plot.left - 6} y={t.y + 4} text-anchor="end">
            {t.value}
          </text>
        </g>
      ))}
      {g.bars.map((bar) => (
        <rect key={bar.date} class="bar" x={bar.x} y={bar.y} width={bar.width} height={bar.height} data-date={bar.date}>
          <title>{bar.title}</title>
        </rect>
      ))}
      <text class="axis-label" x={g.plot.left} y={g.height - 8}>
        {report.from}
      </text>
      <text class="axis-label" x={g.plot.right} y={g.height - 8} text-anchor="end">
        {report.to}
      </text>
    </svg>
  );
}

export function AccountUsage() {
  const { data: report, error } = useLoaded(() => apiData<UsageReport>('GET', '/v2/users/me/usage'));
  return (
    <AccountSection id="usage" title="Usage" error={error}>
      {report && (
        <>
          <p>
            Last 30 days: <strong>{report.totals.credits}</strong> credits, <strong>{report.totals.tasks}</strong> tasks
            {report.totals.failed ? `, ${report.totals.failed} failed` : ''}.
          </p>
          <Chart report={report} />
          <details>
            <summary>The days as a table</summary>
            <ItemsTable
              items={report.days}
              label="Usage per day"
              columns={['Day', 'Credits', 'Tasks', 'Failed']}
              row={(day) => (
                <tr key={day.date} title={dayWords(day)}>
                  <th scope="row">{day.date}</th>
                  <td>{day.credits}</td>
                  <td>{day.tasks}</td>
                  <td>{day.failed}</td>
                </tr>
              )}
            />
          </details>
        </>
      )}
    </AccountSection>
  );
}
