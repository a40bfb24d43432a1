/**
 * Argument schemas shared by several operations (lib/file-api/operations/<name>/operation.ts), and the lists
 * of those arguments each engine honours (for discovery). Every option carries its default as schema
 * metadata, so that `/v2/operations?include=options` is generated from the schemas that validate the
 * requests.
 */
import * as z from 'zod';
import { isSafeFilename } from '../../../adapters/file-store/names.js';

/** `input` as given: a task name or id, or several; stored as a list. */
export const inputField = z
  .union([z.string().min(1, 'must name a task'), z.array(z.string().min(1, 'must name a task')).min(1)])
  .transform((v) => (Array.isArray(v) ? v : [v]));

/** A file name as given in arguments: already what lib/adapters/file-store/names.ts would make of it. */
export const filename = z
  .string()
  .min(1)
  .max(255)
  .refine(isSafeFilename, 'must be a plain file name: no slashes or backslashes, no control characters, not only dots, at most 255 bytes');

/** Arguments every task accepts. Unknown arguments are kept and echoed in `payload`. */
export const common = {
  input: inputField.optional(),
  ignore_error: z.boolean().optional(),
  timeout: z.number().int().positive().max(24 * 60 * 60).optional(),
  engine: z.string().optional(),
  engine_version: z.string().optional(),
  name: z.string().optional(),
};

export const headers = z.record(z.string(), z.string());

/** An optional argument with its default (what the engine does when it is absent), for discovery. */
export const opt = <T extends z.ZodType>(schema: T, defaultValue: unknown = null, description?: string) =>
  schema.optional().meta({ default: defaultValue, ...(description ? { description } : {}) });

export const format = z.string().trim().min(1).max(16).regex(/^[A-Za-z0-9.]+$/, 'must be a file format such as pdf or jpg');
export const hexColor = z.string().regex(/^#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{3})$/, 'must be a colour in #rrggbb form');
/**
 * Page ranges as `1-3,5,7-` (1-based). Written so that no two quantifiers can share a run of text
 * (`-\s*(?:\d+\s*)?`, not `-\s*\d*\s*`): matching stays linear in the length of the request text.
 */
export const PAGE_RANGES = /^\s*\d+\s*(?:-\s*(?:\d+\s*)?)?(?:,\s*\d+\s*(?:-\s*(?:\d+\s*)?)?)*$/;
export const pages = z.string().regex(PAGE_RANGES, 'must be page numbers and ranges such as 1-3,5');
export const dimension = z.number().int().min(1).max(20_000);
export const fit = z.enum(['max', 'crop', 'scale']);
export const quality = z.number().int().min(1).max(100);

export const FONT_FAMILIES = ['Arial', 'Helvetica', 'Times New Roman', 'Courier New', 'Verdana'] as const;
export const FONT_NAMES = FONT_FAMILIES.flatMap((f) => [f, `${f} Bold`, `${f} Italic`, `${f} Bold Italic`]);

/** Arguments of a website capture (capture-website, HTML conversion). */
export const captureOptions = {
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

/** An absolute http(s) URL. */
export const httpUrl = z
  .string()
  .url('must be an absolute http(s) URL')
  .refine((u) => /^https?:\/\//i.test(u), 'must be an http or https URL');

// The arguments each engine honours, by kind of work (discovery lists them per engine and format pair).

export const IMAGE_OPTIONS = ['width', 'height', 'fit', 'quality', 'strip'] as const;
export const WATERMARK_OPTIONS = [
  'pages',
  'layer',
  'text',
  'font_size',
  'font_width_percent',
  'font_color',
  'font_name',
  'font_align',
  'image',
  'image_width',
  'image_height',
  'image_width_percent',
  'position_vertical',
  'position_horizontal',
  'margin_vertical',
  'margin_horizontal',
  'opacity',
  'rotation',
] as const;
export const WATERMARK_IMAGE_OPTIONS = WATERMARK_OPTIONS.filter((o) => o !== 'pages');
export const WATERMARK_VIDEO_OPTIONS = WATERMARK_IMAGE_OPTIONS.filter((o) => o !== 'layer');
export const CAPTURE_PDF_OPTIONS = [
  'pages',
  'zoom',
  'page_width',
  'page_height',
  'page_format',
  'page_orientation',
  'margin_top',
  'margin_bottom',
  'margin_left',
  'margin_right',
  'print_background',
  'display_header_footer',
  'header_template',
  'footer_template',
] as const;
export const CAPTURE_COMMON = ['wait_until', 'wait_for_element', 'wait_time', 'css_media_type', 'headers'] as const;
export const CAPTURE_SCREENSHOT_OPTIONS = ['zoom', 'screen_width', 'screen_height', 'clip', 'device_scale_factor', 'transparent_background', 'quality'] as const;
export const THUMBNAIL_OPTIONS = ['width', 'height', 'fit'] as const;
