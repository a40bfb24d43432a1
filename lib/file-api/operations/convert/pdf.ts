/** convert on the PDF function's engines: PDF pages to images with Ghostscript. */
import { pdfToImages } from '../../../engines/pdf/ghostscript.js';
import { handlers } from '../framework/define.js';
import { convert } from './operation.js';

export default handlers(convert, 'pdf', { ghostscript: pdfToImages });
