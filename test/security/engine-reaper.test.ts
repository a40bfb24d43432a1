/**
 * The engine function's reaper (lib/engines/core/reaper.ts): after a task, no other process and no file is
 * left for the next task of the same execution environment, and the function's own process and its
 * ancestors live on. Run in a pid namespace of its own (bubblewrap), as a Lambda execution environment
 * is: on this shared machine the reaper would otherwise kill the user's other processes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect } from 'vitest';
import { requires, tool } from '../support/requires.js';

const namespaced = requires(tool('bwrap'));
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) {
    spawnSync('chmod', ['-R', 'u+rwx', dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The child script in a new pid namespace, under a shell that says whether it outlived the reap. */
function runReaper() {
  const tmp = mkdtempSync(path.join(tmpdir(), 'reaper-tmp-'));
  dirs.push(tmp);
  const child = path.join(import.meta.dirname, 'reaper-child.ts');
  const script = `"${process.execPath}" --import tsx "${child}" "${tmp}"; echo "parent lives: $?"`;
  const res = spawnSync('bwrap', ['--unshare-pid', '--dev-bind', '/', '/', '--proc', '/proc', '--chdir', process.cwd(), 'sh', '-c', script], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  const lines = res.stdout.trim().split('\n');
  return { report: JSON.parse(lines[0]!) as Record<string, Record<string, unknown>>, tail: lines.at(-1), stderr: res.stderr };
}

namespaced.describe('the engine reaper', () => {
  namespaced.it('kills a detached grandchild and a child, and never itself or its parent', () => {
    const { report, tail, stderr } = runReaper();
    expect(report.before!.grandchild, stderr).not.toMatch(/^(gone|Z)$/);
    expect(report.before!.child).not.toMatch(/^(gone|Z)$/);
    expect(['gone', 'Z']).toContain(report.after!.grandchild);
    expect(['gone', 'Z']).toContain(report.after!.child);
    expect(report.after!.parent).not.toMatch(/^(gone|Z)$/);
    expect(report.reaped!.killed).toBeGreaterThanOrEqual(2);
    // The reaping process printed, and its parent shell went on after it had exited normally.
    expect(tail).toBe('parent lives: 0');
  });

  namespaced.it('empties the temporary folder, a folder it may not write included', () => {
    const { report } = runReaper();
    expect(report.left).toEqual([]);
    expect(report.reaped!.removed).toBe(3);
  });
});
