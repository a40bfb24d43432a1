/** `pdf/decrypt`: the input without its encryption, opened with `password` (qpdf). */
import * as z from 'zod';
import { defineOperation } from '../../framework/define.js';
import { opt } from '../../framework/fields.js';
import { password, pdfArguments, pdfToPdf } from '../fields.js';

const name = 'pdf/decrypt';

export const pdfDecrypt = defineOperation({
  name,
  step: 'process',
  inputs: 'required',
  schema: z.looseObject({
    ...pdfArguments,
    password: opt(password, null, 'the password that opens the input (needed when it asks for one on opening)'),
  }),
  engines: pdfToPdf('qpdf', ['password']),
});
