/**
 * ENGINE_ISOLATION=function without AWS: the process step runs through `runTask` against dynalite and
 * s3rver (behind the local S3 front, which checks presigned POST policies as S3 does), and the engine
 * function is a child process in a pid namespace of its own whose environment holds no credential and
 * no table, queue or bucket: it reaches the task's files only through the presigned URLs it is handed.
 * The output is read back by another program than the engine that wrote it (ffprobe). The upload grant
 * refuses a key outside the task's prefix and a file over the bound; hostile answers of an engine
 * function are refused by the step.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { build } from 'esbuild';
import S3rver from 's3rver';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { parseConfig, type Config } from '#lib/kernel/config.js';
import { createS3Client, S3FileStore } from '#lib/adapters/file-store/s3-file-store.js';
import { FormPostError, postForm } from '#lib/adapters/file-store/form-post.js';
import { startS3Front, type S3Front } from '../../local/s3/front.js';
import { createLogger } from '#lib/kernel/log.js';
import { useEngineInvoker, type EngineInvoker, type EngineRequest } from '#lib/file-api/operations/engine-function.js';
import { implementations as imageFamily } from '#functions/tasks/process-image-step.js';
import { implementations as mediaFamily } from '#functions/tasks/process-media-step.js';
import { importStaged } from '../support/operations.js';
import type { TaskRecord } from '#lib/file-api/records/model.js';
import { planJob } from '#lib/file-api/tasks/plan.js';
import { runTask } from '#lib/file-api/tasks/runner.js';
import { Scheduler } from '#lib/file-api/tasks/scheduler.js';
import { TaskService } from '#lib/file-api/tasks/service.js';
import { TaskStore } from '#lib/file-api/records/store.js';
import { outputKey } from '#lib/file-api/operations/framework/types.js';
import { startStateBackend } from '../support/dynalite.js';
import { RecordingQueue, TEST_CONFIG_ENV } from '../support/recording-queue.js';
import { requires, tool } from '../support/requires.js';

const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const BUCKET = 'files';
/** The child bundled as a function's handler is (CommonJS, as serverless.yml bundles) (the reaper would kill tsx's esbuild service otherwise), its engines' packages external. */
const CHILD_SOURCE = path.join(import.meta.dirname, 'engine-function-child.ts');
const CHILD = path.join(process.cwd(), '.esbuild', 'engine-function-test', 'child.cjs');
const needs = requires(tool('bwrap'), tool('ffprobe'));

let dir: string;
let s3rver: S3rver;
let front: S3Front;
let files: S3FileStore;
let state: Awaited<ReturnType<typeof startStateBackend>>;
const log = createLogger({}, { level: 'silent' });
/** What each engine function child reported besides its answer. */
const reports: Array<{ env: string[]; tmpLeft: string[]; sharpLoaded: boolean }> = [];

/** The engine function in a child process: a pid namespace and /tmp of its own, no credential, no resource name. */
const childInvoker: EngineInvoker = {
  invoke: (request: EngineRequest, signal: AbortSignal) =>
    new Promise((resolve, reject) => {
      const family = request.operation === 'convert' && request.inputs[0]?.filename.endsWith('.wav') ? 'media' : 'image';
      // Its temporary folder is an empty one of its own (not a fresh /tmp: the checkout may live under /tmp).
      const tmp = mkdtempSync(path.join(dir, 'engine-tmp-'));
      const child = spawn(
        'bwrap',
        ['--unshare-pid', '--dev-bind', '/', '/', '--proc', '/proc', '--chdir', process.cwd(), process.execPath, CHILD],
        {
          // Loopback fetches allowed: the storage front the presigned URLs name is on 127.0.0.1 here.
          env: { PATH: process.env.PATH, TMPDIR: tmp, ENGINE_FAMILY: family, ENGINE_REAP: 'true', ENGINE_CONFINEMENT: 'platform', LOG_LEVEL: 'silent', ALLOW_LOOPBACK_FETCH: 'true' },
          stdio: ['pipe', 'pipe', 'pipe'],
          signal,
        },
      );
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      child.on('error', reject);
      child.on('close', (code) => {
        if (code !== 0) return reject(new Error(`engine function child exited ${code}: ${err.slice(-2000)}`));
        const { response, ...report } = JSON.parse(out) as { response: unknown; env: string[]; tmpLeft: string[]; sharpLoaded: boolean };
        reports.push(report);
        resolve(response);
      });
      child.stdin.end(JSON.stringify(request));
    }),
};

