/** convert on the image function's engines: images with sharp, images to PDF with pdf-lib. */
import { imageToPdf } from '../../../engines/pdf/pdf.js';
import { convertImage } from '../../../engines/image/sharp.js';
import { convertFont } from '../../../engines/font/convert.js';
import { handlers } from '../framework/define.js';
import { convert } from './operation.js';

export default handlers(convert, 'image', { sharp: convertImage, 'pdf-lib': imageToPdf, fonteditor: convertFont });
