/**
 * `npm run ci:capacity` as CI runs it (a process of its own, hence this tier): on a copy of the fixture
 * package (test/fixtures/capacity/) it passes on the template the page was made from and fails once a
 * queue consumer's cap changes. The model itself is tested in test/unit/capacity.test.ts.
 */
import { execFile } from 'node:child_process';
import { cp, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CALLS, copiedPackage, editTemplate, NESTED, PAGE, SERVICE } from '../support/capacity-fixture.js';

let dir: string;
beforeEach(async () => {
  dir = await copiedPackage();
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const edit = (file: string, change: (template: any) => void) => editTemplate(dir, file, change);

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

