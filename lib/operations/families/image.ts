/** The image family: sharp, pdf-lib and archiver (no native tool; the general process function). */
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
  },
  implementations: { archive },
};
