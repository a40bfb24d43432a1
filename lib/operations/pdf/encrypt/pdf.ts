/** pdf/encrypt on the PDF function: qpdf. */
import { encryptPdf } from '../../../engines/qpdf-pages.js';
import { handlers } from '../../define.js';
import { pdfEncrypt } from './operation.js';

export default handlers(pdfEncrypt, 'pdf', { qpdf: encryptPdf });
