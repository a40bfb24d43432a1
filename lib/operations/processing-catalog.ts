/**
 * The processing operations that run on engines (convert, thumbnail, watermark, capture-website,
 * optimize, metadata, metadata/write, merge): the schema of each one's arguments, spread into
 * `OPERATIONS` by catalog.ts. Every option carries its default as schema metadata, so that
 * `/v2/operations?include=options` is generated from the schemas that validate the requests; each
 * schema is refined with the engine registry (engine, version and format pair must be servable here).
 */
import * as z from 'zod';
import { METADATA_DESCRIPTION, tagProblem, valueProblem } from '../engines/metadata-tags.js';
import { defaultRequest, withEngineCheck, type RequestOf } from '../engines/validation.js';
import type { OperationSpec } from './catalog.js';
import { common, filename, headers } from './fields.js';

// catalog.ts imports this module, so only types may be imported from it (an import cycle).

/** An optional argument with its default (what the engine does when it is absent), for discovery. */
const opt = <T extends z.ZodType>(schema: T, defaultValue: unknown = null, description?: string) =>
  schema.optional().meta({ default: defaultValue, ...(description ? { description } : {}) });

const format = z.string().trim().min(1).max(16).regex(/^[A-Za-z0-9.]+$/, 'must be a file format such as pdf or jpg');
const hexColor = z.string().regex(/^#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{3})$/, 'must be a colour in #rrggbb form');
/**
 * Page ranges as `1-3,5,7-` (1-based). Written so that no two quantifiers can share a run of text
 * (`-\s*(?:\d+\s*)?`, not `-\s*\d*\s*`): matching stays linear in the length of the request text.
 */
export const PAGE_RANGES = /^\s*\d+\s*(?:-\s*(?:\d+\s*)?)?(?:,\s*\d+\s*(?:-\s*(?:\d+\s*)?)?)*$/;
const pages = z.string().regex(PAGE_RANGES, 'must be page numbers and ranges such as 1-3,5');
const dimension = z.number().int().min(1).max(20_000);
const fit = z.enum(['max', 'crop', 'scale']);
const quality = z.number().int().min(1).max(100);

export const FONT_FAMILIES = ['Arial', 'Helvetica', 'Times New Roman', 'Courier New', 'Verdana'] as const;
export const FONT_NAMES = FONT_FAMILIES.flatMap((f) => [f, `${f} Bold`, `${f} Italic`, `${f} Bold Italic`]);

/** Arguments of a website capture (capture-website, HTML conversion). */
const captureOptions = {
  pages: opt(pages, null, 'PDF: the pages to keep'),
  zoom: opt(z.number().min(0.1).max(2), 1, '1 is 100%'),
  page_width: opt(z.number().positive().max(500), null, 'PDF page width in cm'),
  page_height: opt(z.number().positive().max(500), null, 'PDF page height in cm'),
  page_format: opt(z.enum(['A0', 'A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'Letter', 'Legal', 'Tabloid', 'Ledger']), 'Letter'),
  page_orientation: opt(z.enum(['portrait', 'landscape']), 'portrait'),
  margin_top: opt(z.number().min(0).max(500), 0, 'mm'),
  margin_bottom: opt(z.number().min(0).max(500), 0, 'mm'),
  margin_left: opt(z.number().min(0).max(500), 0, 'mm'),
  margin_right: opt(z.number().min(0).max(500), 0, 'mm'),
  print_background: opt(z.boolean(), true),
  display_header_footer: opt(z.boolean(), false, 'true when a header or footer template is given'),
  header_template: opt(z.string().max(100_000)),
  footer_template: opt(z.string().max(100_000)),
  wait_until: opt(z.enum(['load', 'domcontentloaded', 'networkidle0', 'networkidle2']), 'load'),
  wait_for_element: opt(z.string().min(1).max(1000), null, 'CSS selector to wait for'),
  wait_time: opt(z.number().int().min(0).max(300_000), 0, 'ms to wait after loading'),
  css_media_type: opt(z.enum(['print', 'screen']), null, 'print for PDF, screen for images'),
  headers: opt(headers, null, 'request headers for the page (sent to its own origin only)'),
  screen_width: opt(z.number().int().min(1).max(10_000), 1280, 'viewport width in px'),
  screen_height: opt(z.number().int().min(1).max(10_000), 800, 'viewport height in px'),
  clip: opt(z.boolean(), false, 'images: only the viewport instead of the full page'),
  device_scale_factor: opt(z.number().min(1).max(4), 2),
  transparent_background: opt(z.boolean(), false, 'png: transparent instead of white'),
  quality: opt(quality, 85, 'jpg'),
};

const httpUrl = z
  .string()
  .url('must be an absolute http(s) URL')
  .refine((u) => /^https?:\/\//i.test(u), 'must be an http or https URL');

/** The input is not a file to watermark when it is only the watermark image's task. */
const watermarkRequest: RequestOf = (args) => {
  const base = defaultRequest()(args);
  const inputs = (args.input as string[] | undefined) ?? [];
  const only = inputs.filter((i) => i !== args.image);
  return { ...base, inputFormat: base.inputFormat ?? (only.length === 0 ? null : undefined), outputFormat: undefined };
};

const sameFormat: RequestOf = (args) => ({ ...defaultRequest()(args), outputFormat: undefined });

/**
 * metadata/write's tags: names from the allowlist of real metadata tags and groups (exiftool's
 * file-system pseudo-tags are refused), values one line of text or a number. Each problem is keyed by
 * the tag (`metadata.<tag>`) and names it.
 */
const metadataTags = z
  .record(z.string(), z.unknown())
  .superRefine((tags, ctx) => {
    const names = Object.keys(tags);
    if (names.length === 0) ctx.addIssue({ code: 'custom', message: 'must hold at least one field' });
    if (names.length > MAX_TAGS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_TAGS} tags can be written at once` });
    for (const name of names.slice(0, MAX_TAGS + 1)) {
      const value = tags[name];
      const problem =
        tagProblem(name) ??
        (typeof value === 'string' || typeof value === 'number' ? valueProblem(name, value) : `the value of ${name} must be text or a number.`);
      if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem });
    }
  })
  .transform((tags) => tags as Record<string, string | number>)
  .meta({ default: null, description: METADATA_DESCRIPTION });
const MAX_TAGS = 100;

const spec = (s: OperationSpec) => s;

export const PROCESSING_OPERATIONS: readonly OperationSpec[] = [
  spec({
    name: 'convert',
    step: 'process',
    inputs: 'required',
    schema: withEngineCheck(
      'convert',
      z.looseObject({
        ...common,
        ...captureOptions,
        input_format: format.optional(),
        output_format: format,
        filename: filename.optional(),
        pages: opt(pages, null, 'PDF and documents: the pages to convert'),
        width: opt(dimension, null, 'px'),
        height: opt(dimension, null, 'px'),
        fit: opt(fit, 'max'),
        quality: opt(quality, 85),
        strip: opt(z.boolean(), true, 'remove metadata'),
        density: opt(z.number().int().min(10).max(1200), 150, 'PDF rendering dpi'),
        video_codec: opt(z.enum(['copy', 'h264', 'h265', 'vp9', 'av1', 'mpeg4']), null, 'default: the container’s usual codec'),
        crf: opt(z.number().int().min(0).max(63), 23),
        preset: opt(z.enum(['ultrafast', 'superfast', 'veryfast', 'faster', 'fast', 'medium', 'slow', 'slower', 'veryslow']), 'medium'),
        audio_codec: opt(z.enum(['copy', 'aac', 'mp3', 'opus', 'vorbis', 'flac', 'pcm', 'none']), null),
        audio_bitrate: opt(z.number().int().min(8).max(512), 128, 'kbit/s'),
        fps: opt(z.number().positive().max(240)),
      }),
    ),
  }),
  spec({
    name: 'thumbnail',
    step: 'process',
    inputs: 'required',
    schema: withEngineCheck(
      'thumbnail',
      z.looseObject({
        ...common,
        input_format: format.optional(),
        output_format: z.enum(['png', 'jpg', 'jpeg', 'webp']),
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
      }),
    ),
  }),
  spec({
    name: 'watermark',
    step: 'process',
    inputs: 'optional',
    schema: withEngineCheck(
      'watermark',
      z
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
          const image = v.image as string | undefined;
          const inputs = (v.input as string[] | undefined) ?? [];
          if (image !== undefined && !/^https?:\/\//i.test(image) && !inputs.includes(image)) {
            ctx.addIssue({ code: 'custom', path: ['image'], message: 'must be an http(s) URL or a task that is also listed in input' });
          }
        }),
      watermarkRequest,
    ),
  }),
  spec({
    name: 'capture-website',
    step: 'process',
    inputs: 'none',
    schema: withEngineCheck(
      'capture-website',
      z.looseObject({
        ...common,
        ...captureOptions,
        url: httpUrl,
        output_format: z.enum(['pdf', 'png', 'jpg', 'jpeg']),
        filename: filename.optional(),
      }),
      defaultRequest({ withoutInput: true }),
    ),
  }),
  spec({
    name: 'optimize',
    step: 'process',
    inputs: 'required',
    schema: withEngineCheck(
      'optimize',
      z.looseObject({
        ...common,
        input_format: z.enum(['pdf', 'png', 'jpg', 'jpeg']).optional(),
        filename: filename.optional(),
        profile: opt(z.enum(['web', 'print', 'archive', 'mrc', 'max']), 'web'),
        quality: opt(quality, null, 'images: default from the profile'),
        flatten_signatures: opt(z.boolean(), false, 'PDF: draw signature fields into the page so the optimized file keeps their look'),
        colorspace: opt(z.enum(['rgb', 'cmyk', 'gray']), null, 'default: unchanged'),
      }),
      sameFormat,
    ),
  }),
  spec({
    name: 'metadata',
    step: 'process',
    inputs: 'required',
    schema: withEngineCheck('metadata', z.looseObject({ ...common, input_format: format.optional() }), sameFormat),
  }),
  spec({
    name: 'metadata/write',
    step: 'process',
    inputs: 'required',
    schema: withEngineCheck(
      'metadata/write',
      z.looseObject({
        ...common,
        input_format: format.optional(),
        filename: filename.optional(),
        metadata: metadataTags,
      }),
      sameFormat,
    ),
  }),
  spec({
    name: 'merge',
    step: 'process',
    inputs: 'required',
    schema: withEngineCheck('merge', z.looseObject({ ...common, output_format: z.enum(['pdf']), filename: filename.optional() })),
  }),
];
