/**
 * `import/upload`: the task shows an upload form (`result.form`) and waits for the file; the upload
 * function (functions/tasks/upload-received.ts) finishes it when the file arrives. It is never queued,
 * so no step function runs it.
 */
import * as z from 'zod';
import { defineOperation } from '../../framework/define.js';
import { common } from '../../framework/fields.js';

export const importUpload = defineOperation({
  name: 'import/upload',
  step: 'import',
  inputs: 'none',
  credits: 0,
  creation: { kind: 'upload' },
  schema: z.looseObject({ ...common, redirect: z.string().url().optional() }),
});
