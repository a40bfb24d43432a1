/** `merge`: PDFs and images, in input order, into one PDF (pdf-lib). */
import * as z from 'zod';
import { IMAGE_INPUT_FORMATS } from '../../../engines/core/formats.js';
import { defineOperation } from '../framework/define.js';
import { common, filename } from '../framework/fields.js';

const name = 'merge';

export const merge = defineOperation({
  name,
  step: 'process',
  inputs: 'required',
  schema: z.looseObject({ ...common, output_format: z.enum(['pdf']), filename: filename.optional() }),
  engines: {
    mode: 'all',
    outputFormat: () => 'pdf',
    order: ['pdf-lib'],
    capabilities: { 'pdf-lib': [{ inputs: ['pdf', ...IMAGE_INPUT_FORMATS], outputs: ['pdf'], options: [] }] },
  },
});
