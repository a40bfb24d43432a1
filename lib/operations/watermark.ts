/**
 * `watermark`: text or an image on PDFs (pdf-lib, real text), images (sharp) and videos (FFmpeg).
 * The watermark image is the file of a task named in both `image` and `input`, or an http(s) URL
 * fetched through the address guard. Without anything to watermark, the task produces the watermark
 * itself as a transparent PNG. The handlers are in the engine families (operations/families/).
 */
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { checkImagePixels } from '../engines/limits.js';
import { policyOf } from '../engines/policy.js';
import { assertOk, FetchFailedError, guardedFetch } from '../net/guarded-fetch.js';
import type { EngineCall, EngineOperationShape, EngineResult } from './engine-task.js';
import { TaskFailure, type OperationContext } from './types.js';

/** The id of the task whose file is the watermark image, when `image` names one of the inputs. */
export function imageTaskId(ctx: Pick<OperationContext, 'payload' | 'task'>): string | undefined {
  const image = ctx.payload.image;
  if (typeof image !== 'string' || /^https?:\/\//i.test(image)) return undefined;
  const index = ((ctx.payload.input as string[] | undefined) ?? []).indexOf(image);
  return index >= 0 ? ctx.task.dependsOn[index] : undefined;
}

/** The watermark image as a local file: the image task's file, or the URL downloaded (size-limited, guarded). */
async function watermarkImagePath(call: EngineCall): Promise<string | undefined> {
  const [fromTask] = call.extras;
  if (fromTask) return fromTask.path;
  const image = (call.payload as { image?: unknown }).image;
  if (typeof image !== 'string') return undefined;
  const file = path.join(call.dir, 'watermark-image');
  try {
    const response = assertOk(await guardedFetch(image, { signal: call.signal, timeoutMs: 60_000 }, policyOf(call.config)));
    let bytes = 0;
    const limit = 50_000_000;
    response.body.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limit) response.body.destroy(new TaskFailure('FILE_TOO_LARGE', `The watermark image is larger than ${limit} bytes.`));
    });
    await pipeline(response.body, createWriteStream(file));
  } catch (err) {
    if (err instanceof FetchFailedError) throw new TaskFailure('DOWNLOAD_FAILED', `The watermark image could not be fetched: ${err.message}`, err.retryable, { cause: err });
    throw err;
  }
  await checkImagePixels('the watermark image', file, call.config);
  return file;
}

/** An engine's watermark handler, given the watermark image's local path when there is one. */
export const withImage =
  <P,>(handler: (call: EngineCall<P>, image?: string) => Promise<EngineResult>) =>
  async (call: EngineCall<P>): Promise<EngineResult> =>
    handler(call, await watermarkImagePath(call));

export const watermarkShape: EngineOperationShape = {
  operation: 'watermark',
  mode: 'each',
  outputFormat: () => undefined,
  partition(ctx) {
    const imageTask = imageTaskId(ctx);
    return {
      files: ctx.inputs.filter((f) => f.taskId !== imageTask),
      extras: ctx.inputs.filter((f) => f.taskId === imageTask).slice(0, 1),
    };
  },
};
