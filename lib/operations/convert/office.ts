/** convert on the office function's engine: office documents to PDF with LibreOffice. */
import { officeToPdf } from '../../engines/libreoffice.js';
import { handlers } from '../define.js';
import { convert } from './operation.js';

export default handlers(convert, 'office', { libreoffice: officeToPdf });
