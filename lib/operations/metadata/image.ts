/** metadata on the image function: exiftool (perl or WebAssembly) and the native readers (sharp, exifr, pdf-lib, ffprobe). */
import { readMetadata } from '../../engines/exiftool.js';
import { readMetadataNative } from '../../engines/metadata-native.js';
import { handlers } from '../define.js';
import { metadata } from './operation.js';

export default handlers(metadata, 'image', { exiftool: readMetadata, native: readMetadataNative });
