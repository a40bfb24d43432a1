/** `optimize`: smaller PDFs (Ghostscript with a profile, or qpdf losslessly), PNGs and JPGs (sharp); handlers: operations/families/. */
import type { EngineOperationShape } from './engine-task.js';

export const optimizeShape: EngineOperationShape = { operation: 'optimize', mode: 'each', outputFormat: () => undefined };
