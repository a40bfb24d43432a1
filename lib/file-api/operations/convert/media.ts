/** convert on the media function's engine: video and audio with FFmpeg. */
import { convertMedia } from '../../../engines/media/convert.js';
import { handlers } from '../framework/define.js';
import { convert } from './operation.js';

export default handlers(convert, 'media', { ffmpeg: convertMedia });
