/** `pdf/split-pages`: one PDF per page of the input (qpdf). */
import * as z from 'zod';
import { defineOperation } from '../../define.js';
import { sameFormat } from '../../engine-request.js';
import { common, filename } from '../../fields.js';
import { inputPassword } from '../fields.js';

const name = 'pdf/split-pages';

export const pdfSplitPages = defineOperation({
  name,
  step: 'process',
  inputs: 'required',
  schema: z.looseObject({
    ...common,
    input_format: z.enum(['pdf']).optional(),
    filename: filename.optional(),
    password: inputPassword,
  }),
  engines: {
    request: sameFormat,
    mode: 'each',
    outputFormat: () => 'pdf',
    order: ['qpdf'],
    capabilities: { qpdf: [{ inputs: ['pdf'], outputs: ['pdf'], options: ['password'], credits: 1 }] },
  },
});
