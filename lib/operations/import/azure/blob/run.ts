import { implement } from '../../../define.js';
import { lazy } from '../../../lazy.js';
import { importAzureBlob } from './operation.js';

// The Azure SDK is loaded when a task first needs it.
export default implement(importAzureBlob, lazy(async () => (await import('../../../azure-blob.js')).importAzureBlob));
