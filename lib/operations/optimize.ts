/** `optimize`: smaller PDFs (Ghostscript with a profile, or qpdf losslessly), PNGs and JPGs (sharp). */
import { optimizePdf } from '../engines/ghostscript.js';
import { optimizePdfLossless } from '../engines/qpdf.js';
import { optimizeImage } from '../engines/sharp.js';
import { engineOperation } from './engine-task.js';

export const optimize = engineOperation({
  operation: 'optimize',
  mode: 'each',
  outputFormat: () => undefined,
  handlers: { ghostscript: optimizePdf, qpdf: optimizePdfLossless, sharp: optimizeImage },
});
