/**
 * ENGINE_ISOLATION=function, the step function's side: an engine operation runs in the family's engine
 * function (functions/engines/<family>.ts), not here. The step function keeps its role and its job
 * (claim, record, queue the next step, events); the engine function gets only what this one task needs:
 * - each input as a presigned GET URL of exactly that object, valid as long as a task may run;
 * - an upload grant for its outputs: a presigned POST form whose key must start with the task's own
 *   prefix (`tasks/<id>/`) and whose file may have at most TASK_MAX_OUTPUT_BYTES;
 * and answers what it made. Its answer is not trusted: it comes from the process that ran the user's
 * file. Every file it names must be one of the task's own objects, with the size storage says (not the
 * one it says), all of them together within TASK_MAX_OUTPUT_BYTES; codes, messages, queues and credits
 * are checked like any input. Progress inside the engine function is not reported (the task shows the
 * start and the end). The other side is engine-function-host.ts.
 */
import { Transform } from 'node:stream';
import * as z from 'zod';
import { policyOf } from '../../engines/core/policy.js';
import { assertOk, FetchFailedError, guardedFetch } from '../../adapters/net/guarded-fetch.js';
import { isSafeDir, isSafeFilename } from '../../adapters/file-store/names.js';
import type { UploadForm } from '../../adapters/file-store/port.js';
import type { FileEntry, TaskResult } from '../records/model.js';
import { RunElsewhere, TaskFailure, outputKey, taskPrefix, type InputFile, type OperationContext, type OperationOutcome } from './framework/types.js';

/** What the step function sends the engine function (one task's processing, nothing else). */
export interface EngineRequest {
  protocol: 1;
  operation: string;
  /** What the operation reads of its task: its id (the output prefix), inputs' order and names. */
  task: { id: string; dependsOn: string[]; payload: Record<string, unknown> };
  /** The validated arguments. */
  payload: Record<string, unknown>;
  inputs: Array<InputFile & { url: string }>;
  upload: UploadForm & { maxBytes: number };
  /** When the engine function must have answered (epoch milliseconds). */
  deadline: number;
  finalAttempt: boolean;
}

const text = (max: number) => z.string().max(max);
const fileEntry = z
  .object({
    filename: z.string().refine(isSafeFilename),
    size: z.number().int().nonnegative(),
    md5: z.string().regex(/^[0-9a-f]{32}$/).optional(),
    dir: z.string().refine(isSafeDir).optional(),
  })
  .strict();
const PROCESS_QUEUES = ['process', 'process-media', 'process-pdf', 'process-chromium', 'process-office'] as const;

/** The engine function's answer, as this side accepts it. */
export const engineResponse = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    result: z.record(z.string(), z.unknown()).and(z.object({ files: z.array(fileEntry).max(10_000).optional() })),
    engine: text(64).optional(),
    engineVersion: text(64).optional(),
    credits: z.number().int().min(0).max(1000).optional(),
  }),
  z.object({
    ok: z.literal(false),
    failure: z.object({ code: z.string().regex(/^[A-Z][A-Z0-9_]{1,63}$/), message: text(2000), retryable: z.boolean() }).optional(),
    elsewhere: z.object({ queue: z.enum(PROCESS_QUEUES), reason: text(500) }).optional(),
    error: text(2000).optional(),
  }),
]);
export type EngineResponse = z.infer<typeof engineResponse>;

/** How the step function reaches its engine function: Lambda's synchronous Invoke in the cloud, a child process in tests. */
export interface EngineInvoker {
  /** The engine function's answer (parsed JSON), or throws when the function itself failed (crash, timeout). */
  invoke(request: EngineRequest, signal: AbortSignal): Promise<unknown>;
}

let invoker: EngineInvoker | undefined;

/** Sets how engine functions are reached (the step consumer at start, tests). */
export function useEngineInvoker(next: EngineInvoker | undefined): void {
  invoker = next;
}

