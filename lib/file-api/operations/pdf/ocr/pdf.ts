/** pdf/ocr on the PDF function: Tesseract (system, or tesseract.js), with Ghostscript rendering and qpdf assembling. */
import { ocrToPdf } from '../../../../engines/ocr/ocr.js';
import { handlers } from '../../framework/define.js';
import { pdfOcr } from './operation.js';

export default handlers(pdfOcr, 'pdf', { tesseract: ocrToPdf });
