/** convert on the office function's engine: text documents and spreadsheets each way, presentations to PDF, with LibreOffice. */
import { convertOffice } from '../../../engines/office/office-convert.js';
import { handlers } from '../framework/define.js';
import { convert } from './operation.js';

export default handlers(convert, 'office', { libreoffice: convertOffice });
