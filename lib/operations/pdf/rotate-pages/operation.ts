/** `pdf/rotate-pages`: pages of a PDF turned clockwise by 90, 180 or 270 degrees (all pages, or `pages`). */
import * as z from 'zod';
import { defineOperation } from '../../define.js';
import { common, filename, opt, pages } from '../../fields.js';

export const rotatePages = defineOperation({
  name: 'pdf/rotate-pages',
  step: 'process',
  inputs: 'required',
  schema: z.looseObject({
    ...common,
    input_format: z.enum(['pdf']).optional(),
    filename: filename.optional(),
    rotation: z.union([z.literal(90), z.literal(180), z.literal(270)], { error: 'must be 90, 180 or 270 (degrees, clockwise)' }),
    pages: opt(pages, null, 'the pages to rotate, such as 1-3,5 (default all)'),
  }),
  engines: {
    mode: 'each',
    outputFormat: () => 'pdf',
    order: ['qpdf'],
    capabilities: { qpdf: [{ inputs: ['pdf'], outputs: ['pdf'], options: ['rotation', 'pages'] }] },
  },
});
