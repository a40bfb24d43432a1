/**
 * The goals of issues 17 and 28, for the end of `npm run bench`: each measured value beside its baseline
 * from the same run, the limit the goal derives from that baseline, the ratio, and whether the goal
 * is met. Built from the sections' results; a goal whose section did not run is not listed.
 *
 * One goal has no baseline in the run: "GraphQL through serverless-offline ≥ 3× today's req/s"
 * compares with the figure the issue recorded when it was filed (149 req/s on bare node:http), and
 * says so.
 */
import type { EngineResult } from './engines.js';
import type { GraphqlThroughputResult } from './graphql.js';
import type { LargeFileResult } from './large-file.js';
import type { PipelineResult } from './pipeline.js';
import type { CallsPerJob } from '../scripts/capacity/calls-per-job.js';

export interface Goal {
  /** The goal, in the issue's words. */
  goal: string;
  measured: number;
  unit: 'ms' | 'jobs/s' | 'req/s' | 'MiB' | 'calls' | 'invocations';
  /** What `measured` is compared with; `recorded` when the figure is not from this run. */
  baseline?: { what: string; value: number; recorded?: boolean };
  /** `measured` must be at most (≤), below (<) or at least (≥) this. */
  comparison: '≤' | '<' | '≥';
  limit: number;
  /** A further condition of the goal, false when it failed (e.g. the large file arrived damaged). */
  holds?: boolean;
  note?: string;
}

/** The issue's figure for the full-catalogue query on bare node:http when it was filed. */
export const RECORDED_GRAPHQL_RPS = 149;
/** "under 256 MB RSS per consumer", in Lambda's MB (MiB). */
const LARGE_FILE_RSS_MIB = 256;

/** A job's time against the bare work it wraps: at most `factor` times that, plus `slackMs`. */
function jobAgainstBare(goal: string, times: { jobMs: number; bareMs: number }, bare: string, factor: number, slackMs = 0): Goal {
  const baseline = { what: bare, value: times.bareMs };
  return { goal, measured: times.jobMs, unit: 'ms', baseline, comparison: '≤', limit: factor * times.bareMs + slackMs };
}

export function pipelineGoals(r: PipelineResult): Goal[] {
  return [
    jobAgainstBare('no-engine job (1 MB import/base64 → export/url) ≤ 3× bare put + presign', r.oneMegabyte, 'bare put + presign', 3),
    {
      goal: `${r.burst.jobs} small jobs at once ≥ 50 jobs/s`,
      measured: r.burst.jobsPerSecond,
      unit: 'jobs/s',
      comparison: '≥',
      limit: 50,
      holds: r.burst.finished === r.burst.jobs,
      note: `${r.burst.finished} of ${r.burst.jobs} finished` + (r.burst.failedWaits > 0 ? `, ${r.burst.failedWaits} failed waits repeated` : ''),
    },
  ];
}

/** Issue 28's budget for a no-engine job, create to download (bench/calls-per-job.ts). */
export function callGoals(calls: CallsPerJob): Goal[] {
  const job = calls.jobs['no-engine'];
  if (!job) return [];
  return [
    { goal: 'no-engine job, create → download: ≤ 25 state-store calls', measured: job.state.reads + job.state.writes, unit: 'calls', comparison: '≤', limit: 25 },
    { goal: 'no-engine job, create → download: ≤ 3 invocations', measured: Object.values(job.invocations).reduce((a, b) => a + b, 0), unit: 'invocations', comparison: '≤', limit: 3 },
  ];
}

export function engineGoals(r: EngineResult): Goal[] {
  return [
    jobAgainstBare('thumbnail job ≤ 3× bare sharp resize', r.thumbnail, 'bare sharp resize', 3),
    jobAgainstBare('capture-website job ≤ 1.3× bare puppeteer + 30 ms', r.capture, 'bare puppeteer goto + page.pdf', 1.3, 30),
  ];
}

export function graphqlGoals(r: GraphqlThroughputResult): Goal[] {
  const offlineAtLeast = (goal: string, baseline: NonNullable<Goal['baseline']>, factor: number): Goal => ({
    goal,
    measured: r.offline.rps,
    unit: 'req/s',
    baseline,
    comparison: '≥',
    limit: factor * baseline.value,
  });
  return [
    offlineAtLeast(
      'GraphQL full catalogue via serverless-offline ≥ 0.8× the same yoga on bare node:http',
      { what: 'same yoga, bare node:http', value: r.bare.rps },
      0.8,
    ),
    offlineAtLeast(
      "GraphQL full catalogue via serverless-offline ≥ 3× today's req/s",
      { what: 'bare node:http, recorded in the issue', value: RECORDED_GRAPHQL_RPS, recorded: true },
      3,
    ),
  ];
}

export function largeFileGoals(r: LargeFileResult): Goal[] {
  return [
    {
      goal: `${r.mib === 1024 ? '1 GiB' : `${r.mib} MiB`} streaming run < ${LARGE_FILE_RSS_MIB} MiB RSS per consumer`,
      measured: Math.max(r.importPeakRssMiB, r.exportPeakRssMiB),
      unit: 'MiB',
      comparison: '<',
      limit: LARGE_FILE_RSS_MIB,
      holds: r.intact,
      note:
        `import ${r.importPeakRssMiB.toFixed(0)}, export ${r.exportPeakRssMiB.toFixed(0)} MiB; ${r.intact ? 'intact' : 'NOT intact'}; ` +
        `${(r.mib / r.seconds).toFixed(0)} MiB/s (no speed recorded to compare)`,
    },
  ];
}

const figure = (value: number, unit: Goal['unit']) => `${value.toFixed(value < 100 && unit !== 'calls' && unit !== 'invocations' ? 1 : 0)} ${unit}`;

function isMet(g: Goal): boolean {
  const within = g.comparison === '≤' ? g.measured <= g.limit : g.comparison === '<' ? g.measured < g.limit : g.measured >= g.limit;
  return within && g.holds !== false;
}

/** The goals as a table; a figure recorded outside this run is marked (†). */
export function goalLines(goals: Goal[]): string[] {
  const head = ['goal', 'measured', 'baseline', 'limit', 'ratio', 'verdict'];
  const body = goals.map((g) => [
    g.goal,
    figure(g.measured, g.unit),
    g.baseline ? `${figure(g.baseline.value, g.unit)}${g.baseline.recorded ? '†' : ''} (${g.baseline.what})` : '-',
    `${g.comparison} ${figure(g.limit, g.unit)}`,
    g.baseline ? `${(g.measured / g.baseline.value).toFixed(2)}x` : '-',
    `${isMet(g) ? 'met' : 'NOT met'}${g.baseline?.recorded ? '†' : ''}${g.note ? `; ${g.note}` : ''}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 || i === 2 || i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  const lines = ['goals of issues 17 and 28 (baselines from this run):', line(head), ...body.map(line)];
  if (goals.some((g) => g.baseline?.recorded)) lines.push('† a figure recorded in the issue when it was filed, not measured in this run');
  return lines;
}
