/** `metadata/write`: a copy of the file with the `metadata` fields written (exiftool). */
import { writeMetadata } from '../engines/exiftool.js';
import { engineOperation } from './engine-task.js';

export const metadataWrite = engineOperation({
  operation: 'metadata/write',
  mode: 'each',
  outputFormat: () => undefined,
  handlers: { exiftool: writeMetadata },
});
