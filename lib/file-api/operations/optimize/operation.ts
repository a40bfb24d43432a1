/** `optimize`: smaller PDFs (Ghostscript with a profile, or qpdf losslessly), PNGs and JPGs (sharp). */
import * as z from 'zod';
import { OPTIMIZE_PROFILE_NAMES } from '../../../engines/pdf/optimize-profiles.js';
import { defineOperation } from '../framework/define.js';
import { sameFormat } from '../framework/engine-request.js';
import { common, filename, opt, quality } from '../framework/fields.js';

const name = 'optimize';

export const optimize = defineOperation({
  name,
  step: 'process',
  inputs: 'required',
  schema: z.looseObject({
      ...common,
      input_format: z.enum(['pdf', 'png', 'jpg', 'jpeg']).optional(),
      filename: filename.optional(),
      profile: opt(z.enum(OPTIMIZE_PROFILE_NAMES), 'web'),
      quality: opt(quality, null, 'images: default from the profile'),
      flatten_signatures: opt(z.boolean(), false, 'PDF: draw signature fields into the page so the optimized file keeps their look'),
      colorspace: opt(z.enum(['rgb', 'cmyk', 'gray']), null, 'default: unchanged'),
    }),
  engines: {
    request: sameFormat,
    mode: 'each',
    outputFormat: () => undefined,
    order: ['ghostscript', 'qpdf', 'sharp'],
    capabilities: {
      ghostscript: [{ inputs: ['pdf'], outputs: 'same', options: ['profile', 'quality', 'flatten_signatures', 'colorspace'] }],
      qpdf: [{ inputs: ['pdf'], outputs: 'same', options: ['flatten_signatures'] }],
      sharp: [{ inputs: ['png', 'jpg'], outputs: 'same', options: ['profile', 'quality', 'colorspace'] }],
    },
  },
});
