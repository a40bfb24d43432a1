/** `pdf/a`: a PDF/A-1b, -2b or -3b copy of the input (Ghostscript). */
import * as z from 'zod';
import { defineOperation } from '../../framework/define.js';
import { pdfArguments, pdfToPdf } from '../fields.js';
import { opt } from '../../framework/fields.js';

const name = 'pdf/a';

export const pdfA = defineOperation({
  name,
  step: 'process',
  inputs: 'required',
  schema: z.looseObject({
    ...pdfArguments,
    // The levels lib/engines/pdf/pdfa.ts makes (PDFA_LEVELS); a definition imports no engine.
    conformance_level: opt(z.enum(['1b', '2b', '3b']), '2b', 'PDF/A part and level: 1b, 2b or 3b'),
  }),
  engines: pdfToPdf('ghostscript', ['conformance_level']),
});
