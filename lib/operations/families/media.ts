/** The media family: FFmpeg (with ffprobe). */
import { convertMedia, videoThumbnails, watermarkVideo } from '../../engines/ffmpeg.js';
import { withImage } from '../watermark.js';
import type { FamilyHandlers } from './types.js';

export const MEDIA_FAMILY: FamilyHandlers = {
  family: 'media',
  engines: {
    convert: { ffmpeg: convertMedia },
    thumbnail: { ffmpeg: videoThumbnails },
    watermark: { ffmpeg: withImage(watermarkVideo) },
  },
};
