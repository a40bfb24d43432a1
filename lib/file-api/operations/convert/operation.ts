/**
 * `convert`: between formats, each pair on its natural engine: images with sharp, images to PDF with
 * pdf-lib, PDF pages to images with Ghostscript, office documents to PDF with LibreOffice, HTML with
 * Chromium, video and audio with FFmpeg.
 */
import * as z from 'zod';
import { AUDIO_FORMATS, CALC_FORMATS, IMAGE_FORMATS, IMAGE_INPUT_FORMATS, IMPRESS_FORMATS, normalizeFormat, VIDEO_FORMATS, WRITER_FORMATS } from '../../../engines/core/formats.js';
import { POSTSCRIPT_INPUTS, POSTSCRIPT_OUTPUTS } from '../../../engines/pdf/postscript-formats.js';
import { defineOperation } from '../framework/define.js';
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
  MEDIA_OPTIONS,
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
      video_codec: opt(z.enum(['copy', 'x264', 'x265', 'h264', 'h265', 'vp9', 'av1', 'mpeg4']), null, 'default: the container’s usual codec'),
      crf: opt(z.number().int().min(0).max(63), 23),
      preset: opt(z.enum(['ultrafast', 'superfast', 'veryfast', 'faster', 'fast', 'medium', 'slow', 'slower', 'veryslow']), 'medium'),
      audio_codec: opt(z.enum(['copy', 'aac', 'mp3', 'opus', 'vorbis', 'flac', 'pcm', 'none']), null),
      audio_bitrate: opt(z.number().int().min(8).max(512), 128, 'kbit/s'),
      fps: opt(z.number().positive().max(240)),
    }),
  engines: {
    mode: 'each',
    outputFormat: (p) => normalizeFormat(p.output_format),
    order: ['sharp', 'pdf-lib', 'ghostscript', 'libreoffice', 'chrome', 'ffmpeg'],
    capabilities: {
      sharp: [{ inputs: IMAGE_INPUT_FORMATS, outputs: IMAGE_FORMATS, options: IMAGE_OPTIONS }],
      'pdf-lib': [{ inputs: IMAGE_INPUT_FORMATS, outputs: ['pdf'], options: [] }],
      ghostscript: [
        { inputs: ['pdf'], outputs: ['png', 'jpg', 'webp', 'tiff'], options: ['pages', 'density', ...IMAGE_OPTIONS] },
        // PostScript runs under -dSAFER with a time and page limit (lib/engines/pdf/postscript.ts).
        { inputs: POSTSCRIPT_INPUTS, outputs: ['png', 'jpg', 'webp', 'tiff', 'pdf'], options: ['pages', 'density', ...IMAGE_OPTIONS] },
        { inputs: ['pdf'], outputs: POSTSCRIPT_OUTPUTS, options: ['pages'] },
      ],
      libreoffice: [
        { inputs: WRITER_FORMATS, outputs: ['pdf'], options: ['pages'], feature: 'writer', credits: 2 },
        { inputs: CALC_FORMATS, outputs: ['pdf'], options: ['pages'], feature: 'calc', credits: 2 },
        { inputs: IMPRESS_FORMATS, outputs: ['pdf'], options: ['pages'], feature: 'impress', credits: 2 },
      ],
      chrome: [
        { inputs: ['html'], outputs: ['pdf'], options: [...CAPTURE_PDF_OPTIONS, ...CAPTURE_COMMON] },
        { inputs: ['html'], outputs: ['png', 'jpg'], options: [...CAPTURE_SCREENSHOT_OPTIONS, ...CAPTURE_COMMON] },
      ],
      ffmpeg: [
        { inputs: VIDEO_FORMATS, outputs: [...VIDEO_FORMATS, ...AUDIO_FORMATS, 'gif'], options: MEDIA_OPTIONS },
        { inputs: AUDIO_FORMATS, outputs: AUDIO_FORMATS, options: ['audio_codec', 'audio_bitrate'] },
      ],
    },
  },
});
