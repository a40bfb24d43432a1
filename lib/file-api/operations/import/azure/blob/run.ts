import { implement } from '../../../framework/define.js';
import { lazy } from '../../../framework/lazy.js';
import { importAzureBlob } from './operation.js';

// The Azure SDK is loaded when a task first needs it.
export default implement(importAzureBlob, lazy(async () => (await import('../../../storage/azure-blob-transfer.js')).importAzureBlob));
