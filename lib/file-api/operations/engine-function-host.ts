/**
 * ENGINE_ISOLATION=function, the engine function's side (functions/engines/<family>.ts): one task's
 * processing, run exactly as the step function runs it inline (the family's implementations,
 * engine-task.ts), with the task's files reached only through what the request grants: presigned GET
 * URLs of its inputs, a presigned POST form for its outputs. This side holds no credential and reaches
 * no state: failures go back in the answer, as codes and messages (engine-function.ts checks them).
 */
import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import * as z from 'zod';
import type { Config } from '../../kernel/config.js';
import { typedStream } from './framework/content-type.js';
import { safeDir, safeFilename, uniqueName } from '../../adapters/file-store/names.js';
import { FormPostError, postForm, sized } from '../../adapters/file-store/form-post.js';
import type { FileStore } from '../../adapters/file-store/port.js';
import type { Logger } from '../../kernel/log.js';
import type { FileEntry, TaskRecord } from '../records/model.js';
import type { EngineRequest, EngineResponse } from './engine-function.js';
import type { ImplementationTable } from './steps.js';
import { RunElsewhere, TaskFailure, outputKey, type InputFile, type OperationContext } from './framework/types.js';

const request = z.object({
  protocol: z.literal(1),
  operation: z.string(),
  task: z.object({ id: z.string(), dependsOn: z.array(z.string()), payload: z.record(z.string(), z.unknown()) }),
  payload: z.record(z.string(), z.unknown()),
  inputs: z.array(z.object({ taskId: z.string(), key: z.string(), filename: z.string(), size: z.number(), md5: z.string().optional(), dir: z.string().optional(), url: z.string().url() })),
  upload: z.object({ url: z.string().url(), fields: z.record(z.string(), z.string()), maxBytes: z.number().int().positive() }),
  deadline: z.number(),
  finalAttempt: z.boolean(),
});

/**
 * An engine function has no storage of its own: an operation that reaches for it is a bug, said so.
 * Except the clean-up of a failed run (the output bound's), which is the step function's: it empties the
 * task's folder whenever the engine function answers a failure (engine-function.ts).
 */
const noStorage = new Proxy({} as FileStore, {
  get: (_target, name) =>
    name === 'deletePrefix'
      ? () => Promise.resolve()
      : () => Promise.reject(new TaskFailure('INTERNAL_ERROR', `An engine function has no file storage (${String(name)}).`)),
});

/** One input's body, from its presigned URL. */
async function openUrl(url: string, filename: string, signal: AbortSignal): Promise<Readable> {
  const res = await fetch(url, { signal });
  if (!res.ok || !res.body) throw new TaskFailure('INPUT_UNAVAILABLE', `${filename} could not be read from storage (${res.status}).`, res.status >= 500);
  return Readable.fromWeb(res.body as WebReadableStream);
}

/** Serves one request: the operation's implementation, its outputs posted with the grant; never throws. */
export async function serveEngineRequest(raw: unknown, deps: { implementations: ImplementationTable; config: Config; log: Logger }): Promise<EngineResponse> {
  const parsed = request.safeParse(raw);
  if (!parsed.success) return { ok: false, error: `not an engine request: ${parsed.error.issues[0]?.message ?? ''}` };
  const req = parsed.data as EngineRequest;
  const implementation = deps.implementations[req.operation];
  if (!implementation) return { ok: false, failure: { code: 'ENGINE_UNAVAILABLE', message: `This engine function does not run ${req.operation}.`, retryable: false } };
  const log = deps.log.child({ taskId: req.task.id, operation: req.operation });
  const signal = AbortSignal.timeout(Math.max(1, req.deadline - Date.now()));
  const urls = new Map(req.inputs.map((f) => [f.key, f.url]));
  const used = new Set<string>();

  const save: OperationContext['save'] = async (filename, body, opts = {}) => {
    const dir = safeDir(opts.dir);
    const name = uniqueName(used, safeFilename(filename), dir);
    const key = outputKey(req.task.id, name, dir);
    // A storage form takes a body of known length; engine outputs are files of known size. An unsized
    // stream is a caller's bug, refused rather than held in memory whole.
    const bytes = sized(body, opts.size);
    if (!bytes) throw new TaskFailure('INTERNAL_ERROR', `${name} was handed over with no size; an engine function posts files of known size only.`);
    if (bytes.size > req.upload.maxBytes) {
      throw new TaskFailure('OUTPUT_TOO_LARGE', `${name} has ${bytes.size} bytes; a task may write up to ${req.upload.maxBytes} (TASK_MAX_OUTPUT_BYTES).`);
    }
    // The type by the one rule (lib/file-api/operations/framework/content-type.ts), as the runner's save stores it.
    const { body: stream, contentType } = await typedStream(name, bytes.stream, opts.contentType);
    const md5 = createHash('md5');
    const metered = stream.pipe(new Transform({ transform: (chunk: Buffer, _enc, done) => (md5.update(chunk), done(null, chunk)) }));
    stream.on('error', (err) => metered.destroy(err));
    try {
      await postForm(req.upload, key, metered, bytes.size, contentType ? { 'Content-Type': contentType } : {}, signal);
    } catch (err) {
      if (err instanceof FormPostError && err.code === 'EntityTooLarge') throw new TaskFailure('OUTPUT_TOO_LARGE', `${name} is larger than a task may write (TASK_MAX_OUTPUT_BYTES).`);
      throw err;
    }
    opts.progress?.(1);
    return { filename: name, size: bytes.size, md5: md5.digest('hex'), ...(dir ? { dir } : {}) } satisfies FileEntry;
  };

  const ctx: OperationContext = {
    task: { id: req.task.id, dependsOn: req.task.dependsOn, payload: req.task.payload, operation: req.operation } as unknown as TaskRecord,
    payload: req.payload,
    inputs: req.inputs.map(({ url: _url, ...file }) => file as InputFile),
    files: noStorage,
    config: deps.config,
    log,
    signal,
    finalAttempt: req.finalAttempt,
    progress: () => {},
    open: (file) => openUrl(urls.get(file.key) ?? '', file.filename, signal),
    save,
  };
  try {
    const outcome = await implementation(ctx);
    return { ok: true, result: outcome.result, engine: outcome.engine, engineVersion: outcome.engineVersion, credits: outcome.credits };
  } catch (err) {
    if (signal.aborted && !(err instanceof TaskFailure)) {
      return { ok: false, failure: { code: 'TIMEOUT', message: 'The task ran out of time.', retryable: false } };
    }
    if (err instanceof TaskFailure) return { ok: false, failure: { code: err.code, message: err.message, retryable: err.retryable } };
    if (err instanceof RunElsewhere) return { ok: false, elsewhere: { queue: err.queue, reason: err.reason } };
    log.warn('engine function failed', { error: err });
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
