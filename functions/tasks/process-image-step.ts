/** Consumer of the image family's process queue: the tasks that run on its engines (lib/engines/families.ts), and only those engines in its package. */
import { familyImplementations } from '#lib/operations/engine-operations.js';
import { IMAGE_FAMILY } from '#lib/operations/families/image.js';
import { stepConsumer } from '#lib/tasks/step-consumer.js';
import { FAMILY_QUEUES } from '#lib/engines/families.js';

export const handler = stepConsumer('process', familyImplementations(IMAGE_FAMILY), FAMILY_QUEUES.image);

/**
 * serverless-esbuild packs into a function's zip the externals its bundle names in an import. The
 * static ffprobe (the native metadata engine's reader of video and audio) and ExifTool in WebAssembly
 * (its zeroperl comes as its dependency) are found by their files (lib/engines/shipped.ts), so their
 * packages are named here, in a branch that never runs, for this function only.
 */
if (Date.now() < 0) void Promise.all([import('@ffprobe-installer/ffprobe'), import('@uswriting/exiftool')]);
