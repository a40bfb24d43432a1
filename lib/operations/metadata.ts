/** `metadata`: the file's metadata (exiftool, else the native engine of npm packages) in `result.metadata`; several inputs are keyed by file name. */
import { readMetadata } from '../engines/exiftool.js';
import { readMetadataNative } from '../engines/metadata-native.js';
import { engineOperation } from './engine-task.js';

export const metadata = engineOperation({
  operation: 'metadata',
  mode: 'each',
  outputFormat: () => undefined,
  handlers: { exiftool: readMetadata, native: readMetadataNative },
});
