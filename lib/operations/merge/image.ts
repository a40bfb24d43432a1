/** merge on the image function: pdf-lib. */
import { mergeToPdf } from '../../engines/pdf.js';
import { handlers } from '../define.js';
import { merge } from './operation.js';

export default handlers(merge, 'image', { 'pdf-lib': mergeToPdf });
