/** The media family's engines (lib/engines/core/families.ts): its share of each operation, and its engine function, which runs them for the process-media step function in the cloud, holding no credential. Only these engines are in its package. */
import command from '#lib/file-api/operations/command/media.js';
import convert from '#lib/file-api/operations/convert/media.js';
import thumbnail from '#lib/file-api/operations/thumbnail/media.js';
import watermark from '#lib/file-api/operations/watermark/media.js';
import { familyTable } from '#lib/file-api/operations/steps.js';
import { fileURLToPath } from 'node:url';
import { engineFunctionHandler } from '#lib/wiring/engine-functions.js';

/** This function's share of each operation it runs (exactly those whose engines are in its family: checked by the compiler). */
export const runs = [command, convert, thumbnail, watermark] as const;
export const implementations = familyTable('media', runs);
/** The media engine function: one task per invocation, on presigned URLs of its own files (ENGINE_ISOLATION=function). */
export const handler = engineFunctionHandler('media', implementations, typeof __filename === 'string' ? __filename : fileURLToPath(import.meta.url));

/**
 * serverless-esbuild packs into a function's zip the externals its bundle names in an import. The
 * static FFmpeg and ffprobe builds (lib/engines/core/shipped.ts) are found by their files, so their packages
 * are named here, in a branch that never runs, for this function only (with its platform package,
 * @ffmpeg-installer/linux-x64 and @ffprobe-installer/linux-x64: 142 MB together).
 */
if (Date.now() < 0) void Promise.all([import('@ffmpeg-installer/ffmpeg'), import('@ffprobe-installer/ffprobe')]);
