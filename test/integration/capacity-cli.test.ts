/**
 * `npm run ci:capacity` as CI runs it (a process of its own, hence this tier): on a copy of the fixture
 * package (test/fixtures/capacity/) it passes on the template the page was made from and fails once a
 * queue consumer's cap changes. The model itself is tested in test/unit/capacity.test.ts.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const FIXTURE = 'test/fixtures/capacity';
const CALLS = `${FIXTURE}/calls-per-job.json`;
const PAGE = `${FIXTURE}/capacity.md`;
const SERVICE = `${FIXTURE}/serverless.yml`;
const NESTED = 'cloudformation-template-consumers.json';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'capacity-'));
  await cp(`${FIXTURE}/package`, dir, { recursive: true });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function edit(file: string, change: (template: { Resources: Record<string, any> }) => void) {
  const template = JSON.parse(await readFile(path.join(dir, file), 'utf8'));
  change(template);
  await writeFile(path.join(dir, file), JSON.stringify(template));
}

describe('npm run ci:capacity (the command, --check)', () => {
  /** The command as CI runs it, on the copied package and a copy of the fixture page. */
  async function check(): Promise<{ code: number; stderr: string }> {
    const page = path.join(dir, 'capacity.md');
    await cp(PAGE, page);
    const args = ['--import', 'tsx', 'scripts/capacity/cli.ts', '--check', '--dir', dir, '--calls', CALLS, '--docs', page, '--service', SERVICE];
    return promisify(execFile)(process.execPath, args).then(
      ({ stderr }) => ({ code: 0, stderr }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
  }

  it('passes on the template the page was made from, and fails once a cap changes', async () => {
    expect((await check()).code).toBe(0);
    await edit(NESTED, (t) => (t.Resources.ImportStepEventSourceMappingSQSImportQueue.Properties.ScalingConfig.MaximumConcurrency = 20));
    const failed = await check();
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/generated block differs from the model/);
  });
});

