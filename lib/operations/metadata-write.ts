/** `metadata/write`: a copy of the file with the `metadata` fields written (handlers: operations/families/). */
import type { EngineOperationShape } from './engine-task.js';

export const metadataWriteShape: EngineOperationShape = { operation: 'metadata/write', mode: 'each', outputFormat: () => undefined };
