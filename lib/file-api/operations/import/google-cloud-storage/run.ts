import { implement } from '../../framework/define.js';
import { lazy } from '../../framework/lazy.js';
import { importGoogleCloudStorage } from './operation.js';

// The Cloud Storage SDK is loaded when a task first needs it.
export default implement(importGoogleCloudStorage, lazy(async () => (await import('../../storage/google-cloud-storage-transfer.js')).importGoogleCloudStorage));
