/** `pdf/x`: a PDF/X-3 copy of the input, colours converted to CMYK for SWOP (Ghostscript). */
import * as z from 'zod';
import { defineOperation } from '../../framework/define.js';
import { pdfArguments, pdfToPdf } from '../fields.js';

const name = 'pdf/x';

export const pdfX = defineOperation({
  name,
  step: 'process',
  inputs: 'required',
  schema: z.looseObject(pdfArguments),
  engines: pdfToPdf('ghostscript', []),
});
