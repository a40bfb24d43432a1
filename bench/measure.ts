/** A small closed-loop load generator: N requests, C at a time; reports throughput and latency percentiles. */

export interface Result {
  name: string;
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
}

export async function measure(
  name: string,
  once: () => Promise<void>,
  opts: { requests: number; concurrency: number; warmup?: number },
): Promise<Result> {
  for (let i = 0; i < (opts.warmup ?? 20); i++) await once();
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < opts.requests) {
      next++;
      const t = performance.now();
      await once();
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { name, requests: opts.requests, seconds, rps: opts.requests / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/** The value below which `p` percent of `xs` lie (nearest rank; NaN when empty). */
export function percentile(xs: number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

export const median = (xs: number[]): number => percentile(xs, 50);

export function table(rows: Result[]): string {
  const head = ['scenario', 'requests', 'req/s', 'p50 ms', 'p99 ms'];
  const body = rows.map((r) => [r.name, String(r.requests), r.rps.toFixed(0), r.p50.toFixed(2), r.p99.toFixed(2)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), ...body.map(line)].join('\n');
}
