/**
 * The image family: sharp, pdf-lib and archiver, and metadata (exiftool, and the native engine of
 * sharp, exifr, pdf-lib and ffprobe). No native tool but the static ffprobe, for the metadata of video
 * and audio; the general process function.
 */
import { readMetadata, writeMetadata } from '../../engines/exiftool.js';
import { readMetadataNative, writeMetadataNative } from '../../engines/metadata-native.js';
import { imageToPdf, mergeToPdf, watermarkPdf } from '../../engines/pdf.js';
import { convertImage, optimizeImage, thumbnailImage, watermarkImage, watermarkPng } from '../../engines/sharp.js';
import { archive } from '../archive.js';
import { withImage } from '../watermark.js';
import type { FamilyHandlers } from './types.js';

export const IMAGE_FAMILY: FamilyHandlers = {
  family: 'image',
  engines: {
    convert: { sharp: convertImage, 'pdf-lib': imageToPdf },
    thumbnail: { sharp: thumbnailImage },
    watermark: {
      'pdf-lib': withImage(watermarkPdf),
      sharp: withImage((call, image) => (call.inputs.length ? watermarkImage(call, image) : watermarkPng(call, image))),
    },
    optimize: { sharp: optimizeImage },
    merge: { 'pdf-lib': mergeToPdf },
    metadata: { exiftool: readMetadata, native: readMetadataNative },
    'metadata/write': { exiftool: writeMetadata, native: writeMetadataNative },
  },
  implementations: { archive },
};
