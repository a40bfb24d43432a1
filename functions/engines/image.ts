/** The image family's engines (lib/engines/core/families.ts): its share of each operation, and its engine function, which runs them for the process-image step function in the cloud, holding no credential. Only these engines are in its package. */
import archive from '#lib/file-api/operations/archive/image.js';
import archiveExtract from '#lib/file-api/operations/archive/extract/image.js';
import command from '#lib/file-api/operations/command/image.js';
import convert from '#lib/file-api/operations/convert/image.js';
import merge from '#lib/file-api/operations/merge/image.js';
import metadata from '#lib/file-api/operations/metadata/image.js';
import metadataWrite from '#lib/file-api/operations/metadata/write/image.js';
import optimize from '#lib/file-api/operations/optimize/image.js';
import thumbnail from '#lib/file-api/operations/thumbnail/image.js';
import watermark from '#lib/file-api/operations/watermark/image.js';
import { familyTable } from '#lib/file-api/operations/steps.js';
import { fileURLToPath } from 'node:url';
import { engineFunctionHandler } from '#lib/wiring/engine-functions.js';

/** This function's share of each operation it runs (exactly those whose engines are in its family: checked by the compiler). */
export const runs = [convert, thumbnail, watermark, optimize, metadata, metadataWrite, merge, archive, archiveExtract, command] as const;
export const implementations = familyTable('image', runs);
/** The image engine function: one task per invocation, on presigned URLs of its own files (ENGINE_ISOLATION=function). */
export const handler = engineFunctionHandler('image', implementations, typeof __filename === 'string' ? __filename : fileURLToPath(import.meta.url));

/**
 * serverless-esbuild packs into a function's zip the externals its bundle names in an import. The
 * static ffprobe (the native metadata engine's reader of video and audio) and ExifTool in WebAssembly
 * (its zeroperl comes as its dependency) are found by their files (lib/engines/core/shipped.ts), so their
 * packages are named here, in a branch that never runs, for this function only.
 */
if (Date.now() < 0) void Promise.all([import('@ffprobe-installer/ffprobe'), import('@uswriting/exiftool'), import('7z-wasm')]);
/** The font engine's packages (lib/engines/font/packages.ts), found by their files the same way. */
if (Date.now() < 0) void Promise.all([import('wawoff2'), import('fonteditor-core')]);
/** ImageMagick in WebAssembly (lib/engines/image/magick.ts) is read as files too: named here for this function only. */
if (Date.now() < 0) void import('@imagemagick/magick-wasm');
