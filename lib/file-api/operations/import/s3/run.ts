import { implement } from '../../framework/define.js';
import { lazy } from '../../framework/lazy.js';
import { importS3 } from './operation.js';

// The AWS SDK is loaded when a task first needs it.
export default implement(importS3, lazy(async () => (await import('../../storage/s3-transfer.js')).importS3));
