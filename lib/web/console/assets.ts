/**
 * The console's built assets: one script and one style sheet, named by their content hash, compressed
 * ahead of time into CONSOLE_ASSETS_DIR (lib/web/console/build.ts, run before packaging and before
 * serverless-offline starts) with a manifest that the page reads to link them.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Logger } from '../../kernel/log.js';
import { plainText, precompressedResponse } from '../precompressed.js';

/** Relative to the function's working directory: /var/task in Lambda, the project root locally. */
export const CONSOLE_ASSETS_DIR = 'dist/console-assets';
export const CONSOLE_MANIFEST = 'manifest.json';
/** The URL path the assets are served under (functions/console/assets.ts). */
export const CONSOLE_ASSETS_PATH = '/console/assets';

export interface ConsoleManifest {
  /** File names in CONSOLE_ASSETS_DIR (each with `.br` and `.gz` copies). */
  script: string;
  style: string;
  /** Bytes of each file: as built, brotli, gzip. */
  sizes: Record<string, { raw: number; br: number; gzip: number }>;
}

/** Asset names are `console-<hash>.js|css`: nothing else is ever read from the folder. */
export const ASSET_NAME = /^console-[A-Z0-9]{8,16}\.(js|css)$/;
export const contentTypeOf = (file: string) => (file.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8');

export async function readConsoleManifest(dir = CONSOLE_ASSETS_DIR): Promise<ConsoleManifest> {
  return JSON.parse(await readFile(path.resolve(dir, CONSOLE_MANIFEST), 'utf8')) as ConsoleManifest;
}

/** `GET /console/assets/{file}` over the built files in `dir`: only names of the built form are read. */
export function consoleAssetsHandler(opts: { dir: string; logger: Logger }): (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2> {
  return async (event) => {
    const file = event.pathParameters?.file ?? '';
    if (!ASSET_NAME.test(file)) return plainText(404, `no console asset named ${file.slice(0, 80)}`);
    return precompressedResponse({ event, dir: opts.dir, file, contentType: contentTypeOf(file), what: 'console assets', logger: opts.logger });
  };
}
