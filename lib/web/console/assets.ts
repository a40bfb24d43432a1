/**
 * The console's built assets: one script and one style sheet, named by their content hash, compressed
 * ahead of time into CONSOLE_ASSETS_DIR (lib/web/console/build.ts, run before packaging and before
 * serverless-offline starts) with a manifest that the page reads to link them.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

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
