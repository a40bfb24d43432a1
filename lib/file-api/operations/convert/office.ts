/** convert on the office function's engine: office documents to PDF with LibreOffice; presentations and drawings with Impress and Draw. */
import { officeToPdf } from '../../../engines/office/libreoffice.js';
import { appOf } from '../../../engines/office/slides-formats.js';
import { convertSlides } from '../../../engines/office/slides.js';
import type { EngineCall } from '../../../engines/core/call.js';
import { normalizeFormat } from '../../../engines/core/formats.js';
import { handlers } from '../framework/define.js';
import { convert } from './operation.js';

/** Impress and Draw's formats (slides.ts), the rest as before. */
const libreoffice = (call: EngineCall<{ output_format: string; pages?: string }>) => (appOf(normalizeFormat(call.inputs[0]?.format ?? '')) ? convertSlides(call) : officeToPdf(call));

export default handlers(convert, 'office', { libreoffice });
