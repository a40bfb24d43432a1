/** `import/raw`: a file whose text content is sent with the request, stored when the task is created. */
import * as z from 'zod';
import { defineOperation } from '../../framework/define.js';
import { common, filename } from '../../framework/fields.js';

export const importRaw = defineOperation({
  name: 'import/raw',
  step: 'import',
  inputs: 'none',
  credits: 0,
  // Its content came with the request: nothing left to fetch, no engine.
  inline: true,
  schema: z.looseObject({ ...common, file: z.string(), filename }),
  creation: {
    kind: 'content',
    field: 'file',
    decode: (p) => ({ bytes: Buffer.from(String(p.file), 'utf8'), filename: String(p.filename) }),
  },
});
