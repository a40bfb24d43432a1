/** Consumer of the media family's process queue: the tasks that run on its engines (lib/engines/families.ts), and only those engines in its package. */
import { familyImplementations } from '#lib/operations/engine-operations.js';
import { MEDIA_FAMILY } from '#lib/operations/families/media.js';
import { stepConsumer } from '#lib/tasks/step-consumer.js';
import { FAMILY_QUEUES } from '#lib/engines/families.js';

export const handler = stepConsumer('process', familyImplementations(MEDIA_FAMILY), FAMILY_QUEUES.media);

/**
 * serverless-esbuild packs into a function's zip the externals its bundle names in an import. The
 * static FFmpeg and ffprobe builds (lib/engines/shipped.ts) are found by their files, so their packages
 * are named here, in a branch that never runs, for this function only (with its platform package,
 * @ffmpeg-installer/linux-x64 and @ffprobe-installer/linux-x64: 142 MB together).
 */
if (Date.now() < 0) void Promise.all([import('@ffmpeg-installer/ffmpeg'), import('@ffprobe-installer/ffprobe')]);
