/**
 * `export/upload`: an HTTP PUT of each input file to `url` (typically a presigned upload URL), with
 * the given `headers`, through the guarded client (no private, loopback, link-local or metadata
 * address on any hop). The body streams from task storage with its `Content-Length`; any answer
 * other than 2xx fails the task with `UPLOAD_FAILED`.
 */
import { implement } from '../../framework/define.js';
import { exportUpload } from './operation.js';
import { FetchFailedError, guardedFetch } from '../../../../adapters/net/guarded-fetch.js';
import { contentTypeOf } from '../../../../adapters/user-storage/mime.js';
import { retryableStatus } from '../../../../adapters/net/retry.js';
import type { FileEntry } from '../../../records/model.js';
import { redactText, secretValues } from '../../../../kernel/redact.js';
import { countBytes, within } from '../../../records/progress.js';
import { TaskFailure } from '../../framework/types.js';

/** Reads at most `limit` bytes of a response body (for an error code), then drops the rest. */
async function head(body: NodeJS.ReadableStream & { destroy(): void }, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(Buffer.from(chunk as Uint8Array));
      size += (chunk as Uint8Array).length;
      if (size >= limit) break;
    }
  } catch {
    // the status is what matters
  } finally {
    body.destroy();
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

export default implement(exportUpload, async (ctx) => {
  const url = String(ctx.payload.url);
  const userHeaders = Object.fromEntries(
    Object.entries((ctx.payload.headers as Record<string, string> | undefined) ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]),
  );
  const policy = { allowLoopback: ctx.config.ALLOW_LOOPBACK_FETCH, allowHosts: ctx.config.FETCH_ALLOW_HOSTS };
  const secrets = secretValues(ctx.payload);
  const final = ctx.finalAttempt;
  const files: FileEntry[] = [];
  // Progress by bytes sent over the input files' total.
  const total = Math.max(1, ctx.inputs.reduce((sum, f) => sum + (f.size ?? 0), 0));
  let done = 0;

  for (const input of ctx.inputs) {
    const source = await ctx.files.get(input.key);
    const body = countBytes(source.body, source.size, within(ctx.progress, done / total, (done + source.size) / total));
    const headers = {
      'content-type': contentTypeOf(input.filename, source.contentType),
      ...userHeaders,
      'content-length': String(source.size),
    };
    const started = performance.now();
    let response;
    try {
      response = await guardedFetch(url, { method: 'PUT', headers, body, signal: ctx.signal, idleTimeoutMs: 60_000 }, policy);
    } catch (err) {
      body.destroy();
      source.body.destroy();
      if (err instanceof FetchFailedError) {
        throw new TaskFailure('UPLOAD_FAILED', redactText(err.message, secrets), err.retryable && !final, { cause: err });
      }
      throw err;
    }
    const answer = await head(response.body, 4096);
    if (response.status < 200 || response.status >= 300) {
      // Storage services name the problem in an XML or JSON `Code`; nothing else of the body is shown.
      const code = /<Code>([A-Za-z]{1,64})<\/Code>/.exec(answer)?.[1] ?? /"code"\s*:\s*"([A-Za-z_]{1,64})"/.exec(answer)?.[1];
      throw new TaskFailure(
        'UPLOAD_FAILED',
        redactText(`The upload URL answered HTTP ${response.status} ${response.statusText}`.trim() + (code ? ` (${code}).` : '.'), secrets),
        retryableStatus(response.status) && !final,
      );
    }
    ctx.log.info('uploaded', { bytes: source.size, status: response.status, durationMs: Math.round(performance.now() - started) });
    files.push({ filename: input.filename, size: source.size, ...(input.dir ? { dir: input.dir } : {}) });
    done += source.size;
  }
  return { result: { files }, credits: 0 };
});
