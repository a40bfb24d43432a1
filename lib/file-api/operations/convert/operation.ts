/**
 * `convert`: between formats, each pair on its natural engine: images with sharp, images to PDF with
 * pdf-lib, PDF pages to images with Ghostscript, office documents to PDF with LibreOffice, HTML with
 * Chromium, video and audio with FFmpeg.
 */
import * as z from 'zod';
import { IMAGE_FORMATS, IMAGE_INPUT_FORMATS, normalizeFormat } from '../../../engines/core/formats.js';
import { MAGICK_INPUT_FORMATS, MAGICK_OUTPUT_FORMATS } from '../../../engines/image/magick-formats.js';
import { ARCHIVE_INPUT_FORMATS, ARCHIVE_OUTPUT_FORMATS } from '../../../engines/archive/formats.js';
import { POSTSCRIPT_INPUTS, POSTSCRIPT_OUTPUTS } from '../../../engines/pdf/postscript-formats.js';
import { defineOperation } from '../framework/define.js';
import { AUDIO_CODEC_NAMES, CONVERT_CAPABILITIES as FFMPEG_CAPABILITIES, VIDEO_CODEC_NAMES } from '../../../engines/core/media-formats.js';
import { mediaOptionProblems } from '../../../engines/media/options.js';
import { FONT_FORMATS } from '../../../engines/font/formats.js';
import { PDF_TEXT_OUTPUTS } from '../../../engines/pdfjs/formats.js';
import { MARKDOWN_INPUTS, PANDOC_INPUTS, PANDOC_OUTPUTS } from '../../../engines/markup/formats.js';
import { OFFICE_DOCUMENT_CAPABILITIES } from '../../../engines/office/office-formats.js';
import { CALIBRE_OPTIONS, EBOOK_DOCUMENTS, EBOOK_INPUTS, EBOOK_OUTPUTS, EBOOK_PROFILES } from '../../../engines/office/calibre-formats.js';
import { SLIDES_CAPABILITIES } from '../../../engines/office/slides-formats.js';
import { SLIDES_FIELDS } from './slides-fields.js';
import {
  CAPTURE_COMMON,
  CAPTURE_PDF_OPTIONS,
  CAPTURE_SCREENSHOT_OPTIONS,
  captureOptions,
  common,
  dimension,
  filename,
  fit,
  format,
  IMAGE_OPTIONS,
  opt,
  pages,
  quality,
} from '../framework/fields.js';

const name = 'convert';

