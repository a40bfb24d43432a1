/**
 * GET /console/assets/{file}: the console's script and style sheet, precompressed files packed beside
 * this handler (lib/web/console/assets.ts).
 */
import { createLogger } from '#lib/kernel/log.js';
import { CONSOLE_ASSETS_DIR, consoleAssetsHandler } from '#lib/web/console/assets.js';

export const handler = consoleAssetsHandler({ dir: CONSOLE_ASSETS_DIR, logger: createLogger({ function: 'consoleAssets' }, { level: 'info' }) });
