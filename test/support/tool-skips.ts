/**
 * Vitest global setup: gives the tests a folder to record the tests they skipped (or, under
 * REQUIRE_ALL_TOOLS=1, failed) for lack of a tool (test/support/requires.ts), and at the end of the
 * run prints one summary line per reason. A global setup rather than a reporter, so the summary
 * prints whichever reporter the run uses.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import type { SkipRecord } from './requires.js';

/** The summary lines for a run's records (empty when nothing was skipped for lack of a tool). */
export function skipSummary(records: readonly SkipRecord[]): string[] {
  if (records.length === 0) return [];
  const failed = records.filter((r) => r.failed);
  const skipped = records.filter((r) => !r.failed && !r.leftOut);
  const leftOut = records.filter((r) => r.leftOut);
  const lines: string[] = [];
  for (const [group, verb] of [
    [skipped, 'skipped'],
    [failed, 'failed (REQUIRE_ALL_TOOLS=1)'],
  ] as const) {
    if (group.length === 0) continue;
    const byReason = new Map<string, SkipRecord[]>();
    for (const r of group) byReason.set(r.reason, [...(byReason.get(r.reason) ?? []), r]);
    const tests = (n: number) => `${n} test${n === 1 ? '' : 's'}`;
    const head =
      verb === 'skipped'
        ? `${tests(group.length)} skipped for lack of a tool (REQUIRE_ALL_TOOLS=1 makes them fail):`
        : `${tests(group.length)} failed for lack of a tool (REQUIRE_ALL_TOOLS=1):`;
    lines.push(head);
    for (const [reason, rs] of byReason) {
      const files = [...new Set(rs.map((r) => r.file))].join(', ');
      lines.push(`  ${tests(rs.length)} in ${files}: ${reason}`);
    }
  }
  if (leftOut.length) {
    lines.push('Not collected: tests of a system build this machine lacks, beside the npm-shipped build they tested (REQUIRE_ALL_TOOLS=1 runs them):');
    const byReason = new Map<string, SkipRecord[]>();
    for (const r of leftOut) byReason.set(r.reason, [...(byReason.get(r.reason) ?? []), r]);
    for (const [reason, rs] of byReason) {
      lines.push(`  ${rs.map((r) => `"${r.test}" (${r.file})`).join(', ')}: ${reason}`);
    }
  }
  return lines;
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(path.join(tmpdir(), 'tool-skips-'));
  project.provide('toolSkipsDir', dir);
  return () => {
    const records: SkipRecord[] = [];
    for (const file of readdirSync(dir)) {
      for (const line of readFileSync(path.join(dir, file), 'utf8').split('\n')) {
        if (line.trim()) records.push(JSON.parse(line) as SkipRecord);
      }
    }
    rmSync(dir, { recursive: true, force: true });
    const lines = skipSummary(records);
    if (lines.length) process.stdout.write(`\n${lines.join('\n')}\n`);
  };
}
