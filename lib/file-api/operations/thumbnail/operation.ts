/**
 * `thumbnail`: png, jpg or webp of an image, a PDF's first page or video frames at `timestamp`; or, for
 * a video, `vtt`: a WebVTT file whose cues point at tiles of sprite images, a frame every `interval`.
 */
import * as z from 'zod';
import { SPRITE_FORMATS } from '../../../engines/core/formats.js';
import { IMAGE_INPUT_FORMATS, normalizeFormat, THUMBNAIL_FORMATS, VIDEO_FORMATS } from '../../../engines/core/formats.js';
import { defineOperation } from '../framework/define.js';
import { common, dimension, filename, fit, format, opt, THUMBNAIL_OPTIONS } from '../framework/fields.js';

const name = 'thumbnail';

export const thumbnail = defineOperation({
  name,
  step: 'process',
  inputs: 'required',
  schema: z.looseObject({
      ...common,
      input_format: format.optional(),
      output_format: z.enum(['png', 'jpg', 'jpeg', 'webp', 'vtt']),
      filename: filename.optional(),
      width: opt(dimension, null, 'px'),
      height: opt(dimension, null, 'px'),
      fit: opt(fit, 'max'),
      count: opt(z.number().int().min(1).max(100), 1, 'video: how many thumbnails'),
      timestamp: opt(
        z.union([z.number().min(0), z.string().regex(/^(?:\d+(?:\.\d+)?%|(?:\d+:){0,2}\d+(?:\.\d+)?)$/, 'must be seconds, hh:mm:ss or a percentage such as 10%')]),
        '00:00:00',
        'video: position of the (first) thumbnail',
      ),
      interval: opt(z.number().positive().max(86_400), 5, 'vtt: seconds between frames (default: 5, or the video split into `count` frames when count is given)'),
      sprite_format: opt(z.enum(SPRITE_FORMATS), 'jpg', 'vtt: format of the sprite images the cues point at'),
    }),
  engines: {
    mode: 'each',
    outputFormat: (p) => normalizeFormat(p.output_format),
    order: ['sharp', 'ghostscript', 'ffmpeg'],
    capabilities: {
      sharp: [{ inputs: IMAGE_INPUT_FORMATS, outputs: THUMBNAIL_FORMATS, options: THUMBNAIL_OPTIONS }],
      ghostscript: [{ inputs: ['pdf'], outputs: THUMBNAIL_FORMATS, options: THUMBNAIL_OPTIONS }],
      ffmpeg: [
        { inputs: VIDEO_FORMATS, outputs: THUMBNAIL_FORMATS, options: [...THUMBNAIL_OPTIONS, 'count', 'timestamp'], credits: 1 },
        { inputs: VIDEO_FORMATS, outputs: ['vtt'], options: [...THUMBNAIL_OPTIONS, 'count', 'interval', 'sprite_format'], credits: 1 },
      ],
    },
  },
});
