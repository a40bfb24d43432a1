/** convert on the PDF function's engines: PDF pages to images, PostScript (eps, ps, ai) to images and PDF, PDF to PostScript, with Ghostscript. */
import { ghostscriptConvert } from '../../../engines/pdf/postscript.js';
import { pdfToText } from '../../../engines/pdfjs/convert.js';
import { handlers } from '../framework/define.js';
import { convert } from './operation.js';

export default handlers(convert, 'pdf', { ghostscript: ghostscriptConvert, pdfjs: pdfToText });
