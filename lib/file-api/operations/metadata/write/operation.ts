/** `metadata/write`: a copy of the file with the given tags written (exiftool, or the native writers). */
import * as z from 'zod';
import { IMAGE_FORMATS } from '../../../../engines/core/formats.js';
import { METADATA_DESCRIPTION, tagProblem, valueProblem } from '../../../../engines/metadata/metadata-tags.js';
import { defineOperation } from '../../framework/define.js';
import { sameFormat } from '../../framework/engine-request.js';
import { common, filename, format } from '../../framework/fields.js';

const name = 'metadata/write';

/**
 * The tags: names from the allowlist of real metadata tags and groups (exiftool's file-system
 * pseudo-tags are refused), values one line of text or a number. Each problem is keyed by the tag
 * (`metadata.<tag>`) and names it.
 */
const metadataTags = z
  .record(z.string(), z.unknown())
  .superRefine((tags, ctx) => {
    const names = Object.keys(tags);
    if (names.length === 0) ctx.addIssue({ code: 'custom', message: 'must hold at least one field' });
    if (names.length > MAX_TAGS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_TAGS} tags can be written at once` });
    for (const name of names.slice(0, MAX_TAGS + 1)) {
      const value = tags[name];
      const problem =
        tagProblem(name) ??
        (typeof value === 'string' || typeof value === 'number' ? valueProblem(name, value) : `the value of ${name} must be text or a number.`);
      if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem });
    }
  })
  .transform((tags) => tags as Record<string, string | number>)
  .meta({ default: null, description: METADATA_DESCRIPTION });
const MAX_TAGS = 100;

export const metadataWrite = defineOperation({
  name,
  step: 'process',
  inputs: 'required',
  schema: z.looseObject({
      ...common,
      input_format: format.optional(),
      filename: filename.optional(),
      metadata: metadataTags,
    }),
  engines: {
    request: sameFormat,
    mode: 'each',
    outputFormat: () => undefined,
    order: ['exiftool', 'native'],
    capabilities: {
      exiftool: [{ inputs: [...IMAGE_FORMATS, 'pdf', 'mp4', 'mov', 'm4a'], outputs: 'same', options: ['metadata'] }],
      native: [{ inputs: ['jpg', 'png', 'webp', 'tiff', 'pdf'], outputs: 'same', options: ['metadata'] }],
    },
  },
});
