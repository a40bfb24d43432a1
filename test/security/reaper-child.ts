/**
 * Run by engine-reaper.test.ts inside a pid namespace of its own (bubblewrap), standing for an engine
 * function after a task: leaves a detached grandchild, a child, and files (one in a folder it cannot
 * write), reaps, and prints what is left as JSON.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { reap } from '#lib/engines/core/reaper.js';

const tmpDir = process.argv[2]!;
writeFileSync(path.join(tmpDir, 'left-for-next-task.txt'), 'planted');
mkdirSync(path.join(tmpDir, 'nested', 'deeper'), { recursive: true });
writeFileSync(path.join(tmpDir, 'nested', 'deeper', 'file'), 'x');
mkdirSync(path.join(tmpDir, 'locked'));
writeFileSync(path.join(tmpDir, 'locked', 'file'), 'x');
chmodSync(path.join(tmpDir, 'locked'), 0o500);

// A grandchild in a session of its own whose parent is gone: what an escaped tool leaves running.
const grandchild = Number(execFileSync('sh', ['-c', 'setsid sleep 300 >/dev/null 2>&1 & echo $!'], { encoding: 'utf8' }).trim());
const child = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
child.unref();

const state = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[0];
  } catch {
    return 'gone';
  }
};
const before = { grandchild: state(grandchild), child: state(child.pid!) };
const reaped = await reap({ tmpDir });
const parent = process.ppid;
console.log(JSON.stringify({ before, after: { grandchild: state(grandchild), child: state(child.pid!), parent: state(parent) }, left: readdirSync(tmpDir), reaped }));
