/** pdf/decrypt on the PDF function: qpdf. */
import { decryptPdf } from '../../../../engines/pdf/qpdf-pages.js';
import { handlers } from '../../framework/define.js';
import { pdfDecrypt } from './operation.js';

export default handlers(pdfDecrypt, 'pdf', { qpdf: decryptPdf });
