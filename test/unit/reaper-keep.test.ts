/**
 * What an engine function's reaper leaves in /tmp for its next task (lib/engines/core/reaper.ts
 * `keep`): the binaries unpacked from its zip, as regular files, and nothing else, not even beside them.
 * The processes' part of the reaper is tested in a pid namespace of its own (test/security/engine-reaper.test.ts);
 * here the process list is an empty folder, so nothing is killed.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { reap } from '#lib/engines/core/reaper.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'reaper-keep-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every file and folder below `root`, relative to it. */
const tree = (root: string): string[] =>
  readdirSync(root, { withFileTypes: true }).flatMap((e) => [e.name, ...(e.isDirectory() ? tree(path.join(root, e.name)).map((n) => `${e.name}/${n}`) : [])]).sort();

it('leaves the kept files and the folders to them, and removes everything else, beside them too', async () => {
  const tmp = path.join(dir, 'tmp');
  const tools = path.join(tmp, 'engine-tools-1', 'ffprobe-5.1');
  mkdirSync(tools, { recursive: true });
  mkdirSync(path.join(tmp, 'engine-abc', 'deeper'), { recursive: true });
  writeFileSync(path.join(tools, 'ffprobe'), 'the binary');
  writeFileSync(path.join(tools, 'ffprobe.1.abc.partial'), 'half');
  writeFileSync(path.join(tools, 'planted'), 'x');
  writeFileSync(path.join(tmp, 'engine-tools-1', 'planted'), 'x');
  writeFileSync(path.join(tmp, 'engine-abc', 'deeper', 'file'), 'x');
  writeFileSync(path.join(tmp, 'left-for-next-task.txt'), 'x');
  // A kept name that is a link: not the file unpacked, removed.
  mkdirSync(path.join(tmp, 'engine-tools-2'));
  symlinkSync(path.join(tmp, 'left-for-next-task.txt'), path.join(tmp, 'engine-tools-2', 'ffprobe'));
  const procDir = path.join(dir, 'no-processes');
  mkdirSync(procDir);

  const reaped = await reap({ tmpDir: tmp, procDir, keep: [path.join(tools, 'ffprobe'), path.join(tmp, 'engine-tools-2', 'ffprobe'), path.join(tmp, 'absent', 'ffprobe')] });
  expect(tree(tmp)).toEqual(['engine-tools-1', 'engine-tools-1/ffprobe-5.1', 'engine-tools-1/ffprobe-5.1/ffprobe', 'engine-tools-2']);
  expect(reaped.removed).toBe(6);
});

it('empties the folder when nothing is kept', async () => {
  const tmp = path.join(dir, 'tmp2');
  mkdirSync(path.join(tmp, 'engine-tools-1', 'ffprobe-5.1'), { recursive: true });
  writeFileSync(path.join(tmp, 'engine-tools-1', 'ffprobe-5.1', 'ffprobe'), 'the binary');
  const procDir = path.join(dir, 'no-processes-2');
  mkdirSync(procDir);
  await reap({ tmpDir: tmp, procDir });
  expect(readdirSync(tmp)).toEqual([]);
});