/** Runs `operation` of `ctx`'s task in the engine function, and checks what it answers. */
export async function runInEngineFunction(operation: string, ctx: OperationContext): Promise<OperationOutcome> {
  if (!invoker) throw new TaskFailure('INTERNAL_ERROR', 'ENGINE_ISOLATION is function, but no engine function is configured (ENGINE_FUNCTION_NAME).');
  const { task, files, config } = ctx;
  // Valid as long as the task may run, and a minute for the clocks: short enough to be worth nothing after.
  const expiresInSeconds = config.TASK_MAX_SECONDS + 60;
  const prefix = taskPrefix(task.id);
  // A clean prefix: what is there after the run is what this run's engine wrote (a retried run's earlier files go).
  await files.deletePrefix(prefix);
  const inputs = await Promise.all(ctx.inputs.map(async (f) => ({ ...f, url: await files.signedGetUrl(f.key, { expiresInSeconds }) })));
  const form = await files.uploadForm(prefix, { expiresInSeconds, maxBytes: config.TASK_MAX_OUTPUT_BYTES, contentType: true, under: true });
  const request: EngineRequest = {
    protocol: 1,
    operation,
    task: { id: task.id, dependsOn: task.dependsOn, payload: task.payload },
    payload: await withStagedImage(operation, ctx, expiresInSeconds),
    inputs,
    upload: { ...form, maxBytes: config.TASK_MAX_OUTPUT_BYTES },
    deadline: Date.now() + config.TASK_MAX_SECONDS * 1000,
    finalAttempt: ctx.finalAttempt,
  };
  const answer = await ctx.log.time('engine function', () => invoker!.invoke(request, ctx.signal), { operation });
  ctx.signal.throwIfAborted();
  const parsed = engineResponse.safeParse(answer);
  if (!parsed.success) {
    ctx.log.warn('engine function answered out of protocol', { issues: parsed.error.issues.slice(0, 5) });
    throw new TaskFailure('CONVERSION_FAILED', `${operation} failed: its engine gave no valid answer.`);
  }
  const response = parsed.data;
  if (!response.ok) {
    // Nothing of a failed run is kept: what its engine uploaded before failing goes (the engine function
    // can write but not delete).
    await files.deletePrefix(prefix);
    if (response.failure) throw new TaskFailure(response.failure.code, response.failure.message, response.failure.retryable);
    if (response.elsewhere) throw new RunElsewhere(response.elsewhere.queue, response.elsewhere.reason);
    // Not the task's fault (the engine function's own): tried again.
    throw new Error(`engine function failed: ${response.error ?? 'no reason given'}`);
  }
  const stored = new Map((await files.list(prefix)).map((f) => [f.key, f.size]));
  const total = [...stored.values()].reduce((sum, n) => sum + n, 0);
  if (total > config.TASK_MAX_OUTPUT_BYTES) {
    await files.deletePrefix(prefix);
    throw new TaskFailure('OUTPUT_TOO_LARGE', `The task wrote ${total} bytes; a task may write up to ${config.TASK_MAX_OUTPUT_BYTES} (TASK_MAX_OUTPUT_BYTES).`);
  }
  const claimed = new Set<string>();
  const outputs: FileEntry[] = [];
  for (const file of response.result.files ?? []) {
    const key = outputKey(task.id, file.filename, file.dir);
    const size = stored.get(key);
    if (size === undefined || claimed.has(key)) throw new TaskFailure('CONVERSION_FAILED', `${operation} failed: its engine named a file it did not store.`);
    claimed.add(key);
    outputs.push({ ...file, size });
  }
  const result: TaskResult = { ...response.result, ...(response.result.files ? { files: outputs } : {}) };
  return { result, engine: response.engine, engineVersion: response.engineVersion, credits: response.credits };
}

/** The most a watermark image fetched by URL may have (lib/engines/image/watermark-image.ts takes as much). */
const WATERMARK_IMAGE_BYTES = 50_000_000;

/**
 * A watermark `image` given as a URL: the engine functions of the VPC have no route to the web, so it is
 * fetched here, through the address guard, into storage beside the task's files (`tasks/<id>.watermark/`,
 * gone with the bucket's one-day expiry), and handed on as a presigned URL of that copy.
 */
async function withStagedImage(operation: string, ctx: OperationContext, expiresInSeconds: number): Promise<Record<string, unknown>> {
  const image = ctx.payload.image;
  if (operation !== 'watermark' || typeof image !== 'string' || !/^https?:\/\//i.test(image)) return ctx.payload;
  const key = `tasks/${ctx.task.id}.watermark/image`;
  try {
    const response = assertOk(await guardedFetch(image, { signal: ctx.signal, timeoutMs: 60_000 }, policyOf(ctx.config)));
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > WATERMARK_IMAGE_BYTES) throw new TaskFailure('FILE_TOO_LARGE', `The watermark image is larger than ${WATERMARK_IMAGE_BYTES} bytes.`);
    let bytes = 0;
    const limited = response.body.pipe(
      new Transform({
        transform(chunk: Buffer, _enc, done) {
          bytes += chunk.length;
          done(bytes > WATERMARK_IMAGE_BYTES ? new TaskFailure('FILE_TOO_LARGE', `The watermark image is larger than ${WATERMARK_IMAGE_BYTES} bytes.`) : null, chunk);
        },
      }),
    );
    response.body.on('error', (err) => limited.destroy(err));
    await ctx.files.put(key, limited);
  } catch (err) {
    if (err instanceof FetchFailedError) throw new TaskFailure('DOWNLOAD_FAILED', `The watermark image could not be fetched: ${err.message}`, err.retryable, { cause: err });
    throw err;
  }
  return { ...ctx.payload, image: await ctx.files.signedGetUrl(key, { expiresInSeconds }) };
}
