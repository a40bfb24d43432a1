/** convert on the office function's engines: documents, spreadsheets and slides with LibreOffice, e-books with calibre, markup with pandoc. */
import { convertOffice } from '../../../engines/office/office-convert.js';
import { convertEbook } from '../../../engines/office/calibre.js';
import { pandocConvert } from '../../../engines/markup/pandoc.js';
import { handlers } from '../framework/define.js';
import { convert } from './operation.js';

export default handlers(convert, 'office', { libreoffice: convertOffice, calibre: convertEbook, pandoc: pandocConvert });
