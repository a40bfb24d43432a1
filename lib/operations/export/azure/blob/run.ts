import { implement } from '../../../define.js';
import { lazy } from '../../../lazy.js';
import { exportAzureBlob } from './operation.js';

// The Azure SDK is loaded when a task first needs it.
export default implement(exportAzureBlob, lazy(async () => (await import('../../../azure-blob.js')).exportAzureBlob));
