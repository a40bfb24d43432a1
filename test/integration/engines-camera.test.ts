/**
 * Every phone and camera format the imagemagick engine lists (CAMERA_FORMATS), from its fixture
 * (test/fixtures/camera/bars.<format>) through whole jobs to PNG on the imagemagick engine, each
 * output read by sharp: near the fixture's size (LibRaw may crop a RAW's margins) and the fixture's
 * colour bars, white at the left and blue at the right, not a blank.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAMERA_FORMATS, cameraFixtureName } from '#lib/engines/image/camera-formats.js';
import type { TaskRecord } from '#lib/file-api/records/model.js';
import { FIXTURE_DIR, HEIGHT, WIDTH } from '../../scripts/fixtures/make-camera-fixtures.js';
import { base64, startEngineHarness, type Harness } from './engines-harness.js';

let h: Harness;
/** Each format's convert task, all in one job. */
let tasks: Record<string, TaskRecord>;

beforeAll(async () => {
  h = await startEngineHarness();
  const job: Record<string, Record<string, unknown>> = {};
  for (const format of CAMERA_FORMATS) {
    job[`in-${format}`] = base64(readFileSync(path.join(FIXTURE_DIR, cameraFixtureName(format))), `photo.${format}`);
    job[format] = { operation: 'convert', input: `in-${format}`, output_format: 'png', engine: 'imagemagick' };
  }
  tasks = await h.run(job);
}, 300_000);
afterAll(async () => {
  await h?.close();
});

describe('camera and phone formats to PNG on the imagemagick engine', () => {
  it.each(CAMERA_FORMATS)('%s → png', async (format) => {
    const task = tasks[format]!;
    expect({ status: task.status, engine: task.engine }, String(task.message)).toEqual({ status: 'finished', engine: 'imagemagick' });
    const bytes = await h.file(task);
    expect((await sharp(bytes).metadata()).format).toBe('png');
    const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect(Math.abs(info.width - WIDTH), `width ${info.width}`).toBeLessThanOrEqual(12);
    expect(Math.abs(info.height - HEIGHT), `height ${info.height}`).toBeLessThanOrEqual(12);
    const at = (x: number) => Array.from(data.subarray((Math.floor(info.height / 2) * info.width + x) * 3, (Math.floor(info.height / 2) * info.width + x) * 3 + 3));
    const [left, right] = [at(Math.floor(info.width / 8)), at(Math.floor((info.width * 7) / 8))];
    expect(Math.min(...left), `the left bar is white, not ${left}`).toBeGreaterThan(150);
    expect([right[2]! > right[0]! + 60, right[2]! > right[1]! + 60], `the right bar is blue, not ${right}`).toEqual([true, true]);
  });
});
