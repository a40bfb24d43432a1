/** `import/url`: a file downloaded from an http(s) URL through the address guard. */
import * as z from 'zod';
import { defineOperation } from '../../framework/define.js';
import { common, filename, headers } from '../../framework/fields.js';

export const importUrl = defineOperation({
  name: 'import/url',
  step: 'import',
  inputs: 'none',
  credits: 0,
  schema: z.looseObject({
    ...common,
    url: z.string().url('must be an absolute http(s) URL').refine((u) => /^https?:/i.test(u), 'must be an http or https URL'),
    filename: filename.optional(),
    headers: headers.optional(),
  }),
});
