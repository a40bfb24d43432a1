/**
 * GET /console/assets/{file}: the console's script and style sheet, precompressed files packed beside
 * this handler (lib/web/console/assets.ts). Only names of the built form are read.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { createLogger } from '#lib/kernel/log.js';
import { ASSET_NAME, CONSOLE_ASSETS_DIR, contentTypeOf } from '#lib/web/console/assets.js';
import { plainText, precompressedResponse } from '#lib/web/precompressed.js';

const logger = createLogger({ function: 'consoleAssets' }, { level: 'info' });

export const handler = async (event: APIGatewayProxyEventV2) => {
  const file = event.pathParameters?.file ?? '';
  if (!ASSET_NAME.test(file)) return plainText(404, `no console asset named ${file.slice(0, 80)}`);
  return precompressedResponse({ event, dir: CONSOLE_ASSETS_DIR, file, contentType: contentTypeOf(file), what: 'console assets', logger });
};
