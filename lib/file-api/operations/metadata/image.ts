/** metadata on the image function: exiftool (perl or WebAssembly) and the native readers (sharp, exifr, pdf-lib, ffprobe). */
import { readMetadata } from '../../../engines/metadata/exiftool.js';
import { readMetadataNative } from '../../../engines/metadata/metadata-native.js';
import { handlers } from '../framework/define.js';
import { metadata } from './operation.js';

export default handlers(metadata, 'image', { exiftool: readMetadata, native: readMetadataNative });
