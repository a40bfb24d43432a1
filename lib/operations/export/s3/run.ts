import { implement } from '../../define.js';
import { lazy } from '../../lazy.js';
import { exportS3 } from './operation.js';

// The AWS SDK is loaded when a task first needs it.
export default implement(exportS3, lazy(async () => (await import('../../s3.js')).exportS3));
