/** `merge`: PDFs and images into one PDF, in input order (pdf-lib). */
import { mergeToPdf } from '../engines/pdf.js';
import { engineOperation } from './engine-task.js';

export const merge = engineOperation({
  operation: 'merge',
  mode: 'all',
  outputFormat: () => 'pdf',
  handlers: { 'pdf-lib': mergeToPdf },
});
