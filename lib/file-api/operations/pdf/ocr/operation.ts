/**
 * `pdf/ocr`: a scanned PDF or an image in, a searchable PDF out (Tesseract: the system one or
 * tesseract.js). Every page keeps what it shows; an invisible layer of the recognized words is laid
 * over it (lib/engines/ocr/ocr.ts).
 */
import * as z from 'zod';
import { IMAGE_FORMATS } from '../../../../engines/core/formats.js';
import { defineOperation } from '../../framework/define.js';
import { defaultRequest } from '../../framework/engine-request.js';
import { common, filename, format, opt } from '../../framework/fields.js';

const name = 'pdf/ocr';

/** A Tesseract language code (`eng`, `deu`, `chi_sim`…). Which ones are installed is the engine's answer. */
const LANGUAGE_MESSAGE = 'must be Tesseract language codes such as eng or deu (a list, or joined with +)';
const language = z.union([
  // Codes joined with `+` (Tesseract's own form): each separated by a `+`, so matching stays linear.
  z.string().regex(/^[A-Za-z0-9_]{2,32}(?:\+[A-Za-z0-9_]{2,32}){0,9}$/, LANGUAGE_MESSAGE),
  z.array(z.string().regex(/^[A-Za-z0-9_]{2,32}$/, LANGUAGE_MESSAGE)).min(1).max(10),
]);

export const pdfOcr = defineOperation({
  name,
  step: 'process',
  inputs: 'required',
  schema: z.looseObject({
    ...common,
    input_format: format.optional(),
    filename: filename.optional(),
    language: opt(language, 'eng', 'Tesseract language codes, one or a list (eng, deu…): those the engine has installed'),
  }),
  engines: {
    // Always a PDF out, whatever comes in.
    request: (args) => ({ ...defaultRequest()(args), outputFormat: 'pdf' }),
    mode: 'each',
    outputFormat: () => 'pdf',
    order: ['tesseract'],
    capabilities: {
      tesseract: [{ inputs: ['pdf', ...IMAGE_FORMATS], outputs: ['pdf'], options: ['language'], credits: 1 }],
    },
  },
});
