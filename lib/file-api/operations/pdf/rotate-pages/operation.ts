/** `pdf/rotate-pages`: pages of a PDF turned clockwise by 90, 180 or 270 degrees (all pages, or `pages`). */
import * as z from 'zod';
import { defineOperation } from '../../framework/define.js';
import { pdfArguments, pdfToPdf } from '../fields.js';
import { opt, pages } from '../../framework/fields.js';

export const rotatePages = defineOperation({
  name: 'pdf/rotate-pages',
  step: 'process',
  inputs: 'required',
  schema: z.looseObject({
    ...pdfArguments,
    rotation: z.union([z.literal(90), z.literal(180), z.literal(270)], { error: 'must be 90, 180 or 270 (degrees, clockwise)' }),
    pages: opt(pages, null, 'the pages to rotate, such as 1-3,5 (default all)'),
  }),
  engines: pdfToPdf('qpdf', ['rotation', 'pages']),
});
