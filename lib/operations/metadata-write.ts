/** `metadata/write`: a copy of the file with the `metadata` fields written (exiftool, else the native engine of npm packages). */
import { writeMetadata } from '../engines/exiftool.js';
import { writeMetadataNative } from '../engines/metadata-native.js';
import { engineOperation } from './engine-task.js';

export const metadataWrite = engineOperation({
  operation: 'metadata/write',
  mode: 'each',
  outputFormat: () => undefined,
  handlers: { exiftool: writeMetadata, native: writeMetadataNative },
});
