/**
 * The sandbox gates every way bytes get in (issue 25, finding 3). The sandbox runs at 0 credits on files
 * its user whitelisted by MD5, so a sandbox task may only work on what a gated import brought in: every
 * operation that makes or fetches content without an import (capture-website, watermark without a file
 * or with an image URL, command with lavfi or source filters, …) is refused when the job or task is
 * created, a 422 with SANDBOX_OPERATION_NOT_ALLOWED naming the field, and nothing is stored. The same
 * requests live are accepted. Whitelisted work still runs at 0 credits (test/integration/sandbox.test.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '#lib/kernel/errors.js';
import { createLogger } from '#lib/kernel/log.js';
import { OPERATIONS } from '#lib/file-api/operations/index.js';
import { planJob, validateTask } from '#lib/file-api/tasks/plan.js';
import type { TaskService } from '#lib/file-api/tasks/service.js';
import type { TaskStore } from '#lib/file-api/records/store.js';
import { useTaskBackends, wireTasks } from '../support/task-harness.js';
import { commandOffered, engine, requires } from '../support/requires.js';

const log = createLogger({}, { level: 'silent' });
const backends = useTaskBackends();
let store: TaskStore;
let service: TaskService;
beforeAll(() => {
  ({ store, service } = wireTasks(backends, { log }));
});

let lastUser = 500;
const sandbox = { sandbox: true };
/** Jobs with a command task are created only where command is offered (fully confined: bubblewrap). */
const commands = requires(commandOffered());
/** A whitelisted-looking import the other tasks can take as input (its file is checked when it runs). */
const importTask = { operation: 'import/raw', file: 'bytes', filename: 'in.mp4' };
const imageImport = { operation: 'import/raw', file: 'png', filename: 'logo.png' };

/** The refusal of a job in the sandbox: a 422 with the sandbox code naming the field; the same job live is accepted. */
async function expectJobRefused(tasks: Record<string, unknown>, field: string) {
  const user = ++lastUser;
  const err = await service.createJob(user, planJob({ tasks }), undefined, sandbox).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  const api = err as ApiError;
  expect(api.reason).toBe('INVALID_ARGUMENT');
  expect(api.code).toBe('SANDBOX_OPERATION_NOT_ALLOWED');
  expect(Object.keys(api.fields ?? {})).toContain(field);
  expect(api.fields![field]!.join(' ')).toMatch(/sandbox/i);
  // Nothing was stored for the refused job.
  expect((await store.listJobs(user, { limit: 10 }, true)).items).toEqual([]);
  expect((await store.listTasks(user, { limit: 10 }, true)).items).toEqual([]);
  // Live, the same job is created (the sandbox is what refuses it).
  const live = await service.createJob(user, planJob({ tasks }), undefined, {});
  expect(live.job.sandbox).toBeUndefined();
}

/** The same for a standalone task (`input` ids of sandbox tasks made first). */
async function expectTaskRefused(operation: string, body: Record<string, unknown>, field: string, inputs: string[] = [], user = ++lastUser) {
  const errors: Record<string, string[]> = {};
  const checked = validateTask({ ...body, ...(inputs.length ? { input: inputs } : {}) }, '', errors, operation);
  expect(errors).toEqual({});
  const err = await service.createTask(user, checked!.spec, checked!.payload, checked!.inputs, sandbox).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toMatchObject({ reason: 'INVALID_ARGUMENT', code: 'SANDBOX_OPERATION_NOT_ALLOWED' });
  expect(Object.keys((err as ApiError).fields ?? {})).toContain(field);
}

describe('capture-website in the sandbox', () => {
  it('refuses a capture to PNG', () =>
    expectJobRefused({ page: { operation: 'capture-website', url: 'https://example.com/', output_format: 'png' } }, 'tasks.page.operation'));
  it('refuses a capture to PDF followed by an export', () =>
    expectJobRefused(
      {
        page: { operation: 'capture-website', url: 'https://example.com/big', output_format: 'pdf' },
        out: { operation: 'export/url', input: 'page' },
      },
      'tasks.page.operation',
    ));
  it('refuses a standalone capture task', () => expectTaskRefused('capture-website', { url: 'https://example.com/', output_format: 'jpg' }, 'operation'));
});

