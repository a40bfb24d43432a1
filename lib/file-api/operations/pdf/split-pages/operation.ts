/** `pdf/split-pages`: one PDF per page of the input (qpdf). */
import * as z from 'zod';
import { defineOperation } from '../../framework/define.js';
import { inputPassword, pdfArguments, pdfToPdf } from '../fields.js';

const name = 'pdf/split-pages';

export const pdfSplitPages = defineOperation({
  name,
  step: 'process',
  inputs: 'required',
  schema: z.looseObject({
    ...pdfArguments,
    password: inputPassword,
  }),
  engines: pdfToPdf('qpdf', ['password']),
});
