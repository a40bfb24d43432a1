/** `archive`: every input file in one zip, tar or tar.gz, streamed (archiver); or in a 7z, tar.bz2 or tar.xz (7-Zip). */
import * as z from 'zod';
import { defineOperation } from '../framework/define.js';
import { common, filename } from '../framework/fields.js';

const name = 'archive';

/** The formats only 7-Zip writes (packed from the downloaded inputs, not streamed). */
export const SEVEN_ZIP_FORMATS = ['7z', 'tar.bz2', 'tbz2', 'tar.xz', 'txz'] as const;

export const archive = defineOperation({
  name,
  step: 'process',
  inputs: 'required',
  schema: z.looseObject({
      ...common,
      output_format: z.enum(['zip', 'tar', 'tar.gz', 'tgz', ...SEVEN_ZIP_FORMATS]),
      filename: filename.optional(),
    }),
  engines: {
    mode: 'all',
    whole: true,
    outputFormat: (p) => p.output_format,
    order: ['archiver', 'archivetool'],
    capabilities: {
      archiver: [{ inputs: 'any', outputs: ['zip', 'tar', 'tar.gz', 'tgz'], options: [] }],
      archivetool: [{ inputs: 'any', outputs: SEVEN_ZIP_FORMATS, options: [] }],
    },
  },
});
