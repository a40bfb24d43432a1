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
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createLogger, type Logger } from '../../kernel/log.js';
import { plainText, precompressedResponse } from '../../web/precompressed.js';

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

export { compressedName, ENCODINGS, pickEncoding, type Encoding } from '../../web/precompressed.js';

export type AssetsHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

/** `GET <endpoint>/assets/{file}` over the compressed files in `dir` (resolved against the working directory). */
export function createAssetsHandler(opts: { dir: string; logger?: Logger }): AssetsHandler {
  const logger = opts.logger ?? createLogger({ function: 'graphiqlAssets' }, { level: 'info' });
  return async (event) => {
    const file = event.pathParameters?.file ?? decodeURIComponent((event.rawPath ?? '').split('/').pop() ?? '');
    if (!Object.hasOwn(GRAPHIQL_ASSETS, file)) {
      return plainText(404, `no explorer asset named ${file}; known: ${GRAPHIQL_ASSET_FILES.join(', ')}`);
    }
    const { contentType } = GRAPHIQL_ASSETS[file as GraphiqlAssetFile];
    return precompressedResponse({ event, dir: opts.dir, file, contentType, what: 'explorer assets', logger });
  };
}
