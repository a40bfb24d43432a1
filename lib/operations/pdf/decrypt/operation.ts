/** `pdf/decrypt`: the input without its encryption, opened with `password` (qpdf). */
import * as z from 'zod';
import { defineOperation } from '../../define.js';
import { sameFormat } from '../../engine-request.js';
import { common, filename, opt } from '../../fields.js';
import { password } from '../fields.js';

const name = 'pdf/decrypt';

export const pdfDecrypt = defineOperation({
  name,
  step: 'process',
  inputs: 'required',
  schema: z.looseObject({
    ...common,
    input_format: z.enum(['pdf']).optional(),
    filename: filename.optional(),
    password: opt(password, null, 'the password that opens the input (needed when it asks for one on opening)'),
  }),
  engines: {
    request: sameFormat,
    mode: 'each',
    outputFormat: () => 'pdf',
    order: ['qpdf'],
    capabilities: { qpdf: [{ inputs: ['pdf'], outputs: ['pdf'], options: ['password'], credits: 1 }] },
  },
});
