/** optimize on the image function: PNG and JPG with sharp. */
import { optimizeImage } from '../../../engines/image/sharp.js';
import { handlers } from '../framework/define.js';
import { optimize } from './operation.js';

export default handlers(optimize, 'image', { sharp: optimizeImage });
