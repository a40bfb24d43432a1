/**
 * Static files served from precompressed copies (brotli and gzip, made at build time): the GraphiQL
 * explorer's assets and the console's. Picking the encoding and answering with one copy live here;
 * each asset function only says which files it has.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Logger } from '../kernel/log.js';

export type Encoding = 'br' | 'gzip';
export const ENCODINGS: readonly Encoding[] = ['br', 'gzip'];

/** The name of a file's compressed copy. */
export const compressedName = (file: string, encoding: Encoding) => `${file}.${encoding === 'br' ? 'br' : 'gz'}`;

/** The best encoding the client accepts (br over gzip), or undefined when it accepts neither. */
export function pickEncoding(acceptEncoding: string | null | undefined): Encoding | undefined {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [token, ...params] = part.trim().toLowerCase().split(';');
    if (!token) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    accepted.set(token, q ? Number(q.slice(2)) : 1);
  }
  const ok = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  if (ok('br')) return 'br';
  if (ok('gzip')) return 'gzip';
  return undefined;
}

export const plainText = (statusCode: number, body: string, headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff', ...headers },
  body,
  isBase64Encoded: false,
});

/**
 * The answer for one known file of `dir`: its compressed copy in the best accepted encoding, cached
 * for a year (the URLs carry a version or a content hash). `what` names the assets in messages.
 */
export async function precompressedResponse(opts: {
  event: APIGatewayProxyEventV2;
  dir: string;
  file: string;
  contentType: string;
  what: string;
  logger: Logger;
}): Promise<APIGatewayProxyStructuredResultV2> {
  const { event, what } = opts;
  const method = event.requestContext?.http?.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') return plainText(405, `${what} support GET only`, { allow: 'GET, HEAD' });
  const encoding = pickEncoding(event.headers?.['accept-encoding']);
  if (!encoding) {
    return plainText(406, `${what} are served compressed only: send "accept-encoding: br" or "accept-encoding: gzip"`, { vary: 'accept-encoding' });
  }
  const where = path.resolve(opts.dir, compressedName(opts.file, encoding));
  let bytes: Buffer;
  try {
    bytes = await readFile(where);
  } catch (err) {
    opts.logger.error('asset missing from the package', { file: where, error: err });
    return plainText(500, `the ${what.replace(/s$/, '')} is missing from this deployment`);
  }
  return {
    statusCode: 200,
    headers: {
      'content-type': opts.contentType,
      'content-encoding': encoding,
      vary: 'accept-encoding',
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
    },
    body: method === 'HEAD' ? '' : bytes.toString('base64'),
    isBase64Encoded: method !== 'HEAD',
  };
}
