/** thumbnail on the PDF function: a PDF's first page with Ghostscript. */
import { pdfThumbnail } from '../../../engines/pdf/ghostscript.js';
import { handlers } from '../framework/define.js';
import { thumbnail } from './operation.js';

export default handlers(thumbnail, 'pdf', { ghostscript: pdfThumbnail });
