/** Consumer of the media family's process queue: the tasks that run on its engines (lib/engines/families.ts), and only those engines in its package. */
import command from '#lib/operations/command/media.js';
import convert from '#lib/operations/convert/media.js';
import thumbnail from '#lib/operations/thumbnail/media.js';
import watermark from '#lib/operations/watermark/media.js';
import { familyTable } from '#lib/operations/steps.js';
import { stepConsumer } from '#lib/tasks/step-consumer.js';
import { FAMILY_QUEUES } from '#lib/engines/families.js';

/** This function's share of each operation it runs (exactly those whose engines are in its family: checked by the compiler). */
export const runs = [command, convert, thumbnail, watermark] as const;
export const implementations = familyTable('media', runs);
export const handler = stepConsumer('process', implementations, FAMILY_QUEUES.media);

/**
 * serverless-esbuild packs into a function's zip the externals its bundle names in an import. The
 * static FFmpeg and ffprobe builds (lib/engines/shipped.ts) are found by their files, so their packages
 * are named here, in a branch that never runs, for this function only (with its platform package,
 * @ffmpeg-installer/linux-x64 and @ffprobe-installer/linux-x64: 142 MB together).
 */
if (Date.now() < 0) void Promise.all([import('@ffmpeg-installer/ffmpeg'), import('@ffprobe-installer/ffprobe')]);
