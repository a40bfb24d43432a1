/** pdf/encrypt on the PDF function: qpdf. */
import { encryptPdf } from '../../../../engines/pdf/qpdf-pages.js';
import { handlers } from '../../framework/define.js';
import { pdfEncrypt } from './operation.js';

export default handlers(pdfEncrypt, 'pdf', { qpdf: encryptPdf });
