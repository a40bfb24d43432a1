/** convert's arguments for presentations and drawings on LibreOffice (lib/engines/office/slides-formats.ts), CloudConvert's names. */
import * as z from 'zod';
import { opt } from '../framework/fields.js';

export const SLIDES_FIELDS = {
  pdf_a: opt(z.boolean(), false, 'office documents to PDF: a PDF/A-2b'),
  hidden_slides: opt(z.boolean(), false, 'presentations: include the hidden slides'),
};
