/** convert on the office function's engines: documents, spreadsheets and slides with LibreOffice, markup with pandoc. */
import { convertOffice } from '../../../engines/office/office-convert.js';
import { pandocConvert } from '../../../engines/markup/pandoc.js';
import { handlers } from '../framework/define.js';
import { convert } from './operation.js';

export default handlers(convert, 'office', { libreoffice: convertOffice, pandoc: pandocConvert });
