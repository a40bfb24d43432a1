/** import/upload is never queued: its task finishes when its file arrives (functions/tasks/upload-received.ts). */
import { implement } from '../../framework/define.js';
import { TaskFailure } from '../../framework/types.js';
import { importUpload } from './operation.js';

export default implement(importUpload, async () => {
  throw new TaskFailure('INTERNAL_ERROR', 'An upload task finishes when its file arrives; it is not run by a step.');
});
