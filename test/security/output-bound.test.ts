/**
 * A task's engine writes a bounded amount (issue 25, finding 4: one `command` task wrote and stored
 * 1,026,432,000 bytes in 26 s). TASK_MAX_OUTPUT_BYTES bounds what the work folder holds beyond its
 * inputs, while the tool runs: one file cannot grow past it (RLIMIT_FSIZE, prlimit) and the folder's
 * total is watched, the tool's process group killed when it passes. A task past the bound ends in
 * `error` with OUTPUT_TOO_LARGE naming the setting; nothing of it is stored, and its work folder is gone.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { confinement } from '#lib/engines/core/confine.js';
import { findExecutable } from '#lib/engines/core/probe.js';
import { runTool } from '#lib/engines/core/tool.js';
import { taskPrefix } from '#lib/file-api/operations/framework/types.js';
import type { TaskRecord } from '#lib/file-api/records/model.js';
import { newEngineRegistry } from '#lib/file-api/operations/engines.js';
import { commandOffered, engine, requires } from '../support/requires.js';
import { base64, startEngineHarness, type Harness } from '../integration/engines-harness.js';

const MiB = 1024 * 1024;
const media = requires(engine('ffmpeg'));
/** The command operation, offered only fully confined (bubblewrap). */
const commands = requires(engine('ffmpeg'), commandOffered());

let h: Harness;
beforeAll(async () => {
  h = await startEngineHarness({ TASK_MAX_OUTPUT_BYTES: String(MiB) });
});
afterAll(() => h?.close());

/** Noise compresses badly: a PNG of it stays about as large as its pixels (3 bytes each) at any size. */
const noisePng = (side: number) => sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } }).png().toBuffer();

/** Ten seconds of a stereo 48 kHz tone in AAC (163 KB): as WAV, 1.9 MB. */
function tone(): Buffer {
  const ffmpegPath = newEngineRegistry(parseEngineConfig(process.env)).installation('ffmpeg').versions[0]!.executable!;
  const dir = mkdtempSync(path.join(tmpdir(), 'tone-'));
  try {
    const out = path.join(dir, 'tone.m4a');
    execFileSync(ffmpegPath, ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=10:sample_rate=48000', '-ac', '2', '-c:a', 'aac', out]);
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The task ended past the bound, stored nothing, and left no work folder behind. */
async function expectStopped(task: TaskRecord | undefined) {
  expect(task).toMatchObject({ status: 'error', code: 'OUTPUT_TOO_LARGE' });
  expect(task!.message).toContain('TASK_MAX_OUTPUT_BYTES');
  expect(task!.result?.files ?? []).toEqual([]);
  expect(await h.files.files.list(taskPrefix(task!.id))).toEqual([]);
  expect(readdirSync(h.config.ENGINE_TMP_DIR).filter((f) => f.startsWith('engine-'))).toEqual([]);
}

const ffmpeg = (args: string) => ({ operation: 'command', engine: 'ffmpeg', command: 'ffmpeg', arguments: args });

describe('TASK_MAX_OUTPUT_BYTES on tasks (1 MiB here)', () => {
  commands.it('stops a command writing one huge file', async () => {
    const t = await h.run({ gen: ffmpeg('-f lavfi -i testsrc=s=1280x720:r=25 -t 4 -f rawvideo /output/huge.raw') });
    await expectStopped(t.gen);
  });

  commands.it('stops a command whose files, each under the bound, add up past it', async () => {
    const part = (n: number) => `-frames:v 2 -f rawvideo /output/part${n}.raw`;
    const t = await h.run({ gen: ffmpeg(`-f lavfi -i testsrc=s=640x480:r=10 ${part(1)} ${part(2)} ${part(3)} ${part(4)}`) });
    await expectStopped(t.gen);
  });

  media.it('stops a convert whose output (FFmpeg: AAC to WAV) would pass the bound', async () => {
    const t = await h.run({ in: base64(tone(), 'tone.m4a'), wav: { operation: 'convert', input: 'in', output_format: 'wav' } });
    expect(t.in).toMatchObject({ status: 'finished' });
    await expectStopped(t.wav);
  });

  it('stops an in-process convert (sharp) whose output would pass the bound', async () => {
    const t = await h.run({
      in: base64(await noisePng(300), 'noise.png'),
      big: { operation: 'convert', input: 'in', output_format: 'png', width: 1400, height: 1400, fit: 'scale' },
    });
    expect(t.in).toMatchObject({ status: 'finished' });
    await expectStopped(t.big);
  });

  it('stores none of a task’s files when they pass the bound only together (one convert per input file)', async () => {
    const inputs = await Promise.all([1, 2, 3, 4].map(() => noisePng(400)));
    expect(inputs.every((b) => b.length < MiB)).toBe(true);
    const t = await h.run({
      a: base64(inputs[0]!, 'a.png'),
      b: base64(inputs[1]!, 'b.png'),
      c: base64(inputs[2]!, 'c.png'),
      d: base64(inputs[3]!, 'd.png'),
      all: { operation: 'convert', input: ['a', 'b', 'c', 'd'], output_format: 'png' },
    });
    await expectStopped(t.all);
  });

  it('still finishes a task within the bound', async () => {
    const t = await h.run({ in: base64(await noisePng(64), 'small.png'), jpg: { operation: 'convert', input: 'in', output_format: 'jpg' } });
    expect(t.jpg).toMatchObject({ status: 'finished' });
  });
});

describe('the bound while a tool runs (runTool)', () => {
  // Its real location: a `node` on PATH may be a link from a folder the sandbox does not hold.
  const node = realpathSync(findExecutable('node') ?? process.execPath);
  const config = parseEngineConfig({ ...process.env, TASK_MAX_OUTPUT_BYTES: String(8 * MiB) });
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'output-bound-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A tool that writes (one file or many), then leaves `done`; it would write 256 MiB in all. */
  const writer = (many: boolean) => `
    const fs = require('node:fs');
    const chunk = Buffer.alloc(1024 * 1024, 7);
    (async () => {
      for (let i = 0; i < 256; i++) {
        if (${many}) fs.writeFileSync('part-' + i + '.bin', chunk);
        else fs.appendFileSync('one.bin', chunk);
        if (${many}) await new Promise((r) => setTimeout(r, 20));
      }
      fs.writeFileSync('done', '');
    })();`;

  for (const many of [false, true]) {
    it(`kills a tool writing ${many ? 'many files' : 'one file'} past the bound before it is done, and says which setting`, async () => {
      const { OutputBound } = await import('#lib/engines/core/output-bound.js');
      const work = mkdtempSync(path.join(dir, 'engine-'));
      const bound = new OutputBound(work, config, new AbortController().signal);
      const err = await bound
        .during(() => runTool(node, ['-e', writer(many)], { cwd: work, workDir: work, confinement: confinement(config), signal: bound.signal, maxFileBytes: bound.maxFileBytes }))
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toMatchObject({ code: 'OUTPUT_TOO_LARGE' });
      expect((err as Error).message).toContain('TASK_MAX_OUTPUT_BYTES');
      expect(existsSync(path.join(work, 'done'))).toBe(false);
      const written = readdirSync(work).filter((f) => f.endsWith('.bin')).map((f) => statSync(path.join(work, f)).size);
      expect(Math.max(...written)).toBeLessThanOrEqual(8 * MiB + 1);
      expect(written.reduce((a, b) => a + b, 0)).toBeLessThan(256 * MiB);
    });
  }
});