beforeAll(async () => {
  await build({
    entryPoints: [CHILD_SOURCE],
    outfile: CHILD,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['sharp', 'exiftool-vendored', '@ffmpeg-installer/*', '@ffprobe-installer/*', '@sparticuz/chromium', 'puppeteer-core', '@uswriting/exiftool', '@okathira/ghostpdl-wasm', '@neslinesli93/qpdf-wasm', 'tesseract.js', '@tesseract.js-data/*'],
    logLevel: 'error',
  });
  dir = mkdtempSync(path.join(tmpdir(), 'engine-function-test-'));
  s3rver = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: path.join(dir, 's3'), configureBuckets: [{ name: BUCKET }] });
  const { port } = await s3rver.run();
  front = await startS3Front({ target: `http://127.0.0.1:${port}`, port: 0, credentials: CREDENTIALS, spoolDir: dir });
  files = new S3FileStore(createS3Client({ region: 'us-east-1', endpoint: front.url, credentials: CREDENTIALS }), BUCKET);
  state = await startStateBackend();
});
afterAll(async () => {
  useEngineInvoker(undefined);
  await state?.close();
  await front?.close();
  await s3rver?.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => useEngineInvoker(undefined));

/** Runs a job whose process tasks go to `implementations` in function mode, everything queued, to its end. */
async function runJob(tasks: Record<string, Record<string, unknown>>, implementations: Record<string, unknown>, settings: Record<string, string> = {}) {
  const config: Config = parseConfig({ ...TEST_CONFIG_ENV, ENGINE_ISOLATION: 'function', ...settings });
  const queue = new RecordingQueue();
  const store = new TaskStore(state.store);
  const scheduler = new Scheduler({ store, queue, log });
  const service = new TaskService({ store, scheduler, files, log });
  const { tasks: created } = await service.createJob(1, planJob({ tasks }));
  for (let round = 0; round < 20; round++) {
    const batch = queue.sent.splice(0);
    if (!batch.length) break;
    for (const { queue: name, message } of batch) {
      await runTask(message.taskId, {
        store,
        scheduler,
        files,
        config,
        log,
        implementations: (name === 'import' ? { 'import/base64': importStaged } : implementations) as never,
        requeue: (task, delaySeconds) => queue.send(task.step, { taskId: task.id }, { delaySeconds }),
      });
    }
  }
  const out: Record<string, TaskRecord> = {};
  for (const t of created) out[t.name!] = (await store.getTask(t.id))!;
  return out;
}

async function output(task: TaskRecord, index = 0): Promise<string> {
  const entry = task.result!.files![index]!;
  const { body } = await files.get(outputKey(task.id, entry.filename, entry.dir));
  const target = path.join(dir, `${task.id}-${entry.filename}`);
  writeFileSync(target, Buffer.concat(await body.toArray()));
  return target;
}

const probe = (file: string) =>
  JSON.parse(spawnSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name,width,height,sample_rate', '-of', 'json', file], { encoding: 'utf8' }).stdout) as {
    streams: Array<Record<string, unknown>>;
  };

const png = () => sharp({ create: { width: 37, height: 23, channels: 3, background: { r: 200, g: 10, b: 10 } } }).png().toBuffer();
const b64 = (bytes: Buffer, filename: string) => ({ operation: 'import/base64', file: bytes.toString('base64'), filename });

needs.describe('engine operations in an engine function (ENGINE_ISOLATION=function)', () => {
  needs.it('converts a PNG to JPEG in a child without credentials, read back by ffprobe', async () => {
    useEngineInvoker(childInvoker);
    reports.length = 0;
    const tasks = await runJob({ in: b64(await png(), 'red.png'), jpg: { operation: 'convert', input: 'in', output_format: 'jpg' } }, imageFamily);
    const jpg = tasks.jpg!;
    expect(jpg.status, `${jpg.code}: ${jpg.message}`).toBe('finished');
    expect(jpg.engine).toBe('sharp');
    expect(probe(await output(jpg)).streams[0]).toMatchObject({ codec_name: 'mjpeg', width: 37, height: 23 });
    // The engine side had no credential and no name of the stack's table, queues or bucket; it left nothing in /tmp.
    expect(reports).toHaveLength(1);
    expect(reports[0]!.env.filter((name) => /^AWS_|TABLE|QUEUE|BUCKET|SECRET/.test(name))).toEqual([]);
    expect(reports[0]!.tmpLeft).toEqual([]);
    // The PNG was decoded in the engine function's worker process, never in the runtime's own.
    expect(reports[0]!.sharpLoaded).toBe(false);
  });

  needs.it('converts a WAV to MP3 with FFmpeg in the engine function', async () => {
    useEngineInvoker(childInvoker);
    const wav = spawnSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-f', 'wav', '-'], { maxBuffer: 1 << 24 }).stdout;
    const tasks = await runJob({ in: b64(wav, 'tone.wav'), mp3: { operation: 'convert', input: 'in', output_format: 'mp3' } }, mediaFamily);
    expect(tasks.mp3!.status, `${tasks.mp3!.code}: ${tasks.mp3!.message}`).toBe('finished');
    expect(probe(await output(tasks.mp3!)).streams[0]).toMatchObject({ codec_name: 'mp3' });
  });

  needs.it('watermarks with an image URL the engine function cannot reach: the step fetches it and hands on a copy', async () => {
    useEngineInvoker(childInvoker);
    const mark = await sharp({ create: { width: 8, height: 8, channels: 4, background: { r: 0, g: 0, b: 255, alpha: 1 } } }).png().toBuffer();
    let served = 0;
    const server = createServer((_req, res) => (served++, res.writeHead(200, { 'content-type': 'image/png' }).end(mark)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mark.png`;
      const tasks = await runJob({ in: b64(await png(), 'red.png'), wm: { operation: 'watermark', input: 'in', image: url } }, imageFamily, { ALLOW_LOOPBACK_FETCH: 'true' });
      expect(tasks.wm!.status, `${tasks.wm!.code}: ${tasks.wm!.message}`).toBe('finished');
      expect(served).toBe(1);
      // The copy the engine function read, beside the task's files.
      expect((await files.head(`tasks/${tasks.wm!.id}.watermark/image`))?.size).toBe(mark.length);
      expect(probe(await output(tasks.wm!)).streams[0]).toMatchObject({ codec_name: 'png', width: 37, height: 23 });
    } finally {
      server.close();
    }
  });

  needs.it('ends a task whose output is over TASK_MAX_OUTPUT_BYTES in error', async () => {
    useEngineInvoker(childInvoker);
    const tasks = await runJob({ in: b64(await png(), 'red.png'), tif: { operation: 'convert', input: 'in', output_format: 'tiff' } }, imageFamily, { TASK_MAX_OUTPUT_BYTES: '200' });
    expect(tasks.tif).toMatchObject({ status: 'error', code: 'OUTPUT_TOO_LARGE' });
    expect(await files.list(`tasks/${tasks.tif!.id}/`)).toEqual([]);
  });
});

/** A form of the kind the step grants (key under the task's prefix, at most `maxBytes`). */
const grant = (taskId: string, maxBytes: number) => files.uploadForm(`tasks/${taskId}/`, { expiresInSeconds: 600, maxBytes, contentType: true, under: true });
const body = (n: number) => Readable.from([Buffer.alloc(n, 7)]);
const TASK = '0b7c6a52-1111-4d2b-9d7e-3c3c3c3c3c3c';
const OTHER = '9f0e8a11-2222-4c1d-8e6f-4d4d4d4d4d4d';

needs.describe('the upload grant of an engine function', () => {
  needs.it('stores a file under the task’s prefix', async () => {
    await postForm(await grant(TASK, 100), `tasks/${TASK}/ok.bin`, body(100), 100);
    expect((await files.head(`tasks/${TASK}/ok.bin`))?.size).toBe(100);
  });
  needs.it('refuses a key outside the task’s prefix', async () => {
    for (const key of [`tasks/${OTHER}/x.bin`, `uploads/${TASK}/x.bin`, `tasks/${TASK}x/y.bin`, 'webhooks/x']) {
      const err = await postForm(await grant(TASK, 100), key, body(10), 10).catch((e: unknown) => e);
      expect(err, key).toBeInstanceOf(FormPostError);
      expect((err as FormPostError).status).toBe(403);
      expect(await files.head(key)).toBeUndefined();
    }
  });
  needs.it('refuses a file over the bound', async () => {
    const err = await postForm(await grant(TASK, 100), `tasks/${TASK}/big.bin`, body(101), 101).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FormPostError);
    expect((err as FormPostError).code).toBe('EntityTooLarge');
    expect(await files.head(`tasks/${TASK}/big.bin`)).toBeUndefined();
  });
});

/** An engine function that answers `answer(request)` after doing `act(request)` (a compromised one). */
const hostile = (act: (r: EngineRequest) => Promise<void>, answer: (r: EngineRequest) => unknown): EngineInvoker => ({
  invoke: async (request) => (await act(request), answer(request)),
});

needs.describe('the step refuses what a compromised engine function answers', () => {
  const job = async () => ({ in: b64(await png(), 'red.png'), out: { operation: 'convert', input: 'in', output_format: 'jpg' } });

  needs.it('a file it did not store, or one outside its task', async () => {
    for (const filename of ['never-stored.jpg', '../../../uploads/x', 'a/b.jpg']) {
      useEngineInvoker(hostile(async () => {}, () => ({ ok: true, result: { files: [{ filename, size: 3 }] }, engine: 'sharp', credits: 1 })));
      const tasks = await runJob(await job(), imageFamily);
      expect(tasks.out, filename).toMatchObject({ status: 'error', code: 'CONVERSION_FAILED' });
    }
  });

  needs.it('outputs together over the bound (each within it)', async () => {
    useEngineInvoker(
      hostile(
        async (r) => {
          for (const name of ['a', 'b', 'c']) await postForm(r.upload, `tasks/${r.task.id}/${name}`, body(90), 90);
        },
        () => ({ ok: true, result: { files: [{ filename: 'a', size: 1 }] }, credits: 1 }),
      ),
    );
    const tasks = await runJob(await job(), imageFamily, { TASK_MAX_OUTPUT_BYTES: '100' });
    expect(tasks.out).toMatchObject({ status: 'error', code: 'OUTPUT_TOO_LARGE' });
    expect(await files.list(`tasks/${tasks.out!.id}/`)).toEqual([]);
  });

  needs.it('sizes it lies about, codes and queues out of protocol', async () => {
    useEngineInvoker(
      hostile(
        async (r) => postForm(r.upload, `tasks/${r.task.id}/a.jpg`, body(50), 50),
        () => ({ ok: true, result: { files: [{ filename: 'a.jpg', size: 1 }] }, engine: 'sharp', credits: 1 }),
      ),
    );
    const ok = await runJob(await job(), imageFamily);
    expect(ok.out!.result!.files).toEqual([{ filename: 'a.jpg', size: 50 }]);
    for (const answer of [{ ok: false, failure: { code: 'x; drop', message: 'm', retryable: false } }, { ok: false, elsewhere: { queue: 'import', reason: 'r' } }, { ok: true, result: {}, credits: -5 }, 'nonsense']) {
      useEngineInvoker(hostile(async () => {}, () => answer));
      const tasks = await runJob(await job(), imageFamily);
      expect(tasks.out, JSON.stringify(answer)).toMatchObject({ status: 'error', code: 'CONVERSION_FAILED' });
    }
  });
});
