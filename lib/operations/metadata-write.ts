/** `metadata/write`: a copy of the file with the `metadata` fields written (exiftool, else the native engine of npm packages; handlers: operations/families/). */
import type { EngineOperationShape } from './engine-task.js';

export const metadataWriteShape: EngineOperationShape = { operation: 'metadata/write', mode: 'each', outputFormat: () => undefined };
