/** `capture-website`: a web page as PDF, PNG or JPG, in Chromium; the page and its resources through the address guard. */
import * as z from 'zod';
import { normalizeFormat } from '../../../engines/core/formats.js';
import { defineOperation } from '../framework/define.js';
import { defaultRequest } from '../framework/engine-request.js';
import { CAPTURE_COMMON, CAPTURE_PDF_OPTIONS, CAPTURE_SCREENSHOT_OPTIONS, captureOptions, common, filename, httpUrl } from '../framework/fields.js';

const name = 'capture-website';

export const captureWebsite = defineOperation({
  name,
  step: 'process',
  inputs: 'none',
  schema: z.looseObject({
      ...common,
      ...captureOptions,
      url: httpUrl,
      output_format: z.enum(['pdf', 'png', 'jpg', 'jpeg']),
      filename: filename.optional(),
    }),
  engines: {
    request: defaultRequest({ withoutInput: true }),
    mode: 'each',
    outputFormat: (p) => normalizeFormat(p.output_format),
    order: ['chrome'],
    capabilities: {
      chrome: [
        { inputs: null, outputs: ['pdf'], options: [...CAPTURE_PDF_OPTIONS, ...CAPTURE_COMMON] },
        { inputs: null, outputs: ['png', 'jpg'], options: [...CAPTURE_SCREENSHOT_OPTIONS, ...CAPTURE_COMMON] },
      ],
    },
  },
});
