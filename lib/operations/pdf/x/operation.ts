/** `pdf/x`: a PDF/X-3 copy of the input, colours converted to CMYK for SWOP (Ghostscript). */
import * as z from 'zod';
import { defineOperation } from '../../define.js';
import { sameFormat } from '../../engine-request.js';
import { common, filename } from '../../fields.js';

const name = 'pdf/x';

export const pdfX = defineOperation({
  name,
  step: 'process',
  inputs: 'required',
  schema: z.looseObject({
    ...common,
    input_format: z.enum(['pdf']).optional(),
    filename: filename.optional(),
  }),
  engines: {
    request: sameFormat,
    mode: 'each',
    outputFormat: () => 'pdf',
    order: ['ghostscript'],
    capabilities: { ghostscript: [{ inputs: ['pdf'], outputs: ['pdf'], options: [], credits: 1 }] },
  },
});
