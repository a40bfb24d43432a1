/** `import/base64`: a file sent base64-encoded with the request, stored when the task is created. */
import * as z from 'zod';
import { defineOperation } from '../../framework/define.js';
import { common, filename } from '../../framework/fields.js';

export const importBase64 = defineOperation({
  name: 'import/base64',
  step: 'import',
  inputs: 'none',
  credits: 0,
  // Its content came with the request: nothing left to fetch, no engine.
  inline: true,
  schema: z.looseObject({
    ...common,
    file: z.string().regex(/^[A-Za-z0-9+/=\s_-]*$/, 'must be base64-encoded'),
    filename,
  }),
  creation: {
    kind: 'content',
    field: 'file',
    decode: (p) => ({ bytes: Buffer.from(String(p.file), 'base64'), filename: String(p.filename) }),
  },
});
