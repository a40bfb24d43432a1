/** `pdf/a`: a PDF/A-1b, -2b or -3b copy of the input (Ghostscript). */
import * as z from 'zod';
import { defineOperation } from '../../define.js';
import { sameFormat } from '../../engine-request.js';
import { common, filename, opt } from '../../fields.js';

const name = 'pdf/a';

export const pdfA = defineOperation({
  name,
  step: 'process',
  inputs: 'required',
  schema: z.looseObject({
    ...common,
    input_format: z.enum(['pdf']).optional(),
    filename: filename.optional(),
    // The levels lib/engines/pdfa.ts makes (PDFA_LEVELS); a definition imports no engine.
    conformance_level: opt(z.enum(['1b', '2b', '3b']), '2b', 'PDF/A part and level: 1b, 2b or 3b'),
  }),
  engines: {
    request: sameFormat,
    mode: 'each',
    outputFormat: () => 'pdf',
    order: ['ghostscript'],
    capabilities: { ghostscript: [{ inputs: ['pdf'], outputs: ['pdf'], options: ['conformance_level'], credits: 1 }] },
  },
});
