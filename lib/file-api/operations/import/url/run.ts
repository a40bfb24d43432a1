/**
 * `import/url`: downloads a URL through the guarded client (no private, loopback, link-local or
 * metadata addresses on any hop) and streams it into storage.
 */
import { implement } from '../../framework/define.js';
import { importUrl } from './operation.js';
import { safeFilename } from '../../../../adapters/file-store/names.js';
import { FetchFailedError, guardedFetch } from '../../../../adapters/net/guarded-fetch.js';
import { TaskFailure } from '../../framework/types.js';

/** The file name from `Content-Disposition` (RFC 6266, `filename*` first), if any. */
export function filenameFromDisposition(header: string | null): string | undefined {
  if (!header) return undefined;
  const star = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
  if (star?.[2]) {
    try {
      return decodeURIComponent(star[2].trim());
    } catch {
      // fall back to the plain parameter
    }
  }
  const plain = /filename\s*=\s*("((?:[^"\\]|\\.)*)"|[^;]+)/i.exec(header);
  const value = plain?.[2] !== undefined ? plain[2].replace(/\\(.)/g, '$1') : plain?.[1]?.trim();
  return value || undefined;
}

/** The last path segment of a URL, if it looks like a file name. */
export function filenameFromUrl(url: string): string | undefined {
  try {
    const last = new URL(url).pathname.split('/').filter(Boolean).pop();
    return last ? decodeURIComponent(last) : undefined;
  } catch {
    return undefined;
  }
}

export default implement(importUrl, async (ctx) => {
  const url = String(ctx.payload.url);
  const policy = { allowLoopback: ctx.config.ALLOW_LOOPBACK_FETCH, allowHosts: ctx.config.FETCH_ALLOW_HOSTS };
  let response;
  try {
    response = await guardedFetch(url, { headers: ctx.payload.headers as Record<string, string> | undefined, signal: ctx.signal }, policy);
  } catch (err) {
    if (err instanceof FetchFailedError) throw new TaskFailure('DOWNLOAD_FAILED', err.message, err.retryable, { cause: err });
    throw err;
  }
  if (response.status < 200 || response.status >= 300) {
    response.body.destroy();
    throw new TaskFailure(
      'DOWNLOAD_FAILED',
      `The URL answered HTTP ${response.status} ${response.statusText}.`.trim(),
      response.status >= 500 || response.status === 429 || response.status === 408,
    );
  }
  // The first source that leaves a usable name once made safe (a Content-Disposition of `..` leaves none).
  const candidates = [
    ctx.payload.filename as string | undefined,
    filenameFromDisposition(response.headers.get('content-disposition')),
    filenameFromUrl(response.url),
  ];
  const filename = candidates.map((c) => (c === undefined ? '' : safeFilename(c, ''))).find(Boolean) ?? safeFilename('');
  const length = Number(response.headers.get('content-length'));
  try {
    const file = await ctx.save(filename, response.body, {
      contentType: response.headers.get('content-type') ?? undefined,
      size: Number.isFinite(length) && length > 0 ? length : undefined,
      progress: ctx.progress,
    });
    return { result: { files: [file] }, credits: 0 };
  } catch (err) {
    if (err instanceof FetchFailedError) throw new TaskFailure('DOWNLOAD_FAILED', err.message, err.retryable, { cause: err });
    throw err;
  }
});
