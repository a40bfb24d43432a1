/** `export/url`: temporary download URLs of the input files (24 hours), optionally as one ZIP. */
import * as z from 'zod';
import { defineOperation } from '../../framework/define.js';
import { common } from '../../framework/fields.js';

export const exportUrl = defineOperation({
  name: 'export/url',
  step: 'export',
  inputs: 'required',
  credits: 0,
  // Server-side copies: no engine, no network (a ZIP of the inputs goes through the export queue).
  inline: (payload) => !payload.archive_multiple_files,
  servesDownloads: true,
  schema: z.looseObject({ ...common, inline: z.boolean().optional(), archive_multiple_files: z.boolean().optional() }),
});
