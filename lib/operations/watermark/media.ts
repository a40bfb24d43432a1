/** watermark on the media function: videos with FFmpeg. */
import { watermarkVideo } from '../../engines/ffmpeg.js';
import { withImage } from '../../engines/watermark-image.js';
import { handlers } from '../define.js';
import { watermark } from './operation.js';

export default handlers(watermark, 'media', { ffmpeg: withImage(watermarkVideo) });
