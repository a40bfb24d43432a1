/**
 * The explorer's static assets (GraphiQL's script, style sheet, Monaco workers and icon) as their own
 * small function: `@graphql-yoga/render-graphiql` holds them as one 9 MB module, which would make the
 * GraphQL function's bundle 12 MB and every cold start slow. Instead they are compressed ahead of time
 * (lib/graphql/server/graphiql-assets-build.ts, run by `serverless package` and before serverless-offline
 * starts) into GRAPHIQL_ASSETS_DIR, packed into the graphiqlAssets function's zip as plain files, and
 * read from disk at each request. The handler bundle is a few kilobytes.
 *
 * Responses are compressed only (brotli, else gzip; at most ~1.3 MB, ~1.8 MB as base64, well under
 * Lambda's 6 MB response limit) and cached by the browser for a year: the URLs carry the version.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createLogger, type Logger } from '../../kernel/log.js';

/** The installed `@graphql-yoga/render-graphiql` version (a unit test keeps it in step). */
export const GRAPHIQL_ASSET_VERSION = '5.24.1';

/**
 * Where the compressed assets are, relative to the function's working directory: /var/task in Lambda
 * (the zip's root), the project root under `npm start` and in tests.
 */
export const GRAPHIQL_ASSETS_DIR = 'dist/graphiql-assets';

/** Every asset the page loads, by file name. */
export const GRAPHIQL_ASSETS = {
  'graphiql.js': { contentType: 'text/javascript; charset=utf-8' },
  'graphiql.css': { contentType: 'text/css; charset=utf-8' },
  'editor.worker.js': { contentType: 'text/javascript; charset=utf-8' },
  'json.worker.js': { contentType: 'text/javascript; charset=utf-8' },
  'graphql.worker.js': { contentType: 'text/javascript; charset=utf-8' },
  'favicon.ico': { contentType: 'image/x-icon' },
} as const satisfies Record<string, { contentType: string }>;

export type GraphiqlAssetFile = keyof typeof GRAPHIQL_ASSETS;
export const GRAPHIQL_ASSET_FILES = Object.keys(GRAPHIQL_ASSETS) as GraphiqlAssetFile[];

export type Encoding = 'br' | 'gzip';
export const ENCODINGS: readonly Encoding[] = ['br', 'gzip'];

/** The name of an asset's compressed file in the assets folder. */
export const compressedName = (file: GraphiqlAssetFile, encoding: Encoding) => `${file}.${encoding === 'br' ? 'br' : 'gz'}`;

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

export type AssetsHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

const text = (statusCode: number, body: string, headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: { 'content-type': 'text/plain; charset=utf-8', ...headers },
  body,
  isBase64Encoded: false,
});

/** `GET <endpoint>/assets/{file}` over the compressed files in `dir` (resolved against the working directory). */
export function createAssetsHandler(opts: { dir: string; logger?: Logger }): AssetsHandler {
  const logger = opts.logger ?? createLogger({ function: 'graphiqlAssets' }, { level: 'info' });
  return async (event) => {
    const method = event.requestContext?.http?.method ?? 'GET';
    const file = event.pathParameters?.file ?? decodeURIComponent((event.rawPath ?? '').split('/').pop() ?? '');
    if (!Object.hasOwn(GRAPHIQL_ASSETS, file)) {
      return text(404, `no explorer asset named ${file}; known: ${GRAPHIQL_ASSET_FILES.join(', ')}`);
    }
    const asset = file as GraphiqlAssetFile;
    if (method !== 'GET' && method !== 'HEAD') return text(405, 'explorer assets support GET only', { allow: 'GET, HEAD' });
    const encoding = pickEncoding(event.headers?.['accept-encoding']);
    if (!encoding) {
      return text(406, 'explorer assets are served compressed only: send "accept-encoding: br" or "accept-encoding: gzip"', {
        vary: 'accept-encoding',
      });
    }
    const where = path.resolve(opts.dir, compressedName(asset, encoding));
    let bytes: Buffer;
    try {
      bytes = await readFile(where);
    } catch (err) {
      logger.error('explorer asset missing from the package', { file: where, error: err });
      return text(500, 'the explorer asset is missing from this deployment');
    }
    return {
      statusCode: 200,
      headers: {
        'content-type': GRAPHIQL_ASSETS[asset].contentType,
        'content-encoding': encoding,
        vary: 'accept-encoding',
        'cache-control': 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
      },
      body: method === 'HEAD' ? '' : bytes.toString('base64'),
      isBase64Encoded: method !== 'HEAD',
    };
  };
}
