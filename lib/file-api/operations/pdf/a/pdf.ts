/** pdf/a on the PDF function: Ghostscript. */
import { pdfA as pdfAEngine } from '../../../../engines/pdf/pdfa.js';
import { handlers } from '../../framework/define.js';
import { pdfA } from './operation.js';

export default handlers(pdfA, 'pdf', { ghostscript: pdfAEngine });
