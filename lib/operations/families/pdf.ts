/** The PDF family: Ghostscript and qpdf. */
import { optimizePdf, pdfThumbnail, pdfToImages } from '../../engines/ghostscript.js';
import { optimizePdfLossless } from '../../engines/qpdf.js';
import type { FamilyHandlers } from './types.js';

export const PDF_FAMILY: FamilyHandlers = {
  family: 'pdf',
  engines: {
    convert: { ghostscript: pdfToImages },
    thumbnail: { ghostscript: pdfThumbnail },
    optimize: { ghostscript: optimizePdf, qpdf: optimizePdfLossless },
  },
};