describe('watermark that makes its own file in the sandbox', () => {
  it('refuses a text watermark without input', () => expectJobRefused({ wm: { operation: 'watermark', text: 'free', font_size: 2000 } }, 'tasks.wm.input'));
  it('refuses a watermark whose only input is its image', () =>
    expectJobRefused({ logo: imageImport, wm: { operation: 'watermark', input: 'logo', image: 'logo', image_width: 10000 } }, 'tasks.wm.input'));
  it('refuses a standalone text watermark', () => expectTaskRefused('watermark', { text: 'free' }, 'input'));
});

describe('watermark images fetched from a URL in the sandbox', () => {
  it('refuses an http image on a whitelisted file', () =>
    expectJobRefused({ in: imageImport, wm: { operation: 'watermark', input: 'in', image: 'http://example.com/huge.png' } }, 'tasks.wm.image'));
  it('refuses an HTTPS image in capitals on a whitelisted file', () =>
    expectJobRefused({ in: imageImport, wm: { operation: 'watermark', input: ['in'], image: 'HTTPS://example.com/x.png', text: 'a' } }, 'tasks.wm.image'));
  it('refuses a standalone watermark with an image URL', async () => {
    const user = ++lastUser;
    const { tasks } = await service.createJob(user, planJob({ tasks: { in: imageImport } }), undefined, sandbox);
    await expectTaskRefused('watermark', { image: 'https://example.com/x.png' }, 'image', [tasks[0]!.id], user);
  });
});

// Live, the same command must be accepted: where command is offered (fully confined) only.
commands.describe('command sources in the sandbox', () => {
  const cmd = (args: string, input?: string) => ({ operation: 'command', engine: 'ffmpeg', command: 'ffmpeg', arguments: args, ...(input ? { input } : {}) });
  it('refuses a -f lavfi source without input', () =>
    expectJobRefused({ gen: cmd('-f lavfi -i testsrc=size=7680x4320:rate=60 -t 600 /output/big.mp4') }, 'tasks.gen.arguments'));
  it('refuses a -f lavfi source beside a whitelisted input', () =>
    expectJobRefused(
      { in: importTask, gen: cmd('-i /input/in/in.mp4 -f lavfi -i anullsrc=d=3600 -map 0:v -map 1:a /output/o.mkv', 'in') },
      'tasks.gen.arguments',
    ));
  it('refuses a lavfi source whose name is quoted apart', () =>
    expectJobRefused({ in: importTask, gen: cmd(`-i /input/in/in.mp4 -f lavfi -i "col''or=c=red" /output/o.mp4`, 'in') }, 'tasks.gen.arguments'));
  it('refuses a source filter inside -filter_complex, quoted to hide its name', () =>
    expectJobRefused(
      { in: importTask, gen: cmd(`-i /input/in/in.mp4 -filter_complex "te''stsrc=s=8000x8000[v]" -map "[v]" -t 999 /output/o.mp4`, 'in') },
      'tasks.gen.arguments',
    ));
  it('refuses a source filter overlaid through -vf', () =>
    expectJobRefused(
      { in: importTask, gen: cmd('-i /input/in/in.mp4 -vf "color=c=red:s=8000x8000[c];[in][c]overlay" /output/o.mp4', 'in') },
      'tasks.gen.arguments',
    ));
  it('refuses an audio source filter through -lavfi, escaped with a backslash', () =>
    expectJobRefused({ in: importTask, gen: cmd(String.raw`-i /input/in/in.mp4 -lavfi "si\ne=f=440:d=3600" /output/o.wav`, 'in') }, 'tasks.gen.arguments'));
  it('refuses a source filter behind labels', () =>
    expectJobRefused(
      { in: importTask, gen: cmd(`-i /input/in/in.mp4 -filter_complex "[0:v]scale=2:2[o];nullsrc=s=4000x4000[t]" -map "[t]" /output/o.mp4`, 'in') },
      'tasks.gen.arguments',
    ));
  it('refuses a generator spelled with quotes after another filter', () =>
    expectJobRefused({ in: importTask, gen: cmd(`-i /input/in/in.mp4 -filter_complex "[0]scale=2:2 , 'te''stsrc2'=s=4000x4000" /output/o.mp4`, 'in') }, 'tasks.gen.arguments'));
  it('refuses ffprobe on a lavfi source', () =>
    expectJobRefused({ gen: { ...cmd('-f lavfi sine=d=1'), command: 'ffprobe' } }, 'tasks.gen.arguments'));
  it('refuses a command with no input file at all', () =>
    expectJobRefused({ in: importTask, gen: cmd('-f lavfi -i sine=d=1 /output/o.wav', 'in') }, 'tasks.gen.arguments'));
});

