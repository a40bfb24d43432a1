/** merge on the image function: pdf-lib. */
import { mergeToPdf } from '../../../engines/pdf/pdf.js';
import { handlers } from '../framework/define.js';
import { merge } from './operation.js';

export default handlers(merge, 'image', { 'pdf-lib': mergeToPdf });
