/** convert on the office function's engine: office documents to PDF with LibreOffice; presentations and drawings with Impress and Draw. */
import { officeToPdf } from '../../../engines/office/libreoffice.js';
import { appOf } from '../../../engines/office/slides-formats.js';
import { convertSlides } from '../../../engines/office/slides.js';
import type { EngineCall } from '../../../engines/core/call.js';
import { normalizeFormat } from '../../../engines/core/formats.js';
import { handlers } from '../framework/define.js';
import { convert } from './operation.js';

/** Impress and Draw's formats (slides.ts) and PDF pages to SVG; the rest as before. */
function isSlides(call: EngineCall<{ output_format: string }>): boolean {
  const from = normalizeFormat(call.inputs[0]?.format ?? '');
  return from === 'pdf' ? normalizeFormat(call.payload.output_format) === 'svg' : appOf(from) !== undefined;
}
const libreoffice = (call: EngineCall<{ output_format: string; pages?: string }>) => (isSlides(call) ? convertSlides(call) : officeToPdf(call));

export default handlers(convert, 'office', { libreoffice });
