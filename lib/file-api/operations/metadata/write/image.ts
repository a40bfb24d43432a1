/** metadata/write on the image function: exiftool (perl or WebAssembly) and the native writers (sharp, pdf-lib). */
import { writeMetadata } from '../../../../engines/metadata/exiftool.js';
import { writeMetadataNative } from '../../../../engines/metadata/metadata-native.js';
import { handlers } from '../../framework/define.js';
import { metadataWrite } from './operation.js';

export default handlers(metadataWrite, 'image', { exiftool: writeMetadata, native: writeMetadataNative });
