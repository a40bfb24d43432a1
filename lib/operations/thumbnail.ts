/** `thumbnail`: png, jpg or webp of an image, a PDF's first page or video frames at `timestamp` (handlers: operations/families/). */
import { normalizeFormat } from '../engines/formats.js';
import type { EngineOperationShape } from './engine-task.js';

export const thumbnailShape: EngineOperationShape = {
  operation: 'thumbnail',
  mode: 'each',
  outputFormat: (p) => normalizeFormat(String(p.output_format)),
};
