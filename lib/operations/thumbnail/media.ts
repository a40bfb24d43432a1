/** thumbnail on the media function: video frames with FFmpeg. */
import { videoThumbnails } from '../../engines/ffmpeg.js';
import { handlers } from '../define.js';
import { thumbnail } from './operation.js';

export default handlers(thumbnail, 'media', { ffmpeg: videoThumbnails });
