/** convert on the image function's engines: images with sharp, images to PDF with pdf-lib, the other image formats with ImageMagick, archives with 7-Zip, fonts with fonteditor. */
import { imageToPdf } from '../../../engines/pdf/pdf.js';
import { convertWithMagick } from '../../../engines/image/magick.js';
import { convertImage } from '../../../engines/image/sharp.js';
import { convertArchive } from '../../../engines/archive/handlers.js';
import { convertFont } from '../../../engines/font/convert.js';
import { handlers } from '../framework/define.js';
import { convert } from './operation.js';

export default handlers(convert, 'image', { sharp: convertImage, 'pdf-lib': imageToPdf, imagemagick: convertWithMagick, archivetool: convertArchive, fonteditor: convertFont });
