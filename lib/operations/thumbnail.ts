/** `thumbnail`: png, jpg or webp of an image, a PDF's first page or video frames at `timestamp`. */
import { videoThumbnails } from '../engines/ffmpeg.js';
import { normalizeFormat } from '../engines/formats.js';
import { pdfThumbnail } from '../engines/ghostscript.js';
import { thumbnailImage } from '../engines/sharp.js';
import { engineOperation } from './engine-task.js';

export const thumbnail = engineOperation({
  operation: 'thumbnail',
  mode: 'each',
  outputFormat: (p) => normalizeFormat(String(p.output_format)),
  handlers: { sharp: thumbnailImage, ghostscript: pdfThumbnail, ffmpeg: videoThumbnails },
});
