/** optimize on the PDF function: Ghostscript with a profile, qpdf losslessly. */
import { optimizePdf } from '../../../engines/pdf/ghostscript.js';
import { optimizePdfLossless } from '../../../engines/pdf/qpdf.js';
import { handlers } from '../framework/define.js';
import { optimize } from './operation.js';

export default handlers(optimize, 'pdf', { ghostscript: optimizePdf, qpdf: optimizePdfLossless });