// ImageMagick's generators make content like -f lavfi does.
requires(engine('imagemagick'), commandOffered()).describe('ImageMagick generators in the sandbox', () => {
  const im = (args: string) => ({ operation: 'command', engine: 'imagemagick', command: 'convert', arguments: args, input: 'in' });
  it('refuses a canvas beside a whitelisted input', () =>
    expectJobRefused({ in: imageImport, gen: im('-size 30000x30000 xc:white /input/in/logo.png -composite /output/o.png') }, 'tasks.gen.arguments'));
  it('refuses a label', () => expectJobRefused({ in: imageImport, gen: im('/input/in/logo.png label:free -append /output/o.png') }, 'tasks.gen.arguments'));
});

describe('what the sandbox still takes', () => {
  commands.it('creates whitelisted-input jobs: convert, watermark with a task image, command on /input/, merge, archive, export', async () => {
    const { job, tasks } = await service.createJob(
      ++lastUser,
      planJob({
        tasks: {
          in: importTask,
          logo: imageImport,
          conv: { operation: 'convert', input: 'in', output_format: 'webm' },
          wm: { operation: 'watermark', input: ['in', 'logo'], image: 'logo' },
          cmd: { operation: 'command', engine: 'ffmpeg', command: 'ffmpeg', input: 'in', arguments: '-i /input/in/in.mp4 -vf "scale=320:-2,pad=color=black:w=320:h=320" /output/small.mp4' },
          text: { operation: 'command', engine: 'ffmpeg', command: 'ffmpeg', input: 'in', arguments: `-i /input/in/in.mp4 -vf "drawtext=text='a,sine':x=1" /output/t.mp4` },
          merged: { operation: 'merge', input: ['logo', 'conv'], output_format: 'pdf' },
          zip: { operation: 'archive', input: ['in', 'logo'], output_format: 'zip' },
          out: { operation: 'export/url', input: ['conv', 'wm', 'cmd', 'text', 'merged', 'zip'] },
        },
      }),
      undefined,
      sandbox,
    );
    expect(job.sandbox).toBe(true);
    expect(tasks).toHaveLength(9);
  });
});

describe('the sandbox rules cover every operation', () => {
  it('declares a rule for each operation, and refuses a name without one', async () => {
    // A separate module: its absence is this test's failure, not the file's.
    const rules = await import('#lib/file-api/sandbox/operation-rules.js');
    for (const op of OPERATIONS) expect(rules.SANDBOX_OPERATIONS[op.name], op.name).toBeDefined();
    expect(rules.sandboxProblem('some/new-operation', {})).toMatchObject({ field: 'operation' });
    // Imports are admitted because the runner checks their files: only import-step operations may say so.
    for (const op of OPERATIONS) expect(rules.SANDBOX_OPERATIONS[op.name] === 'whitelisted-import', op.name).toBe(op.step === 'import');
  });
});
