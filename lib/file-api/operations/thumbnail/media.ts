/** thumbnail on the media function: video frames with FFmpeg, or a WebVTT file with sprites (`output_format: vtt`). */
import { videoThumbnails } from '../../../engines/media/ffmpeg.js';
import { videoWebvtt } from '../../../engines/media/webvtt.js';
import { handlers } from '../framework/define.js';
import { thumbnail } from './operation.js';

export default handlers(thumbnail, 'media', {
  ffmpeg: (call) => (call.payload.output_format === 'vtt' ? videoWebvtt(call) : videoThumbnails(call)),
});
