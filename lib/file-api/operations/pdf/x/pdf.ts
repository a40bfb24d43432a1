/** pdf/x on the PDF function: Ghostscript. */
import { pdfX as pdfXEngine } from '../../../../engines/pdf/pdfa.js';
import { handlers } from '../../framework/define.js';
import { pdfX } from './operation.js';

export default handlers(pdfX, 'pdf', { ghostscript: pdfXEngine });
