/** watermark on the image function: PDFs with pdf-lib, images with sharp (and the watermark alone as a PNG). */
import { watermarkPdf } from '../../../engines/pdf/pdf.js';
import { watermarkImage, watermarkPng } from '../../../engines/image/sharp.js';
import { withImage } from '../../../engines/image/watermark-image.js';
import { handlers } from '../framework/define.js';
import { watermark } from './operation.js';

export default handlers(watermark, 'image', {
  'pdf-lib': withImage(watermarkPdf),
  sharp: withImage((call, image) => (call.inputs.length ? watermarkImage(call, image) : watermarkPng(call, image))),
});
