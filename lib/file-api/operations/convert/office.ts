/** convert on the office function's engine: office documents to PDF with LibreOffice. */
import { officeToPdf } from '../../../engines/office/libreoffice.js';
import { convertEbook } from '../../../engines/office/calibre.js';
import { handlers } from '../framework/define.js';
import { convert } from './operation.js';

export default handlers(convert, 'office', { libreoffice: officeToPdf, calibre: convertEbook });
