/**
 * convert on the office function's engines: text documents and spreadsheets (office-convert.ts),
 * presentations, drawings and PDF pages to SVG (slides.ts) with LibreOffice; e-books with calibre;
 * markup with pandoc.
 */
import { convertEbook } from '../../../engines/office/calibre.js';
import { convertOffice, type OfficeConvertPayload } from '../../../engines/office/office-convert.js';
import { appOf } from '../../../engines/office/slides-formats.js';
import { convertSlides } from '../../../engines/office/slides.js';
import { pandocConvert } from '../../../engines/markup/pandoc.js';
import type { EngineCall } from '../../../engines/core/call.js';
import { normalizeFormat } from '../../../engines/core/formats.js';
import { handlers } from '../framework/define.js';
import { convert } from './operation.js';

/** Impress and Draw's formats, and PDF pages to SVG. */
function isSlides(call: EngineCall<{ output_format: string }>): boolean {
  const from = normalizeFormat(call.inputs[0]?.format ?? '');
  return from === 'pdf' ? normalizeFormat(call.payload.output_format) === 'svg' : appOf(from) !== undefined;
}
const libreoffice = (call: EngineCall<OfficeConvertPayload & { output_format: string; pages?: string }>) => (isSlides(call) ? convertSlides(call) : convertOffice(call));

export default handlers(convert, 'office', { libreoffice, calibre: convertEbook, pandoc: pandocConvert });
