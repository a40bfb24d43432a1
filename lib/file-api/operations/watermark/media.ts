/** watermark on the media function: videos with FFmpeg. */
import { watermarkVideo } from '../../../engines/media/ffmpeg.js';
import { withImage } from '../../../engines/image/watermark-image.js';
import { handlers } from '../framework/define.js';
import { watermark } from './operation.js';

export default handlers(watermark, 'media', { ffmpeg: withImage(watermarkVideo) });
