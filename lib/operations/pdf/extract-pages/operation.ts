/** `pdf/extract-pages`: one PDF of the pages named, in the order named (qpdf). */
import * as z from 'zod';
import { defineOperation } from '../../define.js';
import { sameFormat } from '../../engine-request.js';
import { common, filename, pages } from '../../fields.js';
import { inputPassword } from '../fields.js';

const name = 'pdf/extract-pages';

export const pdfExtractPages = defineOperation({
  name,
  step: 'process',
  inputs: 'required',
  schema: z.looseObject({
    ...common,
    input_format: z.enum(['pdf']).optional(),
    filename: filename.optional(),
    pages: pages.meta({ description: 'the pages to keep, in the order wanted, such as 1-3,5,7- (a page past the last one is an error)' }),
    password: inputPassword,
  }),
  engines: {
    request: sameFormat,
    mode: 'each',
    outputFormat: () => 'pdf',
    order: ['qpdf'],
    capabilities: { qpdf: [{ inputs: ['pdf'], outputs: ['pdf'], options: ['pages', 'password'], credits: 1 }] },
  },
});
