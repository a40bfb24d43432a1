/** pdf/split-pages on the PDF function: qpdf. */
import { splitPdfPages } from '../../../engines/qpdf-pages.js';
import { handlers } from '../../define.js';
import { pdfSplitPages } from './operation.js';

export default handlers(pdfSplitPages, 'pdf', { qpdf: splitPdfPages });
