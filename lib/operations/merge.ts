/** `merge`: PDFs and images into one PDF, in input order (pdf-lib; handlers: operations/families/). */
import type { EngineOperationShape } from './engine-task.js';

export const mergeShape: EngineOperationShape = { operation: 'merge', mode: 'all', outputFormat: () => 'pdf' };
