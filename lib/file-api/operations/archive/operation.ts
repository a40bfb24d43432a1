/** `archive`: every input file in one zip, tar or tar.gz, streamed (archiver). */
import * as z from 'zod';
import { defineOperation } from '../framework/define.js';
import { common, filename } from '../framework/fields.js';

const name = 'archive';

export const archive = defineOperation({
  name,
  step: 'process',
  inputs: 'required',
  schema: z.looseObject({
      ...common,
      output_format: z.enum(['zip', 'tar', 'tar.gz', 'tgz']),
      filename: filename.optional(),
    }),
  engines: {
    mode: 'all',
    whole: true,
    outputFormat: (p) => p.output_format,
    order: ['archiver'],
    capabilities: { archiver: [{ inputs: 'any', outputs: ['zip', 'tar', 'tar.gz', 'tgz'], options: [] }] },
  },
});
