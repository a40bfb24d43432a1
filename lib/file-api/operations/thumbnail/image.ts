/** thumbnail on the image function: images with sharp. */
import { thumbnailImage } from '../../../engines/image/sharp.js';
import { handlers } from '../framework/define.js';
import { thumbnail } from './operation.js';

export default handlers(thumbnail, 'image', { sharp: thumbnailImage });
