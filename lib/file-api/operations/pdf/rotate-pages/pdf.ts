/**
 * pdf/rotate-pages on the PDF function: qpdf adds the rotation to each page's `/Rotate` (the page
 * content is not redrawn). The pages are given to qpdf as numbers parsed here, never as the client's text.
 */
import type { EngineCall, EngineResult } from '../../../../engines/core/call.js';
import { EngineFailure } from '../../../../engines/core/errors.js';
import { pdfPageCount } from '../../../../engines/core/limits.js';
import { selectPages } from '../../../../engines/pdf/pdf.js';
import { runQpdf } from '../../../../engines/pdf/qpdf.js';
import { qpdfWasm, type QpdfTool } from '../../../../engines/core/shipped.js';
import { handlers } from '../../framework/define.js';
import { rotatePages } from './operation.js';

async function rotateWithQpdf(call: EngineCall<{ rotation: 90 | 180 | 270; pages?: string }>): Promise<EngineResult> {
  const [input] = call.inputs;
  const [name] = call.names('pdf', 1);
  const out = call.output(name!);
  const { installed } = call.choice;
  const wasm = installed.variant === 'wasm' ? qpdfWasm() : undefined;
  const tool: QpdfTool = wasm ? { variant: 'wasm', file: wasm.file, module: wasm } : { variant: 'system', file: installed.executable! };
  const count = await pdfPageCount(input!.path, { ...call.tool, qpdf: call.config.QPDF_PATH, limits: call.config });
  const chosen = call.payload.pages === undefined ? [] : selectPages(call.payload.pages, count);
  if (call.payload.pages !== undefined && chosen.length === 0) {
    throw new EngineFailure('INVALID_INPUT', `None of the pages ${call.payload.pages} is in ${input!.filename}, which has ${count} pages.`);
  }
  const range = chosen.length ? `:${chosen.join(',')}` : '';
  await runQpdf(tool, ['--warning-exit-0', `--rotate=+${call.payload.rotation}${range}`], input!.path, out, call.tool);
  return { files: [{ path: out, filename: name!, contentType: 'application/pdf' }] };
}

export default handlers(rotatePages, 'pdf', { qpdf: rotateWithQpdf });
