import { implement } from '../../framework/define.js';
import { lazy } from '../../framework/lazy.js';
import { exportS3 } from './operation.js';

// The AWS SDK is loaded when a task first needs it.
export default implement(exportS3, lazy(async () => (await import('../../storage/s3-transfer.js')).exportS3));