export const convert = defineOperation({
  name,
  step: 'process',
  inputs: 'required',
  schema: z.looseObject({
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
      // x264 and x265 are CloudConvert's names (its SDKs and recorded answers send them); h264 and h265 stay as aliases.
      video_codec: opt(z.enum(VIDEO_CODEC_NAMES), null, 'default: the container’s usual codec'),
      crf: opt(z.number().int().min(0).max(63), 23),
      preset: opt(z.enum(['ultrafast', 'superfast', 'veryfast', 'faster', 'fast', 'medium', 'slow', 'slower', 'veryslow']), 'medium'),
      audio_codec: opt(z.enum(AUDIO_CODEC_NAMES), null, 'default: the format’s usual codec; none: no sound'),
      audio_bitrate: opt(z.number().int().min(8).max(512), 128, 'kbit/s'),
      fps: opt(z.number().positive().max(240)),
      colorspace: opt(z.enum(['srgb', 'gray', 'cmyk']), null, 'images: the output’s colour space (default: the input’s)'),
      video_bitrate: opt(z.number().int().min(16).max(100_000), null, 'kbit/s; instead of crf'),
      audio_channels: opt(z.number().int().min(1).max(8), null, 'default: the input’s'),
      audio_frequency: opt(z.number().int().min(8000).max(96_000), null, 'Hz; default: the input’s'),
      trim_start: opt(z.union([z.number().min(0), z.string().max(32)]), null, 'seconds or HH:MM:SS.ms'),
      trim_end: opt(z.union([z.number().positive(), z.string().max(32)]), null, 'seconds or HH:MM:SS.ms'),
      password: opt(z.string().min(1).max(1024), null, 'archives: the password that opens the input'),
      optimize_print: opt(z.boolean(), true, 'office documents to PDF: images at 300 dpi; false: 150 dpi'),
      output_profile: opt(z.enum(EBOOK_PROFILES), null, 'e-books: the reader the output is laid out for (calibre’s output profile)'),
      base_font_size: opt(z.number().min(4).max(72), null, 'e-books: the base font size in points (default: the profile’s)'),
      ...SLIDES_FIELDS,
    })
    .superRefine((v, ctx) => {
      for (const { field, message } of mediaOptionProblems(normalizeFormat(v.output_format), v)) ctx.addIssue({ code: 'custom', path: [field], message });
    }),
  engines: {
    mode: 'each',
    outputFormat: (p) => normalizeFormat(p.output_format),
    order: ['sharp', 'pdf-lib', 'ghostscript', 'libreoffice', 'calibre', 'chrome', 'ffmpeg', 'imagemagick', 'archivetool', 'fonteditor', 'pdfjs', 'pandoc', 'markdown'],
    capabilities: {
      sharp: [{ inputs: IMAGE_INPUT_FORMATS, outputs: IMAGE_FORMATS, options: IMAGE_OPTIONS }],
      // SVG is drawn as vectors by Draw or Chromium below, not put in a page as pixels.
      'pdf-lib': [{ inputs: IMAGE_FORMATS, outputs: ['pdf'], options: [] }],
      ghostscript: [
        { inputs: ['pdf'], outputs: ['png', 'jpg', 'webp', 'tiff'], options: ['pages', 'density', ...IMAGE_OPTIONS] },
        // PostScript runs under -dSAFER with a time and page limit (lib/engines/pdf/postscript.ts).
        { inputs: POSTSCRIPT_INPUTS, outputs: ['png', 'jpg', 'webp', 'tiff', 'pdf'], options: ['pages', 'density', ...IMAGE_OPTIONS] },
        { inputs: ['pdf'], outputs: POSTSCRIPT_OUTPUTS, options: ['pages'] },
      ],
      libreoffice: [
        // Writer and Calc: lib/engines/office/office-formats.ts.
        ...OFFICE_DOCUMENT_CAPABILITIES,
        // Impress and Draw: lib/engines/office/slides-formats.ts.
        ...SLIDES_CAPABILITIES,
      ],
      calibre: [
        { inputs: EBOOK_INPUTS, outputs: [...EBOOK_OUTPUTS, ...EBOOK_DOCUMENTS], options: CALIBRE_OPTIONS },
        { inputs: EBOOK_DOCUMENTS, outputs: EBOOK_OUTPUTS, options: CALIBRE_OPTIONS },
      ],
      chrome: [
        { inputs: ['html'], outputs: ['pdf'], options: [...CAPTURE_PDF_OPTIONS, ...CAPTURE_COMMON] },
        { inputs: ['html'], outputs: ['png', 'jpg'], options: [...CAPTURE_SCREENSHOT_OPTIONS, ...CAPTURE_COMMON] },
        { inputs: ['svg'], outputs: ['pdf'], options: [] },
      ],
      imagemagick: [{ inputs: MAGICK_INPUT_FORMATS, outputs: MAGICK_OUTPUT_FORMATS, options: [...IMAGE_OPTIONS, 'colorspace', 'density', 'pages'], variant: 'wasm' }],
      // One per output format, offered where the installed build writes it (lib/engines/core/media-formats.ts).
      ffmpeg: FFMPEG_CAPABILITIES,
      archivetool: [{ inputs: ARCHIVE_INPUT_FORMATS, outputs: ARCHIVE_OUTPUT_FORMATS, options: ['password'] }],
      fonteditor: [{ inputs: FONT_FORMATS, outputs: FONT_FORMATS, options: [] }],
      pdfjs: [{ inputs: ['pdf'], outputs: PDF_TEXT_OUTPUTS, options: ['pages'] }],
      // Markup each way (lib/engines/markup/formats.ts); PDF through Chromium, from Markdown (the markdown engine) or HTML (chrome).
      pandoc: [{ inputs: PANDOC_INPUTS, outputs: PANDOC_OUTPUTS, options: [] }],
      markdown: [
        { inputs: MARKDOWN_INPUTS, outputs: ['html'], options: [] },
        { inputs: MARKDOWN_INPUTS, outputs: ['pdf'], options: [], feature: 'pdf' },
      ],
    },
  },
});
