/**
 * `convert`: between formats, each pair on its natural engine (see lib/engines/catalog.ts): images
 * with sharp, images to PDF with pdf-lib, PDF pages to images with Ghostscript, office documents to
 * PDF with LibreOffice, HTML with Chromium, video and audio with FFmpeg. The handlers are in the
 * engine families (operations/families/).
 */
import { normalizeFormat } from '../engines/formats.js';
import type { EngineOperationShape } from './engine-task.js';

export const convertShape: EngineOperationShape = {
  operation: 'convert',
  mode: 'each',
  outputFormat: (p) => normalizeFormat(String(p.output_format)),
};
