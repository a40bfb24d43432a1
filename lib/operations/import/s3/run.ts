import { implement } from '../../define.js';
import { lazy } from '../../lazy.js';
import { importS3 } from './operation.js';

// The AWS SDK is loaded when a task first needs it.
export default implement(importS3, lazy(async () => (await import('../../s3.js')).importS3));
