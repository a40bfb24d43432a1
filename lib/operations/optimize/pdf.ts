/** optimize on the PDF function: Ghostscript with a profile, qpdf losslessly. */
import { optimizePdf } from '../../engines/ghostscript.js';
import { optimizePdfLossless } from '../../engines/qpdf.js';
import { handlers } from '../define.js';
import { optimize } from './operation.js';

export default handlers(optimize, 'pdf', { ghostscript: optimizePdf, qpdf: optimizePdfLossless });
