/** `metadata`: a file's metadata as the task's `result.metadata` (exiftool, or the native readers). */
import * as z from 'zod';
import { AUDIO_FORMATS, IMAGE_INPUT_FORMATS, VIDEO_FORMATS } from '../../../engines/core/formats.js';
import { defineOperation } from '../framework/define.js';
import { sameFormat } from '../framework/engine-request.js';
import { common, format } from '../framework/fields.js';

const name = 'metadata';

export const metadata = defineOperation({
  name,
  step: 'process',
  inputs: 'required',
  schema: z.looseObject({ ...common, input_format: format.optional() }),
  engines: {
    request: sameFormat,
    mode: 'each',
    outputFormat: () => undefined,
    order: ['exiftool', 'native'],
    capabilities: {
      exiftool: [{ inputs: [...IMAGE_INPUT_FORMATS, 'pdf', ...VIDEO_FORMATS, ...AUDIO_FORMATS, 'docx', 'xlsx', 'pptx', 'odt'], outputs: null, options: [] }],
      native: [{ inputs: [...IMAGE_INPUT_FORMATS, 'pdf', ...VIDEO_FORMATS, ...AUDIO_FORMATS], outputs: null, options: [] }],
    },
  },
});
