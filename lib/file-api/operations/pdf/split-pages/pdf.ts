/** pdf/split-pages on the PDF function: qpdf. */
import { splitPdfPages } from '../../../../engines/pdf/qpdf-pages.js';
import { handlers } from '../../framework/define.js';
import { pdfSplitPages } from './operation.js';

export default handlers(pdfSplitPages, 'pdf', { qpdf: splitPdfPages });
