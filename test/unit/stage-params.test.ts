/**
 * The stage parameters of serverless.yml (`params.default`) and docs/operating/configuration.md's table
 * and figures agree: every parameter documented with its default, each used where the table says, and
 * the wait figures (reservations, what they leave, waits per second) computed from the defaults.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const yml = readFileSync('serverless.yml', 'utf8');
const service = parse(yml, { merge: true, maxAliasCount: -1 }) as {
  params: { default: Record<string, number> };
  functions: Record<string, { reservedConcurrency?: string; environment?: Record<string, string>; events?: Array<{ sqs?: { arn: unknown; maximumConcurrency?: unknown } }> }>;
  provider: { environment: Record<string, string> };
};
const page = readFileSync('docs/operating/configuration.md', 'utf8');
const params = service.params.default;

/** The table's rows: parameter → default as written. */
const documented = new Map([...page.matchAll(/^\| `([a-zA-Z]+)` \| ([0-9,]+) \|/gm)].map((m) => [m[1]!, Number(m[2]!.replace(/,/g, ''))]));
const envDefault = (name: string) => Number(/'(\d+)'\}$/.exec(service.provider.environment[name]!)?.[1]);

describe('the stage parameters', () => {
  it('are all documented with their defaults', () => {
    expect(Object.fromEntries(documented)).toEqual(params);
  });

  it('set each queue consumer cap, the rate limit and the waits, as the table says', () => {
    const caps = Object.values(service.functions).flatMap((f) => (f.events ?? []).map((e) => e.sqs?.maximumConcurrency).filter((c) => typeof c === 'string'));
    for (const name of Object.keys(params).filter((p) => p.endsWith('Concurrency') && p !== 'waitConcurrency')) expect(caps).toContain(`\${param:${name}}`);
    expect(service.provider.environment.RATE_LIMIT).toContain('${param:rateLimit}');
    const waits = Object.entries(service.functions).filter(([, f]) => f.reservedConcurrency === '${param:waitConcurrency}');
    expect(waits.map(([name]) => name).sort()).toEqual(['jobsSyncCreate', 'jobsWait', 'signedUrlsRun', 'tasksWait']);
    for (const [, f] of waits) expect(f.environment?.WAIT_BUDGET).toContain('${param:waitBudget}');
  });

  it("gives the wait figures the page states, from the defaults", () => {
    const waits = Object.values(service.functions).filter((f) => f.reservedConcurrency === '${param:waitConcurrency}').length;
    const reserved = waits * params.waitConcurrency!;
    expect(page).toContain(`${waits} × ${params.waitConcurrency} = ${reserved}`);
    expect(page).toContain(`keep ${1000 - reserved} for`);
    expect(page).toContain(`The budget (${params.waitBudget}) stays below`);
    const holdSeconds = envDefault('SYNC_MAX_WAIT_SECONDS');
    expect(page).toContain(`up to \`SYNC_MAX_WAIT_SECONDS\`, ${holdSeconds}): ${params.waitBudget! / holdSeconds}/s`);
    expect(page).toContain(`${params.waitBudget}/s when jobs end within a second`);
    expect(page).toContain(`${params.rateLimit} a minute: ${params.rateLimit! / envDefault('RATE_LIMIT_WINDOW_SECONDS')} requests/s per key`);
    expect(params.waitBudget).toBeLessThan(params.waitConcurrency!);
  });
});
