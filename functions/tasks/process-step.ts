/** Consumer of the process queue: the CPU-bound operations. */
import { archive } from '#lib/operations/archive.js';
import { PROCESSING_IMPLEMENTATIONS } from '#lib/operations/processing.js';
import { stepConsumer } from '#lib/tasks/step-consumer.js';

export const handler = stepConsumer('process', {
  archive,
  // convert, thumbnail, watermark, capture-website, optimize, metadata, metadata/write, merge (lib/engines).
  ...PROCESSING_IMPLEMENTATIONS,
});

/**
 * serverless-esbuild packs into a function's zip the externals its bundle names in an import. The
 * WebAssembly Ghostscript, qpdf and ExifTool (lib/engines/shipped.ts; ExifTool's zeroperl comes as its
 * dependency) are read as files, so they are named here,
 * in a branch that never runs, for this function only. The static FFmpeg/ffprobe builds are not packed
 * here: with Chromium they would take this function past Lambda's 250 MB (Lambda's process step has no
 * FFmpeg, as before; a media function of its own will carry them).
 */
if (Date.now() < 0) void Promise.all([import('@okathira/ghostpdl-wasm'), import('@neslinesli93/qpdf-wasm'), import('@uswriting/exiftool')]);
