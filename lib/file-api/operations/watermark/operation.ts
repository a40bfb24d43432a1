/**
 * `watermark`: text or an image on PDFs (pdf-lib, real text), images (sharp) and videos (FFmpeg).
 * The watermark image is the file of a task named in both `image` and `input`, or an http(s) URL
 * fetched through the address guard (lib/engines/image/watermark-image.ts). Without anything to watermark,
 * the task produces the watermark itself as a transparent PNG.
 */
import * as z from 'zod';
import { IMAGE_FORMATS, VIDEO_FORMATS } from '../../../engines/core/formats.js';
import { defineOperation } from '../framework/define.js';
import { defaultRequest, type RequestOf } from '../framework/engine-request.js';
import { common, dimension, filename, FONT_NAMES, format, hexColor, opt, pages, WATERMARK_IMAGE_OPTIONS, WATERMARK_OPTIONS, WATERMARK_VIDEO_OPTIONS } from '../framework/fields.js';
import type { OperationContext } from '../framework/types.js';

const name = 'watermark';

/** The input is not a file to watermark when it is only the watermark image's task. */
const watermarkRequest: RequestOf = (args) => {
  const base = defaultRequest()(args);
  const inputs = (args.input as string[] | undefined) ?? [];
  const only = inputs.filter((i) => i !== args.image);
  return { ...base, inputFormat: base.inputFormat ?? (only.length === 0 ? null : undefined), outputFormat: undefined };
};

/** The id of the task whose file is the watermark image, when `image` names one of the inputs. */
export function imageTaskId(ctx: Pick<OperationContext<{ image?: string; input?: string[] }>, 'payload' | 'task'>): string | undefined {
  const image = ctx.payload.image;
  if (typeof image !== 'string' || /^https?:\/\//i.test(image)) return undefined;
  const index = (ctx.payload.input ?? []).indexOf(image);
  return index >= 0 ? ctx.task.dependsOn[index] : undefined;
}

export const watermark = defineOperation({
  name,
  step: 'process',
  inputs: 'optional',
  schema: z
      .looseObject({
        ...common,
        input_format: format.optional(),
        filename: filename.optional(),
        pages: opt(pages, null, 'PDF: the pages to watermark (default all)'),
        layer: opt(z.enum(['above', 'below']), 'above'),
        text: opt(z.string().min(1).max(1000)),
        font_size: opt(z.number().positive().max(2000), 40, 'PDF: pt; images and video: px'),
        font_width_percent: opt(z.number().min(1).max(100), null, 'text size as a share of the available width'),
        font_color: opt(hexColor, '#000000'),
        font_name: opt(z.enum(FONT_NAMES as [string, ...string[]]), 'Helvetica'),
        font_align: opt(z.enum(['left', 'center', 'right']), 'center', 'alignment of text lines'),
        image: opt(z.string().min(1).max(2048), null, 'a task named in input whose file is the watermark image, or an http(s) URL'),
        image_width: opt(dimension, null, 'px'),
        image_height: opt(dimension, null, 'px'),
        image_width_percent: opt(z.number().min(1).max(100), null, 'image size as a share of the available width'),
        position_vertical: opt(z.enum(['top', 'center', 'bottom']), 'center'),
        position_horizontal: opt(z.enum(['left', 'center', 'right']), 'center'),
        margin_vertical: opt(z.number().min(0).max(10_000), 25, 'PDF: pt; images and video: px'),
        margin_horizontal: opt(z.number().min(0).max(10_000), 25, 'PDF: pt; images and video: px'),
        opacity: opt(z.number().min(0).max(100), 100, 'percent'),
        rotation: opt(z.number().min(-360).max(360), 0, 'degrees, counter-clockwise'),
      })
      .superRefine((v, ctx) => {
        if (v.text === undefined && v.image === undefined) {
          ctx.addIssue({ code: 'custom', path: ['text'], message: 'a watermark needs text or image' });
        }
        const inputs = v.input ?? [];
        if (v.image !== undefined && !/^https?:\/\//i.test(v.image) && !inputs.includes(v.image)) {
          ctx.addIssue({ code: 'custom', path: ['image'], message: 'must be an http(s) URL or a task that is also listed in input' });
        }
      }),
  engines: {
    request: watermarkRequest,
    mode: 'each',
    outputFormat: () => undefined,
    partition(ctx) {
      const imageTask = imageTaskId(ctx);
      return {
        files: ctx.inputs.filter((f) => f.taskId !== imageTask),
        extras: ctx.inputs.filter((f) => f.taskId === imageTask).slice(0, 1),
      };
    },
    order: ['pdf-lib', 'sharp', 'ffmpeg'],
    capabilities: {
      'pdf-lib': [{ inputs: ['pdf'], outputs: 'same', options: WATERMARK_OPTIONS }],
      sharp: [
        { inputs: IMAGE_FORMATS, outputs: 'same', options: WATERMARK_IMAGE_OPTIONS },
        // Without input: a transparent PNG holding the watermark.
        { inputs: null, outputs: ['png'], options: WATERMARK_IMAGE_OPTIONS.filter((o) => o !== 'layer') },
      ],
      ffmpeg: [{ inputs: VIDEO_FORMATS, outputs: 'same', options: WATERMARK_VIDEO_OPTIONS, credits: 2 }],
    },
  },
});
