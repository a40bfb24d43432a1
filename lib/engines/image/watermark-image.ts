/**
 * The watermark image of a `watermark` call: the file of the task named in both `image` and `input`
 * (downloaded as the call's extra), or an http(s) URL fetched through the address guard, size-limited.
 */
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { assertOk, FetchFailedError, guardedFetch } from '../../adapters/net/guarded-fetch.js';
import type { EngineCall, EngineResult } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { checkImagePixels } from '../core/limits.js';
import { policyOf } from '../core/policy.js';

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
      if (bytes > limit) response.body.destroy(new EngineFailure('FILE_TOO_LARGE', `The watermark image is larger than ${limit} bytes.`));
    });
    await pipeline(response.body, createWriteStream(file));
  } catch (err) {
    if (err instanceof FetchFailedError) throw new EngineFailure('DOWNLOAD_FAILED', `The watermark image could not be fetched: ${err.message}`, { retryable: err.retryable, cause: err });
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
