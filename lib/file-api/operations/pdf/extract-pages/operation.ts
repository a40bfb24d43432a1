/** `pdf/extract-pages`: one PDF of the pages named, in the order named (qpdf). */
import * as z from 'zod';
import { defineOperation } from '../../framework/define.js';
import { pages } from '../../framework/fields.js';
import { inputPassword, pdfArguments, pdfToPdf } from '../fields.js';

const name = 'pdf/extract-pages';

export const pdfExtractPages = defineOperation({
  name,
  step: 'process',
  inputs: 'required',
  schema: z.looseObject({
    ...pdfArguments,
    pages: pages.meta({ description: 'the pages to keep, in the order wanted, such as 1-3,5,7- (a page past the last one is an error)' }),
    password: inputPassword,
  }),
  engines: pdfToPdf('qpdf', ['pages', 'password']),
});
