/** `metadata`: the file's metadata (exiftool, else the native engine of npm packages) in `result.metadata`; several inputs are keyed by file name (handlers: operations/families/). */
import type { EngineOperationShape } from './engine-task.js';

export const metadataShape: EngineOperationShape = { operation: 'metadata', mode: 'each', outputFormat: () => undefined };
