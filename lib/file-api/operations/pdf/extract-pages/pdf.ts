/** pdf/extract-pages on the PDF function: qpdf. */
import { extractPdfPages } from '../../../../engines/pdf/qpdf-pages.js';
import { handlers } from '../../framework/define.js';
import { pdfExtractPages } from './operation.js';

export default handlers(pdfExtractPages, 'pdf', { qpdf: extractPdfPages });
